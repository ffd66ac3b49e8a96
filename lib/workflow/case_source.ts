/**
 * What a run asks: its cases as an (async) iterable read once, in the question set's order, with
 * the counts and digests the run needs before the first case is read. An array of cases becomes
 * one with {@linkcode arrayCaseSource}; an opened question set, read as a stream and never held
 * whole, with {@linkcode questionSetSource}.
 *
 * @module
 */
import { type Case, type QuestionSet, questionsJson } from "../dataset/mod.ts";
import { sha256Hex } from "../record/mod.ts";

/** The digests of a run's cases that its spec records (and its fingerprint covers). */
export interface CaseDigests {
  /** sha256 of the case ids joined by newlines. */
  caseIdsSha256: string;
  /** sha256 of `JSON.stringify(cases.map((c) => c.questions))`. */
  questionsSha256: string;
}

/** The cases a run asks, read once, with what the run needs to know of them up front. */
export interface CaseSource {
  /** The cases, in the question set's order; read once. */
  cases: Iterable<Case> | AsyncIterable<Case>;
  /** How many cases. */
  count: number;
  /** How many decisions (questions over all cases). */
  decisions: number;
  /** Question names per case id, in order: what `--resume` expects of each recorded case. */
  expected(): Promise<ReadonlyMap<string, readonly string[]>>;
  /** The digests recorded in the run's spec. */
  digests(): Promise<CaseDigests>;
  /** The cases as an array, when the source has one (the stability passes ask them again). */
  list?: readonly Case[] | undefined;
}

/**
 * The digests of a list of cases, as a run records them: the ids joined by newlines, and the
 * questions of every case as one JSON array (`JSON.stringify(cases.map((c) => c.questions))`,
 * built from each questions object's JSON made once).
 *
 * @param cases The cases, in order.
 * @returns Both sha256 digests (hex).
 */
export async function caseDigests(cases: readonly Case[]): Promise<CaseDigests> {
  return {
    caseIdsSha256: await sha256Hex(cases.map((c) => c.id).join("\n")),
    questionsSha256: await sha256Hex(`[${cases.map((c) => questionsJson(c.questions)).join(",")}]`),
  };
}

/**
 * A case source over an array of cases.
 *
 * @param cases The cases, in order.
 * @returns The source (its digests computed on first use).
 */
export function arrayCaseSource(cases: readonly Case[]): CaseSource {
  let digests: Promise<CaseDigests> | undefined;
  return {
    cases,
    count: cases.length,
    decisions: cases.reduce((n, c) => n + Object.keys(c.questions).length, 0),
    expected: () => Promise.resolve(new Map(cases.map((c) => [c.id, Object.keys(c.questions)]))),
    digests: () => digests ??= caseDigests(cases),
    list: cases,
  };
}

/**
 * A case source over an opened question set: its cases read as a stream (the set's second pass
 * over a user file) and never held, its counts and digests the ones the set took when it was
 * opened. It has no `list`: a run that asks the cases again (stability passes) loads them instead.
 *
 * @param set The opened question set (its selection applied).
 * @returns The source; `expected()` reads the set once more to learn the ids.
 */
export function questionSetSource(set: QuestionSet): CaseSource {
  return {
    cases: set.cases(),
    count: set.count,
    decisions: set.decisions,
    expected: async () => {
      // Cases of one set share their questions object: one list of names for each.
      const names = new Map<Case["questions"], readonly string[]>();
      const expected = new Map<string, readonly string[]>();
      for await (const item of set.cases()) {
        let list = names.get(item.questions);
        if (list === undefined) names.set(item.questions, list = Object.keys(item.questions));
        expected.set(item.id, list);
      }
      return expected;
    },
    digests: () =>
      Promise.resolve({
        caseIdsSha256: set.caseIdsSha256,
        questionsSha256: set.questionsSha256,
      }),
  };
}

/**
 * The case source of a run's context: the one given, or one over the array given.
 *
 * @param cases An array of cases or a case source.
 * @returns The case source.
 */
export function caseSourceOf(cases: readonly Case[] | CaseSource): CaseSource {
  return isCaseSource(cases) ? cases : arrayCaseSource(cases);
}

function isCaseSource(cases: readonly Case[] | CaseSource): cases is CaseSource {
  return !Array.isArray(cases);
}
