/**
 * Resuming a run: what must match between the recorded configuration and the current one, and
 * which recorded decisions are kept.
 *
 * A case counts as answered — and is not asked again — when every one of its questions has a
 * recorded decision without an error. A case whose decisions carry an error (a timeout, a dead
 * server, a malformed answer) has no recorded answer, so `--resume` asks it again and its new
 * decisions replace the old ones.
 *
 * `decisions.jsonl` is only appended to while a run goes on. Resuming reads it as a stream
 * (`scanDecisions`) and, only when it holds something not kept (an errored or torn case, a
 * duplicate, a case the selection does not ask), copies the kept lines to a new file line by line
 * (`compactDecisions`), so after a resume starts the file holds each kept decision once and the
 * re-asked cases are appended after them.
 *
 * @module
 */
import { writeAtomic } from "../bytes.ts";
import { type DecisionLine, readDecisionLines, readTextLines } from "./lines.ts";
import type { DecisionRecord, RunSpec } from "./schemas.ts";

/** One field whose value differs between the recorded run and the current configuration. */
export interface SpecDifference {
  /** What differs, e.g. `model` or `dataset revision`. */
  field: string;
  /** The recorded value. */
  recorded: string;
  /** The current value. */
  current: string;
  /** What to do about it. */
  hint: string;
}

/** Options for `specDifferences`. */
export interface SpecDifferencesOptions {
  /**
   * The endpoint may differ (and with it the fingerprint): a run with no answered case, e.g. one
   * started with a wrong `--base-url`, is resumed against the right one.
   * @default false
   */
  endpointMayChange?: boolean;
}

/**
 * The configuration fields that differ between a recorded run and the current configuration: the
 * fields the fingerprint covers (dataset id and revision — for a user question set its file's
 * sha256 and rows and the question definitions —, endpoint identity, engine, model, state
 * encoding, questions) plus the case selection. An empty list means the run can be resumed.
 *
 * @param recorded The spec in the run's `run.json`.
 * @param current The spec the current command would run.
 * @param options Whether the endpoint may change.
 * @returns The differences, in a fixed order; empty when none.
 * @example
 * ```ts ignore
 * import { specDifferences } from "./resume.ts";
 * specDifferences(recorded.spec, current).map((d) => d.field); // ["model"]
 * ```
 */
export function specDifferences(
  recorded: RunSpec,
  current: RunSpec,
  options: SpecDifferencesOptions = {},
): SpecDifference[] {
  const out: SpecDifference[] = [];
  const mayChange = new Set(options.endpointMayChange ? ["endpoint", "fingerprint"] : []);
  const check = (field: string, a: string, b: string, hint: string): void => {
    if (a !== b && !mayChange.has(field)) out.push({ field, recorded: a, current: b, hint });
  };
  const fileSet = (s: RunSpec) => (s.question_set?.kind === "file" ? s.question_set : undefined);
  const recordedFile = fileSet(recorded);
  const currentFile = fileSet(current);
  if (recordedFile && currentFile) {
    // A user question set: name the file and what changed in it.
    const facts = (f: typeof recordedFile) => `sha256 ${f.sha256.slice(0, 12)}, ${f.rows} rows`;
    check(
      `question set file "${recordedFile.path}"`,
      facts(recordedFile),
      facts(currentFile),
      "the file changed since the run started; restore it, or start a new run",
    );
    check(
      "question definitions",
      recordedFile.definitions_sha256.slice(0, 12),
      currentFile.definitions_sha256.slice(0, 12),
      "the workflow's dataset fields or questions changed; use the workflow the run started with",
    );
  } else {
    check("dataset", recorded.dataset, current.dataset, "resume with the dataset the run used");
    check(
      "dataset revision",
      recorded.revision,
      current.revision,
      "the vendored dataset changed since the run started; start a new run",
    );
    const asked = (s: RunSpec) =>
      s.question_set?.kind === "typed-decisions"
        ? s.question_set.questions.join(", ")
        : "every question (card protocol)";
    check(
      "questions asked",
      asked(recorded),
      asked(current),
      "use the cases.questions the run started with",
    );
  }
  check(
    "endpoint",
    recorded.endpoint,
    current.endpoint,
    "pass the --base-url the run started with",
  );
  check("engine", recorded.engine, current.engine, "use the workflow the run started with");
  check("model", recorded.model, current.model, "pass the --model the run started with");
  check(
    "state encoding",
    recorded.state_encoding,
    current.state_encoding,
    "use the workflow the run started with",
  );
  if (recorded.case_ids_sha256 !== current.case_ids_sha256) {
    out.push({
      field: "cases",
      recorded: `${recorded.cases} cases (ids sha256 ${recorded.case_ids_sha256.slice(0, 12)})`,
      current: `${current.cases} cases (ids sha256 ${current.case_ids_sha256.slice(0, 12)})`,
      hint: "pass the --limit and workflow the run started with",
    });
  } else {
    check(
      "questions",
      recorded.questions_sha256.slice(0, 12),
      current.questions_sha256.slice(0, 12),
      "the questions sent changed; start a new run",
    );
  }
  if (!out.length && recorded.fingerprint !== current.fingerprint) {
    check(
      "fingerprint",
      recorded.fingerprint,
      current.fingerprint,
      "the run was recorded by another version of decibench; start a new run",
    );
  }
  return out;
}

