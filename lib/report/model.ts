/**
 * The report model: everything the terminal, Markdown and HTML reports show, computed once per
 * run from bounded state fed case by case ({@linkcode ReportAccumulator}) and written once in the
 * run directory as `report.json` — the summary and the breakdowns by question type, workflow and
 * question with their bootstrap intervals, errors by kind, answer warnings, the most confident
 * disagreements, and the calibration section's tables and chart points. It holds no decision: a
 * run of any size gives a model of bounded size, and every renderer reads only the model.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import {
  type BreakdownRow,
  MetricsAccumulator,
  type Summary,
  temperatureWhatIf,
} from "../metrics/mod.ts";
import { join } from "node:path";
import { type DecisionRecord, inCaseOrder, type RunJson } from "../record/mod.ts";
import {
  type CalibrationTables,
  coverageData,
  murphyData,
  scorerProfileData,
  temperatureRows,
} from "./calibration_tables.ts";
import { type ErrorKindRow, exampleText } from "./errors.ts";

/** The report model's file in a run directory. */
export const REPORT_JSON_FILE = "report.json";

/** Version of `report.json`'s shape. */
export const REPORT_JSON_VERSION = 1;

/**
 * Most decisions (whole cases, chosen by a seeded hash of the case id) kept for the calibration
 * tables and the charts; a run with no more decisions is covered exactly.
 */
export const SAMPLE_DECISIONS = 20_000;

/** Most confident disagreements kept (the reports list 20 by default). */
export const DISAGREEMENTS_KEPT = 50;

/** Most kinds of answer warning counted (the others are left out). */
export const WARNING_KINDS_KEPT = 100;

/** One confident disagreement with gold. */
export interface DisagreementRow {
  /** Case id. */
  case: string;
  /** Question name. */
  question: string;
  /** The predicted answer. */
  answer: string;
  /** Its confidence. */
  confidence: number;
  /** The gold answer. */
  gold: string;
  /** Gold's probability of the predicted answer. */
  goldProbability: number;
}

/** A warning kind: `[kind, decisions, first example]`. */
export type WarningRow = [string, number, string];

/** A decision as the charts draw it. */
export interface ChartPoint {
  /** Top-label confidence (answered decisions only). */
  confidence: number;
  /** Whether the answer matched gold. */
  correct: boolean;
}

/** The decisions the calibration tables and the charts were computed on. */
export interface ReportSample {
  /** Decisions in the sample. */
  decisions: number;
  /** Decisions in the run. */
  of: number;
  /** The sample's cap ({@linkcode SAMPLE_DECISIONS}). */
  cap: number;
}

/** A run with everything its reports show; plain JSON (`report.json`). */
export interface RunReport {
  /** Version of the shape ({@linkcode REPORT_JSON_VERSION}). */
  version: number;
  /** The run record. */
  run: RunJson;
  /** Its summary (the run record's, metrics it lacks computed from the decisions). */
  summary: Summary;
  /** Dataset info for the attribution. */
  info: DatasetInfo;
  /** Breakdown by question type. */
  byType: BreakdownRow[];
  /** Breakdown by workflow. */
  byWorkflow: BreakdownRow[];
  /** Breakdown by question (`workflow/question`). */
  byQuestion: BreakdownRow[];
  /** Cases with decisions. */
  asked: number;
  /** Errors by kind, most decisions first. */
  errors: ErrorKindRow[];
  /** Answer warnings by kind, most decisions first. */
  warnings: WarningRow[];
  /** The most confident disagreements with gold, most confident first. */
  disagreements: DisagreementRow[];
  /** The calibration section's tables. */
  calibration: CalibrationTables;
  /**
   * Answered, labelled decisions of the sample, in case order, for the confidence and risk charts.
   */
  points: ChartPoint[];
  /** What the calibration tables and the charts were computed on. */
  sample: ReportSample;
}

/** Options for {@linkcode buildReport}. */
export interface BuildReportOptions {
  /**
   * Bootstrap seed of the summary (when the run has none) and the breakdowns.
   *
   * @default {run.spec.seed}
   */
  seed?: number | undefined;
}

/**
 * Computes a run's report model from its decisions: they are fed case by case to a
 * {@linkcode ReportAccumulator} and a `MetricsAccumulator`, as a run does.
 *
 * @param run The run record.
 * @param records Its decisions, in any order.
 * @param info Dataset info.
 * @param options The bootstrap seed.
 * @returns The report model every renderer takes.
 * @example
 * ```ts ignore
 * import { buildReport, markdownReport, terminalReport } from "./mod.ts";
 * const report = buildReport(run, records, dataset.info);
 * console.log(terminalReport(report));
 * await Deno.writeTextFile("report.md", markdownReport(report, { records }));
 * ```
 */
