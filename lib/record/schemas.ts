/**
 * Run records: one line of `decisions.jsonl` per decision, and `run.json`. The interfaces below
 * are the public contract (exported from `mod.ts`); each zod schema is the runtime validator of
 * its boundary and is checked against its interface at compile time (`_SchemasMatch` at the end),
 * so the two cannot drift.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import {
  QUESTION_SET_FORMATS,
  QUESTION_TYPES,
  type QuestionDefinition,
  type QuestionSetRecord,
  type QuestionType,
} from "../dataset/mod.ts";
import { ERROR_KINDS, type ErrorKind, type ReplicaStats } from "../client/mod.ts";
import type { ClassResults, StabilitySummary, Summary } from "../metrics/mod.ts";
import { type RunPolicy, RunPolicySchema } from "./run_policy.ts";

/**
 * What a run records about a question set that is not the card protocol. The question
 * definitions were validated when the workflow was loaded; here they are kept as written.
 */
export const QuestionSetRecordSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("typed-decisions"),
    card_protocol: z.literal(false),
    questions: z.array(z.string()),
  }),
  z.object({
    kind: z.literal("file"),
    card_protocol: z.literal(false),
    path: z.string(),
    format: z.enum(QUESTION_SET_FORMATS),
    sha256: z.string(),
    bytes: z.number().int().nonnegative(),
    rows: z.number().int().nonnegative(),
    id: z.string(),
    state: z.union([z.string(), z.array(z.string())]),
    lane: z.string().nullable(),
    questions: z.record(
      z.string(),
      z.custom<QuestionDefinition>((v) => typeof v === "object" && v !== null, "not a question"),
    ),
    definitions_sha256: z.string(),
    labelled: z.record(z.string(), z.number().int().nonnegative()),
  }),
]);

/** Error kinds a decision can carry (the client's `ERROR_KINDS`). */
export const ErrorKindSchema = z.enum(ERROR_KINDS);
/** One scored decision as written to `decisions.jsonl`. */
export const DecisionRecordSchema = z.object({
  /** Case id. */
  case: z.string(),
  /** Workflow of the case. */
  workflow: z.string(),
  /** Question name. */
  question: z.string(),
  /** Question type. */
  type: z.enum(QUESTION_TYPES),
  /** The distribution scored, keyed in option order, or null on error. */
  predicted: z.record(z.string(), z.number()).nullable(),
  /** The predicted answer (argmax, first listed wins a tie), or null. */
  answer: z.string().nullable(),
  /** The predicted answer's probability, or null. */
  confidence: z.number().nullable(),
  /** The gold label, or null when the case has none for the question (asked, not scored). */
  gold: z.string().nullable(),
  /** The gold distribution, keyed in option order, or null without gold. */
  gold_probabilities: z.record(z.string(), z.number()).nullable(),
  /** Predicted answer equals the gold label (false on error), null without gold (unlabelled). */
  correct: z.boolean().nullable(),
  /** KL(gold ‖ predicted) in nats, null on error; absent without gold (unlabelled). */
  kl: z.number().nullable().optional(),
  /** Brier score, null on error; absent without gold (unlabelled). */
  brier: z.number().nullable().optional(),
  /** Latency of the request that answered (ms), null when nothing answered. */
  latency_ms: z.number().nullable(),
  /** Attempts made for the case (1 = no retry). */
  attempts: z.number().int().min(0),
  /** Input tokens the server reported for the case's request, or null. */
  input_tokens: z.number().nullable(),
  /** Whether the engine's probabilities are calibrated, null on error. */
  calibrated: z.boolean().nullable(),
  /** Error kind and message, or null. */
  error: z.object({ kind: ErrorKindSchema, message: z.string() }).nullable(),
  /** Engine extras (dohnuts' `native`), when present. */
  native: z.record(z.string(), z.unknown()).optional(),
  /** Warnings about this answer, when any. */
  warnings: z.array(z.string()).optional(),
  /** Endpoint name when a workflow lists several. */
  endpoint: z.string().optional(),
  /** The provider's response id for the case's request (OpenRouter's `id`), when reported. */
  response_id: z.string().optional(),
  /** The relay's upstream provider for the case's request (OpenRouter's `provider`). */
  provider: z.string().optional(),
  /** Cost the provider reported for the case's request (repeated on each of its decisions). */
  cost: z.number().optional(),
  /** True when the request cache answered (nothing sent; latency and attempts as first recorded). */
  cached: z.literal(true).optional(),
});
/** One scored decision: a line of `decisions.jsonl`. */
export interface DecisionRecord {
  /** Case id. */
  case: string;
  /** Workflow of the case. */
  workflow: string;
  /** Question name. */
  question: string;
  /** Question type. */
  type: QuestionType;
  /** The distribution scored, keyed in option order, or null on error. */
  predicted: Record<string, number> | null;
  /** The predicted answer (argmax, first listed wins a tie), or null. */
  answer: string | null;
  /** The predicted answer's probability, or null. */
  confidence: number | null;
  /**
   * The gold label, or null when the case has none for this question (a user question set's
   * unlabelled row: asked and recorded, left out of every metric).
   */
  gold: string | null;
  /** The gold distribution, keyed in option order, or null without gold. */
  gold_probabilities: Record<string, number> | null;
  /**
   * Predicted answer equals the gold label (false on error); null for an unlabelled decision (no
   * gold), which is in no metric, table count or chart — never a miss.
   */
  correct: boolean | null;
  /** KL(gold ‖ predicted) in nats, null on error; absent for an unlabelled decision. */
  kl?: number | null | undefined;
  /** Brier score, null on error; absent for an unlabelled decision. */
  brier?: number | null | undefined;
  /** Latency of the request that answered (ms), null when nothing answered. */
  latency_ms: number | null;
  /** Attempts made for the case (1 = no retry; an integer ≥ 0). */
  attempts: number;
  /** Input tokens the server reported for the case's request, or null. */
  input_tokens: number | null;
  /** Whether the engine's probabilities are calibrated, null on error. */
  calibrated: boolean | null;
  /** Error kind and message, or null. */
  error: {
    /** How the error was classified. */
    kind: ErrorKind;
    /** What went wrong. */
    message: string;
  } | null;
  /** Engine extras (dohnuts' `native`), when present. */
  native?: Record<string, unknown> | undefined;
  /** Warnings about this answer, when any. */
  warnings?: string[] | undefined;
  /** Endpoint name when a workflow lists several. */
  endpoint?: string | undefined;
  /** The provider's response id for the case's request (OpenRouter's `id`), when reported. */
  response_id?: string | undefined;
  /** The relay's upstream provider for the case's request (OpenRouter's `provider`). */
  provider?: string | undefined;
  /** Cost the provider reported for the case's request (repeated on each of its decisions). */
  cost?: number | undefined;
  /**
   * True when the request cache answered the case (nothing was sent); its latency and attempts
   * are those first recorded. Absent when the case was asked.
   */
  cached?: true | undefined;
}

