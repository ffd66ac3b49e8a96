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
  DEFAULT_MAX_BODY_BYTES,
  type ListenInfo,
  type ReferenceServer,
  type ReferenceServerOptions,
  startReferenceServer,
} from "./server.ts";
export {
  checkFaults,
  drawFault,
  type Fault,
  FAULT_KINDS,
  type FaultKind,
  type FaultSpec,
  jitterDistributions,
  jitterOf,
  parseFaults,
  unitDraw,
} from "./faults.ts";
export {
  createPredictor,
  type Distributions,
  type Predictor,
  type PredictorFactory,
  predictorNames,
  registerPredictor,
} from "./predictor.ts";
export { oraclePredictor, uniformPredictor } from "./predictors/mod.ts";
export {
  type ChoiceAnswer,
  confidenceOf,
  type NoulAnswer,
  type ScoreAnswer,
  scoreConfidenceOf,
  type SystemOneResponse,
  type WireAnswer,
} from "./answers.ts";
export {
  type ErrorBody,
  MAX_IMAGES,
  MAX_OPTIONS,
  SCORE_LEVELS,
  type SystemOneRequest,
} from "./schemas.ts";
export { prometheusText, type ServerStats } from "./stats.ts";
export { PCD_SERVER_LIMITS } from "./pcd.ts";
export { CLEF_MAX_QUESTIONS, CLEF_SERVED_MODEL } from "./clef.ts";
export { OPENROUTER_PRICE_PER_TOKEN, OPENROUTER_PROVIDER } from "./openrouter.ts";
