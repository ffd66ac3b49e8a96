/**
 * The workflow file: typed data that names what runs. The interfaces below are the public contract
 * (exported from `mod.ts`; `WorkflowInput` is what `defineWorkflow` checks); `WorkflowSchema` is
 * the runtime validator of a workflow file and is checked against them at compile time
 * (`_SchemasMatch` at the end), so the two cannot drift.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import {
  DEFAULT_MAX_REPLY_BYTES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  ENGINE_NAMES,
  type EngineName,
} from "../client/mod.ts";
import type { DatasetSpec, QuestionDefinition } from "../dataset/mod.ts";
import { METRIC_NAMES } from "../metrics/mod.ts";
import { type AuditsSpec, type AuditsSpecInput, AuditsSpecSchema } from "./audits_spec.ts";
import { DatasetSpecSchema, QuestionDefinitionSchema } from "./question_set_spec.ts";

/** The embedded reference server, started in-process. */
export const ReferenceSpecSchema = z.object({
  /** Predictor the server answers with. */
  predictor: z.string().min(1).default("fitted"),
  /** Fault spec, e.g. `http500=0.05,malformed=0.02`. */
  faults: z.string().optional(),
  /** Seed for fault draws (and the `synthetic` predictor's noise). */
  seed: z.number().int().optional(),
  /** Delay before each answer, ms. */
  latencyMs: z.number().min(0).optional(),
  /** The `synthetic` predictor's skill: added to the gold option's logit. */
  skill: z.number().optional(),
  /** The `synthetic` predictor's temperature (> 0): below 1 over-confident. */
  temperature: z.number().positive().optional(),
}).strict();

/** The embedded reference server as a workflow writes it. */
export interface ReferenceSpecInput {
  /**
   * Predictor the server answers with (`fitted`, `uniform`, `oracle`, …).
   * @default "fitted"
   */
  predictor?: string | undefined;
  /**
   * Fault spec, e.g. `http500=0.05,malformed=0.02`.
   * @default undefined (no faults)
   */
  faults?: string | undefined;
  /**
   * Seed for fault draws and the `synthetic` predictor's noise (an integer).
   * @default undefined (0)
   */
  seed?: number | undefined;
  /**
   * Delay before each answer, ms (≥ 0).
   * @default undefined (no delay)
   */
  latencyMs?: number | undefined;
  /**
   * The `synthetic` predictor's skill: added to the gold option's logit.
   * @default undefined (1)
   */
  skill?: number | undefined;
  /**
   * The `synthetic` predictor's temperature (> 0): below 1 over-confident, above 1 under-confident.
   * @default undefined (1)
   */
  temperature?: number | undefined;
}

/** The embedded reference server with defaults applied. */
export interface ReferenceSpec {
  /** Predictor the server answers with. */
  predictor: string;
  /** Fault spec, e.g. `http500=0.05,malformed=0.02`, when faults are injected. */
  faults?: string | undefined;
  /** Seed for fault draws and the `synthetic` predictor's noise. */
  seed?: number | undefined;
  /** Delay before each answer, ms. */
  latencyMs?: number | undefined;
  /** The `synthetic` predictor's skill. */
  skill?: number | undefined;
  /** The `synthetic` predictor's temperature. */
  temperature?: number | undefined;
}

/** One endpoint to benchmark. */
export const EndpointSpecSchema = z.object({
  /** Name used in side-by-side output. */
  name: z.string().min(1).optional(),
  /** Wire format. */
  engine: z.enum(ENGINE_NAMES).default("systemone"),
  /** Base URL of the server (ignored when `reference` is set, unless `--base-url` is given). */
  baseUrl: z.string().min(1).optional(),
  /** Start the built-in reference server instead of calling a URL. */
  reference: ReferenceSpecSchema.optional(),
  /** Model name sent with each request. */
  model: z.string().min(1).default("default"),
  /** Environment variable holding the bearer key. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
    .optional(),
  /** Refuse to start when the key variable is unset. */
  apiKeyRequired: z.boolean().default(false),
  /** `json` sends the state as JSON, `text` as its JSON text. */
  stateEncoding: z.enum(["json", "text"]).default("json"),
  /** Per-request timeout, ms. */
  timeoutMs: z.number().int().positive().default(120_000),
  /** Extra attempts for transient errors. */
  retries: z.number().int().min(0).max(10).default(2),
  /** Most bytes of a reply's body read, after decompression. */
  maxReplyBytes: z.number().int().positive().default(DEFAULT_MAX_REPLY_BYTES),
  /** The longest `Retry-After` delay honoured, ms. */
  maxRetryAfterMs: z.number().int().min(0).default(DEFAULT_MAX_RETRY_AFTER_MS),
  /** Failed requests of transient kinds in a row, with no answer between, that stop the run. */
  stopAfterFailures: z.number().int().min(1).default(20),
  /** Extra headers (never credentials). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Base URLs of several servers of one model: one run's requests spread over them. */
  replicas: z.array(z.string().min(1)).min(2).optional(),
}).strict().refine(
  (e) => e.baseUrl !== undefined || e.reference !== undefined || e.replicas !== undefined,
  { message: "give baseUrl, replicas or reference" },
);
/** The wire format an endpoint speaks. */
/** The name of a wire format (`ENGINE_NAMES` of the client module). */
export type { EngineName };