export function buildReport(
  run: RunJson,
  records: readonly DecisionRecord[],
  info: DatasetInfo,
  options: BuildReportOptions = {},
): RunReport {
  const seed = options.seed ?? run.spec.seed;
  const metrics = new MetricsAccumulator({ seed });
  const acc = new ReportAccumulator({ seed });
  const sorted = inCaseOrder(records);
  for (let i = 0; i < sorted.length;) {
    const id = (sorted[i] as DecisionRecord).case;
    let end = i + 1;
    while (end < sorted.length && (sorted[end] as DecisionRecord).case === id) end++;
    const list = sorted.slice(i, end);
    metrics.addCase(id, list);
    acc.addCase(id, list);
    i = end;
  }
  return acc.report(run, info, metrics);
}

/** Options of {@linkcode ReportAccumulator}. */
export interface ReportAccumulatorOptions {
  /**
   * Seed of the sample's case hash and the temperature what-if's split.
   *
   * @default 0
   */
  seed?: number | undefined;
  /**
   * Most decisions in the sample.
   *
   * @default {SAMPLE_DECISIONS}
   */
  sampleDecisions?: number | undefined;
}

/** Where a decision falls in case order: its case id and its position in the case. */
type At = [string, number];

function before(a: At, b: At): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/** 32-bit FNV-1a of the seed and the case id: the sample's order, the same in every run. */
function caseHash(seed: number, id: string): number {
  let h = 0x811c9dc5;
  const text = `${seed}\u0000${id}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The report's own bounded state, fed one case at a time in any order: errors and warnings by
 * kind (counts and the first example in case order), the top {@linkcode DISAGREEMENTS_KEPT}
 * confident disagreements, and a sample of at most {@linkcode SAMPLE_DECISIONS} decisions (the
 * cases with the smallest seeded hash of their id, whole) for the calibration tables and the
 * charts. Its size depends on the caps and the number of kinds, never on the number of cases.
 */
export class ReportAccumulator {
  readonly #seed: number;
  readonly #cap: number;
  #asked = 0;
  #decisions = 0;
  readonly #errors = new Map<string, ErrorKindRow & { at: At }>();
  readonly #warnings = new Map<string, { n: number; example: string; at: At }>();
  // Sorted: most confident first, ties in case order.
  readonly #top: (DisagreementRow & { at: At })[] = [];
  // Sorted by (hash, id).
  readonly #sample: { hash: number; id: string; records: readonly DecisionRecord[] }[] = [];
  #sampled = 0;
  // The first decision of each breakdown group in case order: the rows' order.
  readonly #groups = new Map<string, At>();

  /**
   * An empty accumulator.
   *
   * @param options Seed and the sample's cap.
   */
  constructor(options: ReportAccumulatorOptions = {}) {
    this.#seed = options.seed ?? 0;
    this.#cap = options.sampleDecisions ?? SAMPLE_DECISIONS;
  }

  /** Decisions held in the sample (at most the cap). */
  get sampled(): number {
    return this.#sampled;
  }

  /** Entries held besides the sample: error and warning kinds, disagreements. */
  get entries(): number {
    return this.#errors.size + this.#warnings.size + this.#top.length + this.#groups.size;
  }

  /**
   * Adds one case's decisions (each case once, in any order).
   *
   * @param id The case id.
   * @param records The case's decisions, in question order.
   */
  addCase(id: string, records: readonly DecisionRecord[]): void {
    if (records.length === 0) return;
    this.#asked++;
    this.#decisions += records.length;
    const kinds = new Set<string>();
    for (const [i, r] of records.entries()) {
      const at: At = [id, i];
      for (const key of [`t:${r.type}`, `w:${r.workflow}`, `q:${r.workflow}/${r.question}`]) {
        const first = this.#groups.get(key);
        if (first === undefined || before(at, first)) this.#groups.set(key, at);
      }
      if (r.error) this.#addError(r.error.kind, r.error.message, at, kinds);
      for (const warning of new Set(r.warnings ?? [])) this.#addWarning(warning, at);
      if (!r.error && r.gold !== null && !r.correct && r.confidence !== null) {
        this.#addDisagreement({
          case: r.case,
          question: r.question,
          answer: r.answer ?? "",
          confidence: r.confidence,
          gold: r.gold ?? "",
          goldProbability: r.gold_probabilities?.[r.answer ?? ""] ?? 0,
          at,
        });
      }
    }
    this.#addSample(id, records);
  }

  #addError(kind: string, message: string, at: At, kinds: Set<string>): void {
    let row = this.#errors.get(kind);
    if (row === undefined) {
      row = { kind, decisions: 0, cases: 0, example: exampleText(message), at };
      this.#errors.set(kind, row);
    } else if (before(at, row.at)) {
      row.example = exampleText(message);
      row.at = at;
    }
    row.decisions++;
    if (!kinds.has(kind)) {
      kinds.add(kind);
      row.cases++;
    }
  }

  #addWarning(warning: string, at: At): void {
    const kind = warning.replace(/[\d.,]+/g, "#");
    const entry = this.#warnings.get(kind);
    if (entry === undefined) {
      if (this.#warnings.size < WARNING_KINDS_KEPT) {
        this.#warnings.set(kind, { n: 1, example: warning, at });
      }
      return;
    }
    entry.n++;
    if (before(at, entry.at)) {
      entry.example = warning;
      entry.at = at;
    }
  }

  #addDisagreement(row: DisagreementRow & { at: At }): void {
    const top = this.#top;
    const ahead = (a: DisagreementRow & { at: At }, b: DisagreementRow & { at: At }) =>
      a.confidence > b.confidence || (a.confidence === b.confidence && before(a.at, b.at));
    if (top.length >= DISAGREEMENTS_KEPT && !ahead(row, top[top.length - 1]!)) return;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ahead(top[mid]!, row)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, row);
    if (top.length > DISAGREEMENTS_KEPT) top.pop();
  }

  #addSample(id: string, records: readonly DecisionRecord[]): void {
    const hash = caseHash(this.#seed, id);
    const sample = this.#sample;
    const after = (e: { hash: number; id: string }) =>
      e.hash > hash || (e.hash === hash && e.id > id);
    const last = sample[sample.length - 1];
    if (this.#sampled + records.length > this.#cap && last !== undefined && after(last) === false) {
      return;
    }
    let lo = 0;
    let hi = sample.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (after(sample[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    sample.splice(lo, 0, { hash, id, records });
    this.#sampled += records.length;
    while (this.#sampled > this.#cap && sample.length > 0) {
      this.#sampled -= sample.pop()!.records.length;
    }
  }

  /**
   * The report model of the cases added.
   *
   * @param run The run record.
   * @param info Dataset info.
   * @param metrics The run's metrics accumulator (summary and breakdowns), fed the same cases.
   * @returns The report model.
   */
  report(run: RunJson, info: DatasetInfo, metrics: MetricsAccumulator): RunReport {
    const computed = metrics.summary();
    // A run recorded by an older version may lack newer metrics: they are computed here.
    const summary = run.summary === null ? computed : {
      ...run.summary,
      labelled: run.summary.labelled ?? computed.labelled,
      metrics: { ...computed.metrics, ...run.summary.metrics },
      intervals: { ...computed.intervals, ...run.summary.intervals },
    };
    // The calibration tables and the charts are over labelled decisions: one without gold (a user
    // question set's blank label) is neither right nor wrong.
    const records = inCaseOrder(this.#sample.flatMap((e) => e.records))
      .filter((r) => r.gold !== null && r.correct !== null);
    const errors = [...this.#errors.values()]
      .sort((a, b) => b.decisions - a.decisions || (before(a.at, b.at) ? -1 : 1))
      .map(({ kind, decisions, cases, example }) => ({ kind, decisions, cases, example }));
    const warnings = [...this.#warnings]
      .sort(([, a], [, b]) => b.n - a.n || (before(a.at, b.at) ? -1 : 1))
      .map(([kind, e]): WarningRow => [kind, e.n, e.example]);
    const sampled = this.#sampled < this.#decisions;
    const { byType, byWorkflow, byQuestion } = metrics.breakdowns();
    const inOrder = (rows: BreakdownRow[], prefix: string): BreakdownRow[] =>
      rows.map((row, i) => ({ row, i, at: this.#groups.get(prefix + row.key) }))
        .sort((a, b) =>
          a.at === undefined || b.at === undefined
            ? a.i - b.i
            : before(a.at, b.at)
            ? -1
            : before(b.at, a.at)
            ? 1
            : a.i - b.i
        ).map(({ row }) => row);
    const temperature = temperatureRows(temperatureWhatIf(records, { seed: run.spec.seed }));
    return {
      version: REPORT_JSON_VERSION,
      run,
      summary,
      info,
      byType: inOrder(byType, "t:"),
      byWorkflow: inOrder(byWorkflow, "w:"),
      byQuestion: inOrder(byQuestion, "q:"),
      asked: this.#asked,
      errors,
      warnings,
      disagreements: this.#top.map(({ at: _, ...row }) => row),
      calibration: {
        murphy: murphyData(records),
        temperature,
        profile: scorerProfileData(records),
        coverage: coverageData(records),
      },
      points: records.filter((r) => r.confidence !== null).map((r) => ({
        confidence: r.confidence as number,
        correct: r.correct === true,
      })),
      sample: {
        decisions: sampled ? this.#sampled : this.#decisions,
        of: this.#decisions,
        cap: this.#cap,
      },
    };
  }
}

/**
 * Reads a run's report model back from its `report.json`, for renderers and readers that show a
 * run without recomputing it.
 *
 * @param dir The run directory.
 * @returns The report model, or null when the run has no `report.json` (it is written when a run
 *   ends).
 * @throws {Error} When the file cannot be read or is not a report model of this version.
 */
export async function loadRunReport(dir: string): Promise<RunReport | null> {
  const path = join(dir, REPORT_JSON_FILE);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Cannot read report "${path}": ${(error as Error).message}`);
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (version !== REPORT_JSON_VERSION) {
    throw new Error(
      `Cannot read report "${path}": field "version" is ${
        JSON.stringify(version)
      }, this version reads ${REPORT_JSON_VERSION}; run decibench again to rewrite it`,
    );
  }
  return value as RunReport;
}
