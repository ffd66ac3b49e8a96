/**
 * The workflow file schema: typed data that names what runs.
 *
 * @module
 */
import { z } from "zod";
import { AuditsSpecSchema } from "../audit/schemas.ts";

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

/** One endpoint to benchmark. */
export const EndpointSpecSchema = z.object({
  /** Name used in side-by-side output. */
  name: z.string().min(1).optional(),
  /** Wire format. */
  engine: z.enum(["systemone", "ollama", "clef", "pcd"]).default("systemone"),
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
/** An endpoint spec as written. */
export type EndpointSpecInput = z.input<typeof EndpointSpecSchema>;
/** An endpoint spec with defaults applied. */
export type EndpointSpec = z.output<typeof EndpointSpecSchema>;

/** A threshold the run must meet. */
export const ThresholdSpecSchema = z.object({
  metric: z.enum(["accuracy", "kl", "brier", "ece"]),
  op: z.enum([">=", ">", "<=", "<"]),
  limit: z.number(),
}).strict();
/** A threshold. */
export type ThresholdSpec = z.infer<typeof ThresholdSpecSchema>;

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
/** A workflow as written. */
export type WorkflowInput = z.input<typeof WorkflowSchema>;
/** A workflow with defaults applied. */
export type Workflow = z.output<typeof WorkflowSchema>;