/** An endpoint spec as written in a workflow file: give `baseUrl` or `reference`. */
export interface EndpointSpecInput {
  /**
   * Name used in side-by-side output (non-empty).
   * @default undefined (unnamed)
   */
  name?: string | undefined;
  /**
   * Wire format.
   * @default "systemone"
   */
  engine?: EngineName | undefined;
  /**
   * Base URL of the server (ignored when `reference` is set, unless `--base-url` is given).
   * @default undefined
   */
  baseUrl?: string | undefined;
  /**
   * Start the built-in reference server instead of calling a URL.
   * @default undefined
   */
  reference?: ReferenceSpecInput | undefined;
  /**
   * Model name sent with each request.
   * @default "default"
   */
  model?: string | undefined;
  /**
   * Environment variable holding the bearer key (a valid variable name).
   * @default undefined (no key sent)
   */
  apiKeyEnv?: string | undefined;
  /**
   * Refuse to start when the key variable is unset.
   * @default false
   */
  apiKeyRequired?: boolean | undefined;
  /**
   * `json` sends the state as JSON, `text` as its JSON text.
   * @default "json"
   */
  stateEncoding?: "json" | "text" | undefined;
  /**
   * Per-request timeout, ms (a positive integer).
   * @default 120000
   */
  timeoutMs?: number | undefined;
  /**
   * Extra attempts for transient errors (an integer, 0 to 10).
   * @default 2
   */
  retries?: number | undefined;
  /**
   * Most bytes of a reply's body read, after decompression (a positive integer); a longer reply
   * makes the case a `malformed` error naming the limit, not retried.
   * @default 16777216 (16 MiB)
   */
  maxReplyBytes?: number | undefined;
  /**
   * The longest delay a server's `Retry-After` header may ask for, in ms (an integer ≥ 0); a
   * longer one is cut to this.
   * @default 60000
   */
  maxRetryAfterMs?: number | undefined;
  /**
   * Failed requests of transient kinds (429, 529, 5xx, timeout, network) in a row, with no answer
   * in between, that stop the run (an integer ≥ 1); it ends `incomplete` with a resume hint.
   * @default 20
   */
  stopAfterFailures?: number | undefined;
  /**
   * Extra headers (never credentials).
   * @default {}
   */
  headers?: Record<string, string> | undefined;
  /**
   * Base URLs of several servers of one model (at least two): the run's requests go to the
   * least-loaded one with a free slot, each replica's slots from its `/props` (or `--parallel N`
   * each); one failing 5 times in a row is left out and the run goes on. `--base-url` overrides.
   * @default undefined (one server: `baseUrl`)
   */
  replicas?: string[] | undefined;
}

/** An endpoint spec with defaults applied. */
export interface EndpointSpec {
  /** Name used in side-by-side output, when named. */
  name?: string | undefined;
  /** Wire format. */
  engine: EngineName;
  /** Base URL of the server, when given. */
  baseUrl?: string | undefined;
  /** The built-in reference server's settings, when it is used. */
  reference?: ReferenceSpec | undefined;
  /** Model name sent with each request. */
  model: string;
  /** Environment variable holding the bearer key, when one is sent. */
  apiKeyEnv?: string | undefined;
  /** Refuse to start when the key variable is unset. */
  apiKeyRequired: boolean;
  /** `json` sends the state as JSON, `text` as its JSON text. */
  stateEncoding: "json" | "text";
  /** Per-request timeout, ms. */
  timeoutMs: number;
  /** Extra attempts for transient errors. */
  retries: number;
  /** Most bytes of a reply's body read, after decompression. */
  maxReplyBytes: number;
  /** The longest `Retry-After` delay honoured, ms. */
  maxRetryAfterMs: number;
  /** Failed requests of transient kinds in a row, with no answer between, that stop the run. */
  stopAfterFailures: number;
  /** Extra headers (never credentials). */
  headers: Record<string, string>;
  /** Base URLs of several servers of one model, when the run spreads over replicas. */
  replicas?: string[] | undefined;
}

