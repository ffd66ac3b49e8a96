/**
 * The engine seam: an engine turns a case's state and questions into one HTTP request and turns
 * the reply into normalised answers, so metrics, records and reports never know which engine
 * answered.
 *
 * @module
 */
import type { Question, QuestionType } from "../dataset/mod.ts";
import type { ErrorKind } from "./errors.ts";

/** One answer in the shape every engine returns. */
export interface NormalizedAnswer {
  /** The question type. */
  type: QuestionType;
  /** Probability per option, keyed as `optionsOf(question)` (noul: `true`, `false`). */
  probabilities: Record<string, number>;
  /** Probability of the answer given (the top probability; for noul max(p, 1 − p)). */
  probability: number;
  /** True when the engine's probabilities are calibrated (System One), false for pcdServer. */
  calibrated: boolean;
  /** Engine-specific extras kept in the record (dohnuts' `native` block). */
  native?: Record<string, unknown> | undefined;
  /** Warnings about this answer (a low `fit_mass`, for example). */
  warnings?: string[] | undefined;
}

/** Everything an engine needs to build a request. */
export interface BuildInput {
  /** The case's state (a JSON value). */
  state: unknown;
  /** The questions, in request order. */
  questions: Record<string, Question>;
  /** The model name to send. */
  model: string;
  /** `json` sends the state as a JSON value, `text` as its JSON text. */
  stateEncoding: "json" | "text";
}

/** A request ready to send (without credentials: the transport adds those). */
export interface EngineRequest {
  /** Full URL. */
  url: string;
  /** Headers other than authorization. */
  headers: Record<string, string>;
  /** The exact body bytes, as text. */
  body: string;
}

/** A parsed reply. */
export interface EngineReply {
  /** Answers by question name. */
  answers: Record<string, NormalizedAnswer>;
  /** The model the server says answered. */
  model?: string | undefined;
  /** Input tokens the server reported. */
  inputTokens?: number | undefined;
  /** Output tokens the server reported. */
  outputTokens?: number | undefined;
  /** A provider's response id. */
  responseId?: string | undefined;
  /** A relay's provider name. */
  provider?: string | undefined;
  /** A reported cost. */
  cost?: number | undefined;
}

/** An engine: a wire format. */
export interface Engine {
  /** Engine name, e.g. `systemone` or `pcd`. */
  name: string;
  /** The endpoint URL every request is sent to (may carry credentials; never record it as is). */
  url: string;
  /** Parameters that make the engine what it is, recorded in the run. */
  params: Record<string, unknown>;
  /** Whether the engine's probabilities are calibrated. */
  calibrated: boolean;
  /** Builds the request for one case; throws `RangeError` when a limit cannot be met. */
  build(input: BuildInput): EngineRequest;
  /**
   * Parses a 2xx reply body; throws `AnswerValidationError` on a malformed answer.
   */
  parse(body: string, questions: Record<string, Question>): EngineReply;
  /**
   * Reads a non-2xx reply whose envelope is engine-specific (optional): the error kind its codes
   * mean, its message, and whether retrying can help. Undefined leaves the status-based defaults.
   */
  classifyError?(status: number, body: string): EngineErrorInfo | undefined;
}

/** What an engine reads from an error reply its envelope defines. */
export interface EngineErrorInfo {
  /** Error kind to record instead of the one the HTTP status gives. */
  kind?: ErrorKind | undefined;
  /** The server's message (the transport redacts and clips it). */
  message?: string | undefined;
  /** Whether another attempt may succeed, instead of what the kind says. */
  transient?: boolean | undefined;
  /** True when no further request can succeed either (an allocation used up): the run stops. */
  fatal?: boolean | undefined;
}