/** A threshold result: thresholds are results, and the exit status follows them. */
export const ThresholdResultSchema = z.object({
  metric: z.string(),
  question: z.string().optional(),
  lane: z.string().optional(),
  op: z.string(),
  limit: z.number(),
  bound: z.enum(["estimate", "lower", "upper"]).optional(),
  value: z.number().nullable(),
  estimate: z.number().nullable().optional(),
  baseline: z.string().optional(),
  margin: z.number().optional(),
  interval: z.tuple([z.number(), z.number()]).nullable().optional(),
  shared: z.number().optional(),
  pass: z.boolean().nullable(),
  not_evaluated: z.string().optional(),
});
/** A threshold result: `{metric, op, limit, value, pass}`; a failed one fails the run. */
export interface ThresholdResult {
  /** Metric checked, e.g. `accuracy`. */
  metric: string;
  /** The question the metric was restricted to, when the threshold names one. */
  question?: string | undefined;
  /** The lane the metric was restricted to, when the threshold names one. */
  lane?: string | undefined;
  /** Comparison, e.g. `>=`. */
  op: string;
  /** The limit the metric is compared with. */
  limit: number;
  /** Which value was compared, when the threshold names it (absent: the estimate). */
  bound?: "estimate" | "lower" | "upper" | undefined;
  /**
   * The value compared with the limit (the estimate, or the interval's bound), or null when it is
   * n/a (the threshold then fails).
   */
  value: number | null;
  /** The point estimate beside a bound, when `bound` is `lower` or `upper`. */
  estimate?: number | null | undefined;
  /**
   * The baseline run the metric is compared with (`runs/<id>`), for a threshold against a
   * baseline: `estimate` is then this run's value minus the baseline's (mirrored for a
   * lower-is-better metric, so a positive difference is better), `interval` its 95% paired
   * bootstrap interval, `value` the worse end of it and `limit` −`margin`.
   */
  baseline?: string | undefined;
  /** How much worse than the baseline the metric may be, for a threshold against a baseline. */
  margin?: number | undefined;
  /** The paired interval of the difference from the baseline, or null without shared decisions. */
  interval?: [number, number] | null | undefined;
  /** Decisions the run and the baseline share, for a threshold against a baseline. */
  shared?: number | undefined;
  /**
   * Whether the threshold is met; null when it was not evaluated (see `not_evaluated`): it then
   * neither passes nor fails.
   */
  pass: boolean | null;
  /**
   * Why the threshold was not evaluated: a partial selection (`--limit`, `--sample`) asked no case
   * of its question or lane. Absent when it was evaluated.
   */
  not_evaluated?: string | undefined;
}