/** Which value of a metric a threshold compares: the point estimate or a bound of its interval. */
export const THRESHOLD_BOUNDS = ["estimate", "lower", "upper"] as const;
/** `estimate` (the point value), or the `lower` / `upper` bound of its 95% bootstrap interval. */
export type ThresholdBound = "estimate" | "lower" | "upper";

/** A threshold the run must meet. */
export const ThresholdSpecSchema = z.object({
  metric: z.enum(METRIC_NAMES as [string, ...string[]]),
  question: z.string().min(1).optional(),
  lane: z.string().min(1).optional(),
  op: z.enum([">=", ">", "<=", "<"]).optional(),
  limit: z.number().optional(),
  bound: z.enum(THRESHOLD_BOUNDS).optional(),
  baseline: z.string().min(1).optional(),
  margin: z.number().min(0).optional(),
}).strict().superRefine((t, ctx) => {
  const issue = (path: string, message: string): void => {
    ctx.addIssue({ code: "custom", path: [path], message });
  };
  if (t.baseline === undefined) {
    if (t.op === undefined) {
      issue("op", 'give op (">=", ">", "<=" or "<") and limit, or a baseline');
    }
    if (t.limit === undefined) issue("limit", "give a limit (a number), or a baseline");
    if (t.margin !== undefined) issue("margin", "a margin goes with a baseline: give baseline");
    return;
  }
  for (const field of ["op", "limit", "bound"] as const) {
    if (t[field] !== undefined) {
      issue(
        field,
        "a threshold against a baseline compares the lower bound of the paired interval with −margin: drop op, limit and bound",
      );
    }
  }
});
/**
 * A threshold the run must meet, e.g. `{ metric: "accuracy", op: ">=", limit: 0.6 }`, or
 * restricted and compared on its interval:
 * `{ metric: "accuracy", question: "urgent", op: ">=", limit: 0.9, bound: "lower" }`.
 */
export interface ThresholdSpec {
  /** The metric compared: a name of the metric registry (`accuracy`, `kl`, `brier`, `ece`, `nll`, …). */
  metric: string;
  /**
   * Only the decisions of this question.
   * @default undefined (every question)
   */
  question?: string | undefined;
  /**
   * Only the cases of this lane (a Typed Decisions workflow, or the value of `dataset.lane`).
   * @default undefined (every lane)
   */
  lane?: string | undefined;
  /**
   * How the metric's value is compared with `limit` (required without `baseline`).
   * @default undefined
   */
  op?: ">=" | ">" | "<=" | "<" | undefined;
  /**
   * The limit (required without `baseline`).
   * @default undefined
   */
  limit?: number | undefined;
  /**
   * Compare the point estimate, or the lower or upper bound of its 95% bootstrap interval
   * (resampling cases, seeded with the workflow's `seed`).
   * @default "estimate"
   */
  bound?: ThresholdBound | undefined;
  /**
   * A baseline run directory (e.g. `runs/<id>`) to compare with instead of a limit: the threshold
   * passes when the lower bound of the 95% paired bootstrap interval of (this run − baseline) on
   * the decisions both share is ≥ −`margin` (for a lower-is-better metric, baseline − this run).
   * Refused before any request when the baseline asked another question set or other questions.
   * @default undefined (compare with `limit`)
   */
  baseline?: string | undefined;
  /**
   * How much worse than the baseline the metric may be (≥ 0), with `baseline`.
   * @default 0
   */
  margin?: number | undefined;
}

/** Which cases to run. */
export const CaseSelectionSchema = z.object({
  /** Only these workflows of the dataset. */
  workflows: z.array(z.enum([
    "agent_trace_observability",
    "customer_service",
    "invoice_processing",
    "security_incidents",
  ])).min(1).optional(),
  /** Only these case ids. */
  ids: z.array(z.string().min(1)).min(1).optional(),
  /** At most this many cases (after the filters, in dataset order). */
  limit: z.number().int().positive().optional(),
  /** Typed Decisions only: ask just these questions (not the card protocol). */
  questions: z.array(z.string().min(1)).min(1).optional(),
}).strict();

