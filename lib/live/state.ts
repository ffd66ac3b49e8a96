/**
 * The live monitor's state as plain data, and the pure functions that move it on: add a probe,
 * reset the session, add a `/metrics` scrape, and read the figures the panels show. Nothing here
 * draws or does I/O; time comes in as an argument so tests control the clock.
 *
 * @module
 */
import type { QuestionType } from "../dataset/mod.ts";
import { accuracy, ece, meanBrier, meanConfidence, percentile } from "../metrics/mod.ts";
import type { CaseError, ErrorKind } from "../client/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import {
  addSample,
  emptyLoad,
  failedScrape,
  type MetricsSample,
  type ServerLoad,
} from "./server_load.ts";

/** Decisions in the rolling window (20 cases of five questions). */
export const WINDOW_DECISIONS = 100;
/** Probes whose latency the p50/p95 figures cover. */
export const LATENCY_PROBES = 100;
/** Points kept for each trend line (one per probe). */
export const TREND_POINTS = 240;
/** A wrong answer at this top probability or more is a confident mistake. */
export const CONFIDENT_MISTAKE = 0.9;
/** How long the confident-mistake banner stays up, in ms. */
export const BANNER_MS = 5000;
/** Failed probes in a row after which the model is shown unreachable. */
export const UNREACHABLE_AFTER = 3;

/**
 * Error kinds that mean the model gave no answer at all (no connection, no reply in time, a 5xx,
 * 429 or 529). Only these count toward "model unreachable": a malformed answer or a refused
 * request shows the server is there.
 */
export const NO_ANSWER_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "network",
  "timeout",
  "unavailable",
  "overloaded",
  "rate_limited",
]);

/** One probe: a case asked once and scored. */
export interface Probe {
  /** Case id. */
  caseId: string;
  /** The dataset workflow of the case. */
  workflow: string;
  /** The state as one line of JSON text (may be cut). */
  statePreview: string;
  /** The case's scored decisions, in question order (errors when the probe failed). */
  records: DecisionRecord[];
  /** Latency of the answering request in ms, or null. */
  latencyMs: number | null;
  /** Input tokens the server reported, or null. */
  inputTokens: number | null;
  /** The failure (with the HTTP status of the failed answer), or null. */
  error: CaseError | null;
  /** Requests made for the probe. */
  attempts: number;
}

/** What the header and footer say about the session. */
export interface LiveMeta {
  /** Workflow name. */
  workflow: string;
  /** Endpoint URL without credentials. */
  endpoint: string;
  /** Model sent. */
  model: string;
  /** Pause between probes, seconds. */
  intervalSeconds: number;
  /** Cases in the cycle. */
  cases: number;
  /** The dataset credit. */
  attribution: string;
}

/** A confident mistake on display. */
export interface MistakeBanner {
  /** Case id. */
  caseId: string;
  /** Question name. */
  question: string;
  /** Question type. */
  type: QuestionType;
  /** The predicted answer. */
  answer: string;
  /** Its probability. */
  confidence: number;
  /** The gold label. */
  gold: string;
  /** Confident mistakes in the same case. */
  inCase: number;
  /** When the banner comes down, ms. */
  until: number;
}

/** Session accuracy of one question type. */
export interface TypeTally {
  /** Decisions asked. */
  decisions: number;
  /** Decisions that matched gold. */
  correct: number;
}

/** The whole state of a monitor session. */
export interface LiveState {
  /** Header and footer facts (kept across resets). */
  meta: LiveMeta;
  /** When the session began (start or last reset), ms. */
  startedAt: number;
  /** Probes in the session. */
  probes: number;
  /** Probes with an error in the session. */
  failedProbes: number;
  /** Probes in a row that got no answer (see `NO_ANSWER_KINDS`). */
  noAnswerStreak: number;
  /** The latest probe, or null. */
  latest: Probe | null;
  /** The last `WINDOW_DECISIONS` decisions, oldest first. */
  window: DecisionRecord[];
  /** Rolling accuracy and ECE after each probe, oldest first (null: nothing answered). */
  trend: { accuracy: (number | null)[]; ece: (number | null)[] };
  /** Session decisions. */
  decisions: number;
  /** Session decisions that matched gold. */
  correct: number;
  /** Session decisions that carry an error. */
  errors: number;
  /** Session confident mistakes (answered, wrong, top probability ≥ 0.9). */
  confidentMistakes: number;
  /** Session accuracy by question type. */
  byType: Record<QuestionType, TypeTally>;
  /** Latencies of the last `LATENCY_PROBES` answered probes, ms. */
  latencies: number[];
  /** Input tokens the server reported for the session's probes. */
  inputTokens: number;
  /** The last probe error, or null. */
  lastError: { kind: ErrorKind; message: string; at: number } | null;
  /** The confident-mistake banner, or null. */
  banner: MistakeBanner | null;
  /** Server load from `/metrics` (kept across resets: it describes the server, not the session). */
  server: ServerLoad;
}