/** What ran: everything that identifies a run's configuration. */
export const RunSpecSchema = z.object({
  workflow: z.string(),
  workflow_file: z.string().nullable(),
  endpoint: z.string(),
  base_url: z.string().nullable().optional(),
  endpoint_name: z.string().nullable(),
  engine: z.string(),
  model: z.string(),
  state_encoding: z.enum(["json", "text"]),
  reference: z.record(z.string(), z.unknown()).nullable(),
  dataset: z.string(),
  revision: z.string(),
  split: z.string(),
  license: z.string(),
  cases: z.number().int(),
  case_ids_sha256: z.string(),
  questions_sha256: z.string(),
  parallel: z.number().int(),
  timeout_ms: z.number(),
  retries: z.number().int(),
  calibrated: z.boolean(),
  fingerprint: z.string(),
  seed: z.number().int(),
  question_set: QuestionSetRecordSchema.optional(),
  sample: z.object({
    size: z.number().int(),
    seed: z.number().int(),
    population: z.number().int(),
  }).optional(),
});
/** What ran: everything that identifies a run's configuration (`run.json`'s `spec`). */
export interface RunSpec {
  /** Workflow name. */
  workflow: string;
  /** The workflow file, or null when the workflow was given as data. */
  workflow_file: string | null;
  /** Endpoint identity: `scheme://host:port/path` (no credentials) or `embedded:reference/…`. */
  endpoint: string;
  /**
   * The base URL called, without credentials, query or fragment (null for the embedded server;
   * absent in runs recorded before it was added). `--resume DIR` calls it again.
   */
  base_url?: string | null | undefined;
  /** Endpoint name when the workflow names it, else null. */
  endpoint_name: string | null;
  /** Engine (wire format) name, e.g. `systemone`. */
  engine: string;
  /** Model name sent with each request. */
  model: string;
  /** How the state was sent: as JSON or as its JSON text. */
  state_encoding: "json" | "text";
  /** The embedded reference server's settings, or null when a URL was called. */
  reference: Record<string, unknown> | null;
  /** Dataset id. */
  dataset: string;
  /** Dataset revision (commit). */
  revision: string;
  /** Dataset split. */
  split: string;
  /** Dataset licence. */
  license: string;
  /** Number of cases selected (an integer). */
  cases: number;
  /** sha256 of the selected case ids, one per line, in order. */
  case_ids_sha256: string;
  /** sha256 of the selected cases' questions (JSON), in order. */
  questions_sha256: string;
  /** Requests in flight (an integer). */
  parallel: number;
  /** Per-request timeout, ms. */
  timeout_ms: number;
  /** Extra attempts for transient errors (an integer). */
  retries: number;
  /** Whether the engine's probabilities are calibrated. */
  calibrated: boolean;
  /**
   * Comparison fingerprint: a hash of dataset, revision, endpoint identity, engine, model,
   * questions and state encoding.
   */
  fingerprint: string;
  /** Seed of the bootstrap intervals (an integer). */
  seed: number;
  /**
   * How the question set differs from the Typed Decisions card protocol (a subset of its
   * questions, or a user file with its sha256, rows and question definitions); absent for the
   * card protocol. Its fields enter the fingerprint.
   */
  question_set?: QuestionSetRecord | undefined;
  /**
   * The sample the cases are (`--sample N --seed S`): `size` cases drawn with `seed` from the
   * `population` of eligible cases, stratified by lane. Absent when the cases are the selection's
   * first ones.
   */
  sample?: { size: number; seed: number; population: number } | undefined;
}