/** Which cases to run; no field means every case of the dataset. */
export interface CaseSelection {
  /** Only these workflows of the dataset (at least one). */
  workflows?:
    | (
      | "agent_trace_observability"
      | "customer_service"
      | "invoice_processing"
      | "security_incidents"
    )[]
    | undefined;
  /** Only these case ids (at least one). */
  ids?: string[] | undefined;
  /** At most this many cases (after the filters, in dataset order; a positive integer). */
  limit?: number | undefined;
  /**
   * Typed Decisions only: ask just these questions of each case (cases asking none of them are
   * left out). Such a run is not the dataset card's protocol: it is marked so and gets no rating.
   */
  questions?: string[] | undefined;
}

/** A workflow file's default export. */
export const WorkflowSchema = z.object({
  /** Short name, used in run ids. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "must be lowercase letters, digits, - or _"),
  /** One line on what it is for. */
  description: z.string().optional(),
  /** The endpoint to benchmark. */
  endpoint: EndpointSpecSchema.optional(),
  /** Several endpoints, run on the same cases and shown side by side. */
  endpoints: z.array(EndpointSpecSchema).min(1).optional(),
  /** A user question set: the file and which fields mean what (absent: Typed Decisions). */
  dataset: DatasetSpecSchema.optional(),
  /** The questions asked of each row of `dataset`, with their gold fields. */
  questions: z.record(z.string().min(1), QuestionDefinitionSchema).optional(),
  /** Case selection. */
  cases: CaseSelectionSchema.default({}),
  /** Requests in flight, or `auto`: the server's slot count (`/props`), else 4. */
  parallel: z.union([z.number().int().min(1).max(256), z.literal("auto")], {
    error: `expected an integer from 1 to 256, or "auto"`,
  }).default("auto"),
  /** Thresholds; a failed one makes the exit status non-zero. */
  thresholds: z.array(ThresholdSpecSchema).default([]),
  /** Seed for bootstrap intervals. */
  seed: z.number().int().default(0),
  /** Output settings. */
  output: z.object({
    /** Directory that holds run directories. */
    dir: z.string().min(1).default("runs"),
  }).strict().default({ dir: "runs" }),
  /** Judge audits: transcripts, judge endpoint and versioned checks (see lib/audit). */
  audits: AuditsSpecSchema.optional(),
  /** Read and store replies in the request cache, as `--cache` does. */
  cache: z.boolean().optional(),
}).strict().superRefine((w, ctx) => {
  const issue = (path: PropertyKey[], message: string): void => {
    ctx.addIssue({ code: "custom", path, message });
  };
  if ((w.endpoint === undefined) === (w.endpoints === undefined)) {
    issue(["endpoint"], "give exactly one of endpoint or endpoints");
  }
  if (w.dataset !== undefined && (w.questions === undefined || !Object.keys(w.questions).length)) {
    issue(["questions"], "a dataset needs its questions: name → {type, instructions, …, gold}");
  }
  if (w.dataset === undefined && w.questions !== undefined) {
    issue(["dataset"], "questions are asked of a dataset: give dataset {path, id, state}");
  }
  if (w.dataset !== undefined) {
    if (w.cases.workflows !== undefined) {
      issue(["cases", "workflows"], "selects Typed Decisions workflows; a dataset has lanes");
    }
    if (w.cases.questions !== undefined) {
      issue(
        ["cases", "questions"],
        "selects Typed Decisions questions; declare only the questions to ask",
      );
    }
    w.thresholds.forEach((t, i) => {
      if (t.question !== undefined && !Object.hasOwn(w.questions ?? {}, t.question)) {
        issue(
          ["thresholds", i, "question"],
          `"${t.question}" is not one of the questions (${
            Object.keys(w.questions ?? {}).join(", ")
          })`,
        );
      }
    });
  }
});
/**
 * A workflow as written (what `defineWorkflow` checks): give exactly one of `endpoint` or
 * `endpoints`.
 */