/** The figures of the quality panel. */
export interface QualityFigures {
  /** Decisions in the rolling window. */
  windowDecisions: number;
  /** Of them, decisions with an error (they count as misses). */
  windowErrors: number;
  /** Rolling accuracy, or null. */
  accuracy: number | null;
  /** Rolling ECE over answered decisions, or null. */
  ece: number | null;
  /** Rolling mean Brier against the gold distribution, or null. */
  brier: number | null;
  /** Rolling mean top probability, or null. */
  meanConfidence: number | null;
  /** Session accuracy, or null. */
  sessionAccuracy: number | null;
  /** Session confident mistakes. */
  confidentMistakes: number;
}

/** Confidence histogram bin: the last `WINDOW_DECISIONS` answered decisions. */
export interface HistogramBin {
  /** Lower edge (inclusive). */
  lower: number;
  /** Upper edge (exclusive, except the last bin which holds 1.0). */
  upper: number;
  /** Answered decisions in the bin. */
  count: number;
  /** Of them, decisions that matched gold. */
  correct: number;
}

function emptyTypes(): Record<QuestionType, TypeTally> {
  return {
    noul: { decisions: 0, correct: 0 },
    choice: { decisions: 0, correct: 0 },
    score: { decisions: 0, correct: 0 },
  };
}

/** Options of {@linkcode createLiveState}. */
export interface CreateLiveStateOptions {
  /**
   * The `/metrics` URL the server panel scrapes, or null for none.
   *
   * @default {null}
   */
  metricsUrl?: string | null | undefined;
}

/**
 * A fresh session.
 *
 * @param meta Header and footer facts.
 * @param now The clock, ms.
 * @param options The `/metrics` URL.
 * @returns State with no probes.
 */
export function createLiveState(
  meta: LiveMeta,
  now: number,
  options: CreateLiveStateOptions = {},
): LiveState {
  return {
    meta,
    startedAt: now,
    probes: 0,
    failedProbes: 0,
    noAnswerStreak: 0,
    latest: null,
    window: [],
    trend: { accuracy: [], ece: [] },
    decisions: 0,
    correct: 0,
    errors: 0,
    confidentMistakes: 0,
    byType: emptyTypes(),
    latencies: [],
    inputTokens: 0,
    lastError: null,
    banner: null,
    server: emptyLoad(options.metricsUrl ?? null),
  };
}

/**
 * Whether a decision is a confident mistake: answered, wrong, top probability ≥ 0.9.
 *
 * @param record A scored decision.
 * @returns True for a confident mistake.
 */
export function isConfidentMistake(record: DecisionRecord): boolean {
  return record.error === null && record.gold !== null && record.correct === false &&
    record.confidence !== null &&
    record.confidence >= CONFIDENT_MISTAKE;
}

function keepLast<T>(items: readonly T[], added: readonly T[], size: number): T[] {
  const all = [...items, ...added];
  return all.length > size ? all.slice(all.length - size) : all;
}

/**
 * Adds a probe: the rolling window, trends, session figures, streak and banner move on.
 *
 * @param state The state so far (not changed).
 * @param probe The scored probe.
 * @param now The clock, ms (sets the banner's expiry).
 * @returns The new state.
 * @example
 * ```ts
 * import { addProbe, createLiveState } from "./state.ts";
 * const meta = { workflow: "w", endpoint: "e", model: "m", intervalSeconds: 0.5, cases: 1, attribution: "a" };
 * const state = addProbe(createLiveState(meta, 0), {
 *   caseId: "c1", workflow: "w", statePreview: "{}", records: [], latencyMs: 5,
 *   inputTokens: 10, error: null, attempts: 1,
 * }, 1000);
 * state.probes; // 1
 * ```
 */
