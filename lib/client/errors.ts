/**
 * Errors the client raises, and the mapping from HTTP status to error kind.
 *
 * @module
 */

/** Every kind of error a decision can fail with, in the order reports list them. */
export const ERROR_KINDS = [
  "authentication",
  "invalid_request",
  "unsupported_endpoint",
  "rate_limited",
  "overloaded",
  "unavailable",
  "timeout",
  "network",
  "malformed",
  "limit",
  "cache_miss",
] as const;

/** The kind of error a decision failed with (how the client classified it). */
export type ErrorKind = typeof ERROR_KINDS[number];

/** A case's failure as the client reports it. */
export interface CaseError {
  /** How the failure was classified. */
  kind: ErrorKind;
  /** What went wrong (credentials already redacted). */
  message: string;
  /** The HTTP status of the answer that failed, or null when no answer arrived (or none failed). */
  status: number | null;
}

/** Kinds that are worth another attempt. */
const TRANSIENT: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "rate_limited",
  "overloaded",
  "unavailable",
  "timeout",
  "network",
]);

/**
 * Whether an error kind is worth another attempt (429, 529, 5xx, timeout, network): the kinds
 * retried, and the kinds whose streak stops a run that gets no answer.
 *
 * @param kind The error kind.
 * @returns True for `rate_limited`, `overloaded`, `unavailable`, `timeout` and `network`.
 */
export function isTransientKind(kind: ErrorKind): boolean {
  return TRANSIENT.has(kind);
}

/** Kinds that end the whole run at their first occurrence. */
const FATAL: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "unsupported_endpoint",
  "authentication",
]);

/** An endpoint answered with an error status, or could not be reached. */
export class EndpointError extends Error {
  /** What went wrong. */
  readonly kind: ErrorKind;
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  /** Delay the server asked for (`Retry-After`), in ms, or null. */
  readonly retryAfterMs: number | null;

  readonly #transient: boolean | undefined;
  readonly #fatal: boolean | undefined;

  /**
   * Creates an endpoint error.
   *
   * @param kind Error kind.
   * @param message Human message (credentials already redacted).
   * @param options Status, Retry-After delay, and overrides of what the kind says about retrying
   *   (`transient`) and stopping the run (`fatal`), for envelopes whose codes say more than the
   *   status (a used-up allocation answered with 429).
   */
  constructor(
    kind: ErrorKind,
    message: string,
    options: {
      status?: number | null | undefined;
      retryAfterMs?: number | null | undefined;
      transient?: boolean | undefined;
      fatal?: boolean | undefined;
    } = {},
  ) {
    super(message);
    this.name = "EndpointError";
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.#transient = options.transient;
    this.#fatal = options.fatal;
  }

  /** True when another attempt may succeed. */
  get transient(): boolean {
    return this.#transient ?? (TRANSIENT.has(this.kind) && this.#fatal !== true);
  }

  /** True when the run cannot go on (unsupported endpoint, authentication, allocation used up). */
  get fatal(): boolean {
    return this.#fatal ?? FATAL.has(this.kind);
  }
}

/** Options of an {@linkcode AnswerValidationError}. */
export interface AnswerValidationOptions {
  /**
   * True when the body is not a reply of the engine's wire format at all (not JSON, or JSON
   * without its envelope, such as System One's `answers`): the server is likely not a decision
   * model. False for a reply of the right shape whose answers break the rules.
   * @default false
   */
  notAReply?: boolean;
}

/** A reply was received but its answers break the wire format. */
export class AnswerValidationError extends Error {
  /** Every problem found, each naming the question and field. */
  readonly issues: string[];
  /** True when the body is not a reply of the engine's wire format at all. */
  readonly notAReply: boolean;

  /**
   * Creates an answer validation error.
   *
   * @param issues The problems found (at least one).
   * @param options Whether the body is not a reply of the wire format at all.
   */
  constructor(issues: string[], options: AnswerValidationOptions = {}) {
    super(
      `Cannot accept the answers: ${issues.slice(0, 3).join("; ")}${
        issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""
      }`,
    );
    this.name = "AnswerValidationError";
    this.issues = issues;
    this.notAReply = options.notAReply ?? false;
  }
}

/**
 * The error kind for an HTTP status (docs/engines.md).
 *
 * @param status HTTP status code (non-2xx).
 * @returns The error kind.
 */
export function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return "authentication";
  if (status === 400 || status === 413 || status === 422) return "invalid_request";
  if (status === 404 || status === 405 || status === 501) return "unsupported_endpoint";
  if (status === 429) return "rate_limited";
  if (status === 529) return "overloaded";
  return "unavailable";
}