export interface WorkflowInput {
  /** Short name, used in run ids: lowercase letters, digits, `-` or `_`. */
  name: string;
  /**
   * One line on what it is for.
   * @default undefined
   */
  description?: string | undefined;
  /**
   * The endpoint to benchmark.
   * @default undefined
   */
  endpoint?: EndpointSpecInput | undefined;
  /**
   * Several endpoints (at least one), run on the same cases and shown side by side.
   * @default undefined
   */
  endpoints?: EndpointSpecInput[] | undefined;
  /**
   * A user question set: the file (`.jsonl`, `.csv`, `.parquet`, relative to the workflow file)
   * and which fields hold the id, the state and the lane. Give `questions` with it.
   * @default undefined (Typed Decisions)
   */
  dataset?: DatasetSpec | undefined;
  /**
   * The questions asked of each row of `dataset`: name → question plus `gold`, the field holding
   * its expected answer.
   * @default undefined
   */
  questions?: Record<string, QuestionDefinition> | undefined;
  /**
   * Case selection.
   * @default {} (every case)
   */
  cases?: CaseSelection | undefined;
  /**
   * Requests in flight (an integer, 1 to 256), or `"auto"`: the slot count the server reports
   * (llama-server's `/props` `total_slots`, or `/slots`), else 4.
   * @default "auto"
   */
  parallel?: number | "auto" | undefined;
  /**
   * Thresholds; a failed one makes the exit status non-zero.
   * @default []
   */
  thresholds?: ThresholdSpec[] | undefined;
  /**
   * Seed for bootstrap intervals (an integer).
   * @default 0
   */
  seed?: number | undefined;
  /**
   * Output settings.
   * @default { dir: "runs" }
   */
  output?: {
    /**
     * Directory that holds run directories.
     * @default "runs"
     */
    dir?: string | undefined;
  } | undefined;
  /**
   * Judge audits: transcripts, judge endpoint and versioned checks (see lib/audit).
   * @default undefined (no audits)
   */
  audits?: AuditsSpecInput | undefined;
  /**
   * Read and store replies in the request cache (`~/.cache/decibench`), as `--cache` does.
   * @default undefined (no cache unless `--cache` or `--offline`)
   */
  cache?: boolean | undefined;
}

/** A workflow with defaults applied (what `loadWorkflow` and `validateWorkflow` return). */
export interface Workflow {
  /** Short name, used in run ids. */
  name: string;
  /** One line on what it is for, when given. */
  description?: string | undefined;
  /** The endpoint to benchmark (exactly one of `endpoint` and `endpoints` is set). */
  endpoint?: EndpointSpec | undefined;
  /** Several endpoints, run on the same cases and shown side by side. */
  endpoints?: EndpointSpec[] | undefined;
  /**
   * A user question set, when given (its `path` resolved against the workflow file's folder by
   * the loader).
   */
  dataset?: DatasetSpec | undefined;
  /** The questions asked of each row of `dataset`, when given. */
  questions?: Record<string, QuestionDefinition> | undefined;
  /** Case selection. */
  cases: CaseSelection;
  /** Requests in flight, or `"auto"` (chosen from the server's slots when the run starts). */
  parallel: number | "auto";
  /** Thresholds; a failed one makes the exit status non-zero. */
  thresholds: ThresholdSpec[];
  /** Seed for bootstrap intervals. */
  seed: number;
  /** Output settings. */
  output: {
    /** Directory that holds run directories. */
    dir: string;
  };
  /** Judge audits, when configured. */
  audits?: AuditsSpec | undefined;
  /** Read and store replies in the request cache, when true. */
  cache?: boolean | undefined;
}

/** Each schema's parsed (output) and written (input) types equal the public interfaces. */
type _SchemasMatch = [
  Assert<Equals<typeof THRESHOLD_BOUNDS[number], ThresholdBound>>,
  Assert<Equals<z.input<typeof ReferenceSpecSchema>, ReferenceSpecInput>>,
  Assert<Equals<z.output<typeof ReferenceSpecSchema>, ReferenceSpec>>,
  Assert<Equals<z.input<typeof EndpointSpecSchema>, EndpointSpecInput>>,
  Assert<Equals<z.output<typeof EndpointSpecSchema>, EndpointSpec>>,
  Assert<Equals<z.input<typeof ThresholdSpecSchema>, ThresholdSpec>>,
  Assert<Equals<z.output<typeof ThresholdSpecSchema>, ThresholdSpec>>,
  Assert<Equals<z.input<typeof CaseSelectionSchema>, CaseSelection>>,
  Assert<Equals<z.output<typeof CaseSelectionSchema>, CaseSelection>>,
  Assert<Equals<z.input<typeof WorkflowSchema>, WorkflowInput>>,
  Assert<Equals<z.output<typeof WorkflowSchema>, Workflow>>,
];
