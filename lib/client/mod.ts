/**
 * The client: wire formats (engines), transport with explicit retries, answer validation.
 *
 * @module
 */
export type {
  BuildInput,
  Engine,
  EngineErrorInfo,
  EngineReply,
  EngineRequest,
  NormalizedAnswer,
} from "./engine.ts";
export {
  createEngine,
  ENGINE_NAMES,
  ENGINE_REGISTRY,
  type EngineDefinition,
  type EngineName,
  type EngineTarget,
} from "./engines.ts";
export {
  AnswerValidationError,
  type CaseError,
  EndpointError,
  ERROR_KINDS,
  type ErrorKind,
  isTransientKind,
} from "./errors.ts";
export { systemOneEngine, type SystemOneEngineOptions } from "./systemone.ts";
export {
  DEFAULT_MAX_REPLY_BYTES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  send,
  type SendOptions,
  type SendResult,
} from "./transport.ts";
export {
  type AskCache,
  askCase,
  type AskOptions,
  type CaseOutcome,
  type NotAReply,
  tryBuild,
} from "./ask.ts";
export {
  type CachedReply,
  cacheKey,
  type CacheKeyParts,
  type CacheStats,
  cacheStats,
  defaultCacheDir,
  parseAge,
  pruneCache,
  type PruneCacheOptions,
  ReplyCache,
  type ReplyCacheCounts,
  type ReplyCacheOptions,
} from "./cache.ts";
export {
  type ReplyOutcome,
  type ReplyWatch,
  watchReplies,
  type WatchRepliesOptions,
} from "./not_a_server.ts";
export { pool } from "./pool.ts";
export {
  REPLICA_EXCLUDE_AFTER,
  type ReplicaOutcome,
  ReplicaSet,
  type ReplicaSetOptions,
  type ReplicaStats,
} from "./replicas.ts";
export {
  chooseParallel,
  FALLBACK_PARALLEL,
  type ParallelChoice,
  type ProbeSlotsOptions,
} from "./slots.ts";
export { endpointIdentity, parseBaseUrl, systemOneUrl } from "./url.ts";
export { redact, redactDeep, safeUrl } from "./redact.ts";