/** `--resume` refused: the current configuration is not the one the run started with. */
export class ResumeMismatchError extends Error {
  /** The run directory. */
  readonly dir: string;
  /** What differs. */
  readonly differences: readonly SpecDifference[];

  /**
   * The refusal, its message listing every difference with the recorded and current values.
   *
   * @param dir The run directory.
   * @param differences What differs (at least one).
   */
  constructor(dir: string, differences: readonly SpecDifference[]) {
    const list = differences
      .map((d) => `${d.field}: recorded "${d.recorded}", now "${d.current}" (${d.hint})`)
      .join("; ");
    super(`Cannot resume run "${dir}": its configuration differs — ${list}`);
    this.name = "ResumeMismatchError";
    this.dir = dir;
    this.differences = differences;
  }
}

/** The last decision recorded for each question, by case, with its line. */
type Latest = Map<string, Map<string, { line: number; record: DecisionRecord }>>;

function keep(latest: Latest, expected: ReadonlyMap<string, readonly string[]>): {
  answered: Map<string, DecisionRecord[]>;
  lines: Set<number>;
} {
  const answered = new Map<string, DecisionRecord[]>();
  const lines = new Set<number>();
  for (const [id, questions] of expected) {
    const byQuestion = latest.get(id);
    if (!byQuestion) continue;
    const kept = questions.map((q) => byQuestion.get(q));
    if (kept.every((r) => r !== undefined && r.record.error === null)) {
      answered.set(id, kept.map((r) => r!.record));
      for (const r of kept) lines.add(r!.line);
    }
  }
  return { answered, lines };
}

function note(latest: Latest, line: number, record: DecisionRecord): void {
  let byQuestion = latest.get(record.case);
  if (!byQuestion) latest.set(record.case, byQuestion = new Map());
  byQuestion.set(record.question, { line, record });
}

/**
 * The recorded decisions to keep on resume: for each case in `expected` whose questions all have
 * an error-free decision, those decisions (the last one recorded for each question, in the case's
 * question order). Everything else — errored cases, a case cut short by a torn line, cases the
 * current selection does not ask, duplicates — is dropped.
 *
 * @param records The recorded decisions, in file order.
 * @param expected Question names per case id, in order, for the cases the run asks.
 * @returns The kept decisions grouped by case id, in the order of `expected`.
 */
export function answeredCases(
  records: readonly DecisionRecord[],
  expected: ReadonlyMap<string, readonly string[]>,
): Map<string, DecisionRecord[]> {
  const latest: Latest = new Map();
  records.forEach((r, i) => {
    if (expected.has(r.case)) note(latest, i, r);
  });
  return keep(latest, expected).answered;
}

/** What `scanDecisions` found in a run's `decisions.jsonl`. */
export interface ScannedDecisions {
  /** The ids of the kept cases, as {@linkcode answeredCases} keeps them, in the order expected. */
  answered: ReadonlySet<string>;
  /** How many decisions the kept cases hold. */
  decisions: number;
  /** How many of them are correct. */
  correct: number;
  /** How many of them have a gold label (the others are unlabelled). */
  labelled: number;
  /**
   * The line numbers (from 1) of the kept decisions, or null when the file holds nothing else
   * (then it stays as it is).
   */
  keep: ReadonlySet<number> | null;
}