export function addProbe(state: LiveState, probe: Probe, now: number): LiveState {
  // A decision without gold (a user question set's unlabelled row) is shown, never scored.
  const scored = probe.records.filter((r) => r.gold !== null);
  const window = keepLast(state.window, scored, WINDOW_DECISIONS);
  const byType = { ...state.byType };
  let correct = 0;
  let errors = 0;
  let mistakes: DecisionRecord[] = [];
  for (const record of scored) {
    const tally = byType[record.type];
    byType[record.type] = {
      decisions: tally.decisions + 1,
      correct: tally.correct + (record.correct ? 1 : 0),
    };
    if (record.correct) correct++;
    if (record.error !== null) errors++;
    if (isConfidentMistake(record)) mistakes.push(record);
  }
  mistakes = mistakes.sort((a, b) => (b.confidence ?? 0) - (a.confidence ?? 0));
  const worst = mistakes[0];
  const banner: MistakeBanner | null = worst
    ? {
      caseId: worst.case,
      question: worst.question,
      type: worst.type,
      answer: worst.answer ?? "",
      confidence: worst.confidence ?? 0,
      gold: worst.gold ?? "",
      inCase: mistakes.length,
      until: now + BANNER_MS,
    }
    : state.banner;
  const noAnswer = probe.error !== null && NO_ANSWER_KINDS.has(probe.error.kind);
  return {
    ...state,
    probes: state.probes + 1,
    failedProbes: state.failedProbes + (probe.error ? 1 : 0),
    noAnswerStreak: noAnswer ? state.noAnswerStreak + 1 : 0,
    latest: probe,
    window,
    trend: {
      accuracy: keepLast(state.trend.accuracy, [accuracy(window)], TREND_POINTS),
      ece: keepLast(state.trend.ece, [ece(window)], TREND_POINTS),
    },
    decisions: state.decisions + scored.length,
    correct: state.correct + correct,
    errors: state.errors + errors,
    confidentMistakes: state.confidentMistakes + mistakes.length,
    byType,
    latencies: probe.latencyMs !== null && probe.error === null
      ? keepLast(state.latencies, [probe.latencyMs], LATENCY_PROBES)
      : state.latencies,
    inputTokens: state.inputTokens + (probe.inputTokens ?? 0),
    lastError: probe.error ? { ...probe.error, at: now } : state.lastError,
    banner,
  };
}

/**
 * Starts a new session (Ctrl+R): every session figure, window, trend and banner is cleared. The
 * header facts and the server load stay.
 *
 * @param state The state so far (not changed).
 * @param now The clock, ms.
 * @returns A fresh session with the same meta and server load.
 */
export function resetSession(state: LiveState, now: number): LiveState {
  return { ...createLiveState(state.meta, now), server: state.server };
}

/**
 * Adds a good `/metrics` scrape to the state.
 *
 * @param state The state so far (not changed).
 * @param sample The scrape.
 * @returns The new state.
 */
export function addScrape(state: LiveState, sample: MetricsSample): LiveState {
  return { ...state, server: addSample(state.server, sample) };
}

/**
 * Records a failed `/metrics` scrape.
 *
 * @param state The state so far (not changed).
 * @param reason Why it failed.
 * @returns The new state.
 */
export function addFailedScrape(state: LiveState, reason: string): LiveState {
  return { ...state, server: failedScrape(state.server, reason) };
}

/**
 * The quality panel's figures, from the same metric functions as the benchmark: accuracy counts
 * errors as misses; ECE, Brier and mean confidence cover answered decisions.
 *
 * @param state The state.
 * @returns Rolling and session figures.
 */
export function qualityFigures(state: LiveState): QualityFigures {
  return {
    windowDecisions: state.window.length,
    windowErrors: state.window.filter((r) => r.error !== null).length,
    accuracy: accuracy(state.window),
    ece: ece(state.window),
    brier: meanBrier(state.window),
    meanConfidence: meanConfidence(state.window),
    sessionAccuracy: state.decisions === 0 ? null : state.correct / state.decisions,
    confidentMistakes: state.confidentMistakes,
  };
}

/**
 * The confidence histogram of the rolling window: ten equal-width bins of top probability over
 * answered decisions (1.0 falls in the last bin), each with how many matched gold.
 *
 * @param state The state.
 * @returns Ten bins, lowest first.
 */
export function windowHistogram(state: LiveState): HistogramBin[] {
  const bins: HistogramBin[] = Array.from({ length: 10 }, (_, i) => ({
    lower: i / 10,
    upper: (i + 1) / 10,
    count: 0,
    correct: 0,
  }));
  for (const record of state.window) {
    if (record.error !== null || record.confidence === null) continue;
    const bin = bins[Math.max(0, Math.min(Math.trunc(record.confidence * 10), 9))] as HistogramBin;
    bin.count++;
    if (record.correct) bin.correct++;
  }
  return bins;
}

/**
 * Latency p50 and p95 of the recent answered probes.
 *
 * @param state The state.
 * @returns The two percentiles in ms, null when no probe was answered.
 */
export function latencyFigures(state: LiveState): { p50: number | null; p95: number | null } {
  return { p50: percentile(state.latencies, 50), p95: percentile(state.latencies, 95) };
}

/**
 * The confident-mistake banner if it is still up.
 *
 * @param state The state.
 * @param now The clock, ms.
 * @returns The banner, or null once it has expired.
 */
export function activeBanner(state: LiveState, now: number): MistakeBanner | null {
  return state.banner !== null && now < state.banner.until ? state.banner : null;
}

/**
 * Whether the model is shown unreachable: three probes in a row got no answer.
 *
 * @param state The state.
 * @returns True while the streak lasts.
 */
export function isUnreachable(state: LiveState): boolean {
  return state.noAnswerStreak >= UNREACHABLE_AFTER;
}
