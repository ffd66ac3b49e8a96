/**
 * How often engines give the same answer: over the decisions (case and question) every engine
 * answered, the share where all their predicted answers are equal — overall with a seeded case
 * bootstrap interval, per question (`workflow/question`), and for every pair of engines.
 * Decisions where any engine has an error are left out (and counted), since an error has no
 * predicted answer to agree with.
 *
 * @module
 */
import { type Interval, randomInt, seededRandom } from "../metrics/mod.ts";

/** What agreement reads from a decision (a `DecisionRecord` has it all). */
export interface AgreementInput {
  /** Case id. */
  case: string;
  /** Workflow of the case. */
  workflow: string;
  /** Question name. */
  question: string;
  /** Predicted answer, or null on error. */
  answer: string | null;
  /** Error, or null. */
  error: unknown;
}

/** One engine's decisions. */
export interface EngineDecisions {
  /** Engine (endpoint) name. */
  name: string;
  /** Its decisions. */
  records: readonly AgreementInput[];
}

/** Agreement over one group of decisions. */
export interface AgreementRow {
  /** `workflow/question`, a pair `a ↔ b`, or `all`. */
  key: string;
  /** Decisions every compared engine answered. */
  n: number;
  /** Of those, decisions where every compared engine gave the same answer. */
  agree: number;
  /** `agree / n`, null when n is 0. */
  rate: number | null;
}

/** The agreement between engines. */
export interface Agreement {
  /** All engines agreeing, over every decision they all answered. */
  overall: AgreementRow;
  /** 95% case-bootstrap interval of the overall rate, null when nothing was compared. */
  interval: Interval | null;
  /** Decisions left out because some engine has an error or lacks the decision. */
  excluded: number;
  /** Per question (`workflow/question`), in order of first appearance. */
  byQuestion: AgreementRow[];
  /** Every pair of engines (only when there are more than two). */
  pairs: AgreementRow[];
}

/** Options of {@linkcode answerAgreement}. */
export interface AgreementOptions {
  /** Bootstrap resamples. @default 1000 */
  resamples?: number | undefined;
  /** Bootstrap seed. @default 0 */
  seed?: number | undefined;
}

function keyOf(d: AgreementInput): string {
  return `${d.case}\u0000${d.question}`;
}

function row(key: string, n: number, agree: number): AgreementRow {
  return { key, n, agree, rate: n === 0 ? null : agree / n };
}

/**
 * Measures how often engines' predicted answers agree.
 *
 * @param engines Each engine's decisions (at least two engines).
 * @param options Bootstrap resamples and seed.
 * @returns Overall agreement with its interval, per question, and per pair.
 * @throws {RangeError} With fewer than two engines.
 * @example
 * ```ts
 * import { answerAgreement } from "./agreement.ts";
 * const d = (c: string, answer: string) => ({ case: c, workflow: "w", question: "q", answer, error: null });
 * const a = answerAgreement([
 *   { name: "a", records: [d("1", "yes"), d("2", "no")] },
 *   { name: "b", records: [d("1", "yes"), d("2", "yes")] },
 * ]);
 * a.overall.rate; // 0.5
 * ```
 */
export function answerAgreement(
  engines: readonly EngineDecisions[],
  options: AgreementOptions = {},
): Agreement {
  if (engines.length < 2) {
    throw new RangeError(
      `Cannot measure agreement: it needs at least two engines, got ${engines.length}`,
    );
  }
  const indexed = engines.map((e) => new Map(e.records.map((d) => [keyOf(d), d])));
  const first = engines[0] as EngineDecisions;
  const all = new Set<string>();
  for (const index of indexed) for (const key of index.keys()) all.add(key);
  const byQuestion = new Map<string, { n: number; agree: number }>();
  const byCase = new Map<string, { n: number; agree: number }>();
  const pairCounts = engines.map(() => engines.map(() => ({ n: 0, agree: 0 })));
  let n = 0;
  let agree = 0;
  for (const d of first.records) {
    const answers = indexed.map((index) => index.get(keyOf(d)));
    if (answers.some((x) => x === undefined || x.error !== null || x.answer === null)) continue;
    const values = answers.map((x) => (x as AgreementInput).answer);
    const same = values.every((v) => v === values[0]);
    n++;
    if (same) agree++;
    const q = `${d.workflow}/${d.question}`;
    const qc = byQuestion.get(q) ?? { n: 0, agree: 0 };
    qc.n++;
    if (same) qc.agree++;
    byQuestion.set(q, qc);
    const cc = byCase.get(d.case) ?? { n: 0, agree: 0 };
    cc.n++;
    if (same) cc.agree++;
    byCase.set(d.case, cc);
    for (let i = 0; i < values.length; i++) {
      for (let j = i + 1; j < values.length; j++) {
        const pc = (pairCounts[i] as { n: number; agree: number }[])[j] as {
          n: number;
          agree: number;
        };
        pc.n++;
        if (values[i] === values[j]) pc.agree++;
      }
    }
  }
  const pairs: AgreementRow[] = [];
  if (engines.length > 2) {
    for (let i = 0; i < engines.length; i++) {
      for (let j = i + 1; j < engines.length; j++) {
        const pc = (pairCounts[i] as { n: number; agree: number }[])[j] as {
          n: number;
          agree: number;
        };
        pairs.push(row(`${engines[i]?.name} ↔ ${engines[j]?.name}`, pc.n, pc.agree));
      }
    }
  }
  return {
    overall: row("all", n, agree),
    interval: caseInterval([...byCase.values()], options),
    excluded: all.size - n,
    byQuestion: [...byQuestion].map(([key, c]) => row(key, c.n, c.agree)),
    pairs,
  };
}

/** Percentile bootstrap over cases of the pooled agreement rate. */
function caseInterval(
  cases: readonly { n: number; agree: number }[],
  options: AgreementOptions,
): Interval | null {
  if (cases.length === 0) return null;
  const resamples = options.resamples ?? 1000;
  const random = seededRandom(options.seed ?? 0);
  const rates: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let n = 0;
    let agree = 0;
    for (let i = 0; i < cases.length; i++) {
      const c = cases[randomInt(random, cases.length)] as { n: number; agree: number };
      n += c.n;
      agree += c.agree;
    }
    rates.push(agree / n);
  }
  rates.sort((a, b) => a - b);
  const at = (p: number): number =>
    rates[Math.min(rates.length - 1, Math.max(0, Math.floor(p * rates.length)))] as number;
  return [at(0.025), at(0.975)];
}