/**
 * Reads a run's `decisions.jsonl` as a stream and works out what a resume keeps: the answered
 * cases as {@linkcode answeredCases} keeps them, and whether anything else is in the file (a line
 * of an errored, unselected or superseded decision, a torn or unterminated line). It holds a
 * number per decision, never the decisions: {@linkcode KeptDecisions} reads them back.
 *
 * @param path Path of `decisions.jsonl` (absent: nothing recorded).
 * @param expected Question names per case id, in order, for the cases the run asks.
 * @returns The kept cases, and the lines to keep when the file must be compacted.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function scanDecisions(
  path: string,
  expected: ReadonlyMap<string, readonly string[]>,
): Promise<ScannedDecisions> {
  // The last line of each (case, question), times eight, plus one when it has no error, two when
  // it is correct and four when it has a gold label.
  const latest = new Map<string, number>();
  let lines = 0;
  let clean = true;
  for await (const { line, text, last } of readTextLines(path)) {
    if (last) clean = false; // no newline at the end: a write cut short
    if (!text.trim()) {
      clean = false;
      continue;
    }
    lines++;
    let record: DecisionRecord;
    try {
      record = JSON.parse(text);
    } catch {
      clean = false; // a torn line
      continue;
    }
    if (!expected.has(record.case)) continue;
    latest.set(
      `${record.case}\u0000${record.question}`,
      line * 8 + (record.error === null ? 1 : 0) + (record.correct === true ? 2 : 0) +
        (record.gold !== null && record.correct !== null ? 4 : 0),
    );
  }
  const answered = new Set<string>();
  const kept = new Set<number>();
  let correct = 0;
  let labelled = 0;
  for (const [id, questions] of expected) {
    const found: number[] = [];
    for (const q of questions) {
      const value = latest.get(`${id}\u0000${q}`);
      if (value === undefined || value % 2 === 0) break;
      found.push(value);
    }
    if (found.length !== questions.length) continue;
    answered.add(id);
    for (const value of found) {
      kept.add(Math.floor(value / 8));
      if (value & 2) correct++;
      if (value & 4) labelled++;
    }
  }
  return {
    answered,
    decisions: kept.size,
    correct,
    labelled,
    keep: clean && kept.size === lines ? null : kept,
  };
}

/**
 * The kept decisions of a resumed run, read back from its `decisions.jsonl` as the run reaches
 * each kept case — the file then holds the kept decisions only (as {@linkcode scanDecisions} left
 * it, or after {@linkcode compactDecisions}), each case's lines together. A case asked for before
 * the file reaches it waits; cases read past on the way are held until asked for (in a run, the
 * few answered out of order).
 */
export class KeptDecisions {
  readonly #lines: AsyncGenerator<DecisionLine>;
  readonly #held = new Map<string, DecisionRecord[]>();
  #left: number;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * A reader of the kept decisions; the file is opened at the first `take`.
   *
   * @param path Path of `decisions.jsonl`.
   * @param decisions How many kept decisions it starts with (lines appended later are not read).
   */
  constructor(path: string, decisions: number) {
    this.#lines = readDecisionLines(path);
    this.#left = decisions;
  }

  /**
   * A kept case's decisions.
   *
   * @param id The case id.
   * @param count How many decisions it has.
   * @returns Its decisions, in file order.
   * @throws {Error} When the file ends before them.
   */
  take(id: string, count: number): Promise<DecisionRecord[]> {
    const result = this.#queue.then(() => this.#take(id, count));
    this.#queue = result.catch(() => {});
    return result;
  }

  async #take(id: string, count: number): Promise<DecisionRecord[]> {
    for (;;) {
      const held = this.#held.get(id);
      if (held !== undefined && held.length >= count) {
        this.#held.delete(id);
        return held;
      }
      if (this.#left === 0) break;
      const next = await this.#lines.next();
      if (next.done) break;
      this.#left--;
      const r = next.value.record;
      const list = this.#held.get(r.case);
      if (list === undefined) this.#held.set(r.case, [r]);
      else list.push(r);
    }
    throw new Error(`Cannot resume: the kept decisions of case "${id}" are not in decisions.jsonl`);
  }

  /** Stops reading the file. */
  async close(): Promise<void> {
    await this.#lines.return(undefined);
  }
}

/**
 * Rewrites `decisions.jsonl` keeping only the given lines, copied line by line as a stream into a
 * file beside it that then replaces it (the disk holds the kept part twice for the copy's time).
 *
 * @param path Path of `decisions.jsonl`.
 * @param keep Line numbers to keep (from 1), as {@linkcode scanDecisions} gives them.
 * @throws {Error} When the file cannot be read or the copy written (the file is left as it was).
 */
export async function compactDecisions(path: string, keep: ReadonlySet<number>): Promise<void> {
  const encoder = new TextEncoder();
  const lines = readTextLines(path);
  const kept = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = "";
      // In slices of about 64 KiB.
      while (text.length < 1 << 16) {
        const next = await lines.next();
        if (next.done) {
          if (text) controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        if (keep.has(next.value.line)) text += next.value.text + "\n";
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  await writeAtomic(path, kept);
}