/** One session of a run: the first start, then each `--resume`. */
export const RunSessionSchema = z.object({
  /** When the session started (ISO 8601). */
  started_at: z.string(),
  /** When it ended (ISO 8601). */
  finished_at: z.string(),
  /** Status the session ended with. */
  status: z.enum(["completed", "incomplete", "interrupted"]),
  /** Cases already answered when the session started (kept, not asked again). */
  kept: z.number().int().min(0),
  /** Cases the session recorded an outcome for. */
  asked: z.number().int().min(0),
  /** HTTP requests the session sent (attempts, retries included). */
  requests: z.number().int().min(0),
  /** Wall-clock duration of the session in ms. */
  duration_ms: z.number().min(0),
});
/** One session of a run: the first start, then each `--resume`. */
export interface RunSession {
  /** When the session started (ISO 8601). */
  started_at: string;
  /** When it ended (ISO 8601). */
  finished_at: string;
  /** Status the session ended with. */
  status: "completed" | "incomplete" | "interrupted";
  /** Cases already answered when the session started (kept, not asked again). */
  kept: number;
  /** Cases the session recorded an outcome for. */
  asked: number;
  /** HTTP requests the session sent (attempts, retries included). */
  requests: number;
  /** Wall-clock duration of the session in ms. */
  duration_ms: number;
}

/** The version of `run.json` this tool writes (1: metrics as top-level summary fields). */
export const RUN_JSON_VERSION = 2;

const nullableNumber = z.number().nullable();
const interval = z.tuple([z.number(), z.number()]).nullable();

const ClassTableShape = {
  labels: z.array(z.string()),
  columns: z.array(z.string()),
  confusion: z.array(z.array(z.number().int().min(0))),
  perClass: z.array(z.object({
    label: z.string(),
    precision: nullableNumber,
    recall: nullableNumber,
    f1: nullableNumber,
    support: z.number().int().min(0),
  })),
  n: z.number().int().min(0),
  macroF1: nullableNumber,
  majorityBaseline: nullableNumber,
  auroc: nullableNumber.optional(),
  auprc: nullableNumber.optional(),
  intervals: z.object({ auroc: interval, auprc: interval }).optional(),
};
/** `summary.classes`: per-class results by question, overall and per lane (`ClassResults`). */
export const ClassResultsSchema = z.record(
  z.string(),
  z.object({
    type: z.string(),
    ...ClassTableShape,
    levels: z.array(z.string()).optional(),
    lanes: z.record(z.string(), z.object(ClassTableShape)),
  }),
);

/** A run summary as `run.json` holds it (see `Summary` in the metrics module). */
export const SummarySchema = z.object({
  decisions: z.number().int().min(0),
  cases: z.number().int().min(0),
  answered: z.number().int().min(0),
  labelled: z.number().int().min(0).optional(),
  errors: z.number().int().min(0),
  metrics: z.object({
    accuracy: nullableNumber,
    kl: nullableNumber,
    brier: nullableNumber,
    ece: nullableNumber,
    nll: nullableNumber,
  }).catchall(nullableNumber),
  meanConfidence: nullableNumber,
  intervals: z.object({
    accuracy: interval,
    kl: interval,
    brier: interval,
    ece: interval,
    nll: interval,
  }).catchall(interval),
  latency: z.object({ p50: z.number(), p95: z.number() }).nullable(),
  inputTokens: nullableNumber,
  reliability: z.array(z.object({
    bin: z.number().int(),
    lower: z.number(),
    upper: z.number(),
    n: z.number().int(),
    meanConfidence: z.number(),
    accuracy: z.number(),
    gap: z.number(),
  })),
  classes: ClassResultsSchema.optional(),
});

/** One row of the stability summary (see `stabilitySummary` in lib/metrics). */
const StabilityRowSchema = z.object({
  key: z.string(),
  decisions: z.number().int().min(0),
  repeats: z.number().int().min(0),
  flipped: z.number().int().min(0),
  flipRate: z.number().nullable(),
  drift: z.object({ median: z.number(), p95: z.number(), max: z.number() }).nullable(),
  errors: z.number().int().min(0),
});
/** `run.json`'s `stability`: what `--repeat` measured. */
export const RunStabilitySchema = z.object({
  repeat: z.number().int().min(1),
  parallel: z.array(z.number().int().min(1)),
  complete: z.boolean(),
  overall: StabilityRowSchema,
  byParallel: z.array(StabilityRowSchema),
  byQuestion: z.array(StabilityRowSchema),
});
/** `run.json`'s `stability`: top-answer flips and probability drift under `--repeat`. */
export interface RunStability extends StabilitySummary {
  /** Times each case was asked at each concurrency (the official pass included at its own). */
  repeat: number;
  /** The concurrencies swept, in order. */
  parallel: number[];
  /** False when the passes were stopped early (Ctrl+C, a fatal error). */
  complete: boolean;
}

