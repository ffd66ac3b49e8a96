/**
 * The client: wire formats (engines), transport with explicit retries, answer validation.
 *
 * @module
 */
export * from "./engine.ts";
export * from "./engines.ts";
export * from "./errors.ts";
export {
  checkDistribution,
  LOW_FIT_MASS,
  parseJsonBody,
  type ParseSystemOneOptions,
  parseSystemOneReply,
  SUM_TOLERANCE,
  sumTolerance,
  type SystemOneReply,
} from "./schemas.ts";
export * from "./systemone.ts";
export * from "./transport.ts";
export * from "./ask.ts";
export * from "./not_a_server.ts";
export * from "./pool.ts";
export * from "./slots.ts";
export * from "./url.ts";
export * from "./redact.ts";
export * from "./pcd.ts";
export * from "./pcd_translate.ts";
export * from "./clef.ts";
export * from "./ollama.ts";
