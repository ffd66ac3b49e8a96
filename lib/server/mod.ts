/**
 * The reference server: a real HTTP server that speaks System One like llama-server (validation,
 * error bodies, `/metrics`), answers with a pluggable predictor (`uniform`, `oracle`, …) and
 * injects seeded faults for tests. It also emulates the hosted envelopes decibench's engines
 * speak — pcdServer (`/v1/pcd/decode`), Cloudflare's clef (`/client/v4/accounts/<id>/ai/run/<model>`)
 * and OpenRouter's relay (`/api/v1/systemone`) — so every adapter is tested over real HTTP.
 * `deno task serve` runs it standalone.
 *
 * @example
 * ```ts
 * import { startReferenceServer } from "./mod.ts";
 * await using server = await startReferenceServer({ predictor: "uniform", faults: "http500=0.1" });
 * const health = await fetch(`${server.url}/health`);
 * if ((await health.json()).status !== "ok") throw new Error("unhealthy");
 * ```
 *
 * @module
 */
export {
  type ListenInfo,
  type ReferenceServer,
  type ReferenceServerOptions,
  startReferenceServer,
} from "./server.ts";
export {
  drawFault,
  type Fault,
  FAULT_KINDS,
  type FaultKind,
  type FaultSpec,
  parseFaults,
} from "./faults.ts";
export type {
  Distributions,
  Predictor,
  PredictorDefinition,
  PredictorSettings,
} from "./predictor.ts";
export {
  createPredictor,
  createPredictorForCases,
  oraclePredictor,
  PREDICTOR_REGISTRY,
  predictorNames,
  syntheticDistribution,
  type SyntheticOptions,
  syntheticPredictor,
} from "./predictors/mod.ts";
export type { ServerStats } from "./stats.ts";