/** One model replica's figures (`endpoint.replicas`): requests, errors, latency. */
export const ReplicaStatsSchema = z.object({
  url: z.string(),
  slots: z.number().int(),
  requests: z.number().int(),
  answered: z.number().int(),
  errors: z.number().int(),
  excluded: z.boolean(),
  latency: z.object({ mean: z.number(), p50: z.number(), p95: z.number(), max: z.number() })
    .nullable(),
});

/** `run.json`. */
export const RunJsonSchema = z.object({
  version: z.literal(RUN_JSON_VERSION),
  tool: z.string(),
  tool_version: z.string(),
  id: z.string(),
  status: z.enum(["running", "completed", "incomplete", "interrupted"]),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  spec: RunSpecSchema,
  summary: SummarySchema.nullable(),
  thresholds: z.array(ThresholdResultSchema),
  model_reported: z.string().nullable(),
  fatal: z.string().nullable(),
  /** Sessions in order (absent in records written before sessions were kept). */
  sessions: z.array(RunSessionSchema).optional(),
  /** Stability under `--repeat` (absent without it). */
  stability: RunStabilitySchema.optional(),
  /** Per-replica figures of a run spread over `endpoint.replicas` (absent otherwise). */
  replicas: z.array(ReplicaStatsSchema).optional(),
  /** A decision policy applied to the answers (`bench --policy`; absent without it). */
  policy: RunPolicySchema.optional(),
});
/** `run.json`: what ran, how it ended, its summary and thresholds. */
export interface RunJson {
  /** Record format version, 2 (version 1 files are upgraded when loaded). */
  version: 2;
  /** Tool that wrote it (`decibench`). */
  tool: string;
  /** Version of that tool. */
  tool_version: string;
  /** Run id (also the run directory's name). */
  id: string;
  /** `running` while it runs, then how it ended. */
  status: "running" | "completed" | "incomplete" | "interrupted";
  /** When the run first started (ISO 8601). */
  started_at: string;
  /** When it last ended (ISO 8601), null while running. */
  finished_at: string | null;
  /** What ran. */
  spec: RunSpec;
  /** The run summary (metrics with intervals), null until the run ends. */
  summary: Summary | null;
  /** Threshold results, in the workflow's order. */
  thresholds: ThresholdResult[];
  /** The model name the server reported, or null when it named none. */
  model_reported: string | null;
  /** The error that stopped the run, or null. */
  fatal: string | null;
  /** Sessions in order (absent in records written before sessions were kept). */
  sessions?: RunSession[] | undefined;
  /** Stability under `--repeat`: flips and drift of repeated answers (absent without it). */
  stability?: RunStability | undefined;
  /**
   * Per-replica figures of a run spread over `endpoint.replicas`: requests sent, answered,
   * errors, whether the replica was left out, latency (absent for a single server).
   */
  replicas?: ReplicaStats[] | undefined;
  /**
   * A decision policy applied to the answers (`bench --policy`): the policy, and per lane its bar,
   * verdicts and — with labels — the realised rate and whether it still holds (absent without it).
   */
  policy?: RunPolicy | undefined;
}

/** Each schema's parsed type equals its public interface. */
type _SchemasMatch = [
  Assert<Equals<z.infer<typeof ErrorKindSchema>, ErrorKind>>,
  Assert<Equals<z.infer<typeof QuestionSetRecordSchema>, QuestionSetRecord>>,
  Assert<Equals<z.infer<typeof DecisionRecordSchema>, DecisionRecord>>,
  Assert<Equals<z.infer<typeof ThresholdResultSchema>, ThresholdResult>>,
  Assert<Equals<z.infer<typeof RunSpecSchema>, RunSpec>>,
  Assert<Equals<z.infer<typeof RunSessionSchema>, RunSession>>,
  Assert<Equals<z.infer<typeof RunStabilitySchema>, RunStability>>,
  Assert<Equals<z.infer<typeof ReplicaStatsSchema>, ReplicaStats>>,
  Assert<Equals<z.infer<typeof ClassResultsSchema>, ClassResults>>,
  Assert<Equals<Omit<z.infer<typeof RunJsonSchema>, "summary">, Omit<RunJson, "summary">>>,
  // A summary read back is a `Summary` (the other way differs only in `ByMetric`'s optional keys).
  Assert<z.infer<typeof SummarySchema> extends Summary ? true : false>,
];
