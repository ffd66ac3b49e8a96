/**
 * The workflow file: typed data that names what runs. The interfaces below are the public contract
 * (exported from `mod.ts`; `WorkflowInput` is what `defineWorkflow` checks); `WorkflowSchema` is
 * the runtime validator of a workflow file and is checked against them at compile time
 * (`_SchemasMatch` at the end), so the two cannot drift.
 *
 * @module
 */
import { z } from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import { ENGINE_NAMES, type EngineName } from "../client/mod.ts";
import { METRIC_NAMES } from "../metrics/mod.ts";
import { type AuditsSpec, type AuditsSpecInput, AuditsSpecSchema } from "./audits_spec.ts";

/** The embedded reference server, started in-process. */
export const ReferenceSpecSchema = z.object({
  /** Predictor the server answers with. */
  predictor: z.string().min(1).default("fitted"),
  /** Fault spec, e.g. `http500=0.05,malformed=0.02`. */
  faults: z.string().optional(),
  /** Seed for fault draws. */
  seed: z.number().int().optional(),
  /** Delay before each answer, ms. */
  latencyMs: z.number().min(0).optional(),
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
   * Seed for fault draws (an integer).
   * @default undefined (0)
   */
  seed?: number | undefined;
  /**
   * Delay before each answer, ms (≥ 0).
   * @default undefined (no delay)
   */
  latencyMs?: number | undefined;
}

/** The embedded reference server with defaults applied. */
export interface ReferenceSpec {
  /** Predictor the server answers with. */
  predictor: string;
  /** Fault spec, e.g. `http500=0.05,malformed=0.02`, when faults are injected. */
  faults?: string | undefined;
  /** Seed for fault draws. */
  seed?: number | undefined;
  /** Delay before each answer, ms. */
  latencyMs?: number | undefined;
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
  /** Extra headers (never credentials). */
  headers: z.record(z.string(), z.string()).default({}),
}).strict().refine((e) => e.baseUrl !== undefined || e.reference !== undefined, {
  message: "give baseUrl or reference",
});
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
   * Extra headers (never credentials).
   * @default {}
   */
  headers?: Record<string, string> | undefined;
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
  /** Extra headers (never credentials). */
  headers: Record<string, string>;
}

/** A threshold the run must meet. */
export const ThresholdSpecSchema = z.object({
  metric: z.enum(METRIC_NAMES as [string, ...string[]]),
  op: z.enum([">=", ">", "<=", "<"]),
  limit: z.number(),
}).strict();
/** A threshold the run must meet, e.g. `{ metric: "accuracy", op: ">=", limit: 0.6 }`. */
export interface ThresholdSpec {
  /** The metric compared: a name of the metric registry (`accuracy`, `kl`, `brier`, `ece`, `nll`, …). */
  metric: string;
  /** How the metric's value is compared with `limit`. */
  op: ">=" | ">" | "<=" | "<";
  /** The limit. */
  limit: number;
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
  /** Case selection. */
  cases: CaseSelectionSchema.default({}),
  /** Requests in flight. */
  parallel: z.number().int().min(1).max(256).default(4),
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
}).strict().refine((w) => (w.endpoint === undefined) !== (w.endpoints === undefined), {
  message: "give exactly one of endpoint or endpoints",
  path: ["endpoint"],
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
   * Case selection.
   * @default {} (every case)
   */
  cases?: CaseSelection | undefined;
  /**
   * Requests in flight (an integer, 1 to 256).
   * @default 4
   */
  parallel?: number | undefined;
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
  /** Case selection. */
  cases: CaseSelection;
  /** Requests in flight. */
  parallel: number;
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
}

/** Each schema's parsed (output) and written (input) types equal the public interfaces. */
type _SchemasMatch = [
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
