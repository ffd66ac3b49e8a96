/**
 * The judge endpoint: URL rules, its own key, and one deadline-bounded call per check and item.
 *
 * The judge is a separate endpoint on purpose. Its key comes only from its own environment
 * variable, its engine carries no extra headers, and nothing of the benchmark endpoint (key,
 * headers, URL credentials) is passed to it.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import {
  AnswerValidationError,
  EndpointError,
  endpointIdentity,
  type Engine,
  type NotAReply,
  redact,
  redactDeep,
  send,
  type SendResult,
  systemOneEngine,
  systemOneUrl,
} from "../client/mod.ts";
import type { JudgeSpec, UnavailableKind } from "./schemas.ts";

/** Largest request body sent to a judge, in UTF-8 bytes; a larger one is not sent (nor truncated). */
export const MAX_JUDGE_REQUEST_BYTES = 6000;

/** The deadline of one judge call, including every retry and wait, in ms. */
export const JUDGE_DEADLINE_MS = 10_000;

/**
 * Checks a judge base URL: http(s) only, with no credentials, query or fragment. The message
 * never repeats the URL, since the part refused may be a secret.
 *
 * @param raw The URL as given.
 * @returns The parsed URL.
 * @throws {TypeError} When the URL is invalid or carries credentials, a query or a fragment.
 * @example
 * ```ts
 * import { checkJudgeUrl } from "./judge.ts";
 * checkJudgeUrl("http://127.0.0.1:8084").host; // "127.0.0.1:8084"
 * ```
 */
export function checkJudgeUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(
      'Cannot use the judge URL: it is not a valid URL; give a base URL such as "http://127.0.0.1:8084"',
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError("Cannot use the judge URL: its scheme is not http or https");
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError(
      "Cannot use the judge URL: it embeds credentials; put the judge key in the environment variable named by audits.judge.apiKeyEnv",
    );
  }
  if (url.search !== "" || raw.includes("?")) {
    throw new TypeError("Cannot use the judge URL: it has a query string; give the base URL only");
  }
  if (url.hash !== "" || raw.includes("#")) {
    throw new TypeError("Cannot use the judge URL: it has a fragment; give the base URL only");
  }
  return url;
}

/** A judge ready to be asked. */
export interface PreparedJudge {
  /** The System One engine (no extra headers). */
  engine: Engine;
  /** Endpoint identity without credentials (`reference:<predictor>` for the embedded server). */
  identity: string;
  /** Model sent. */
  model: string;
  /** The judge's own key, when its variable is set. Never recorded. */
  apiKey: string | undefined;
  /** Extra attempts for transient errors. */
  retries: number;
  /** The environment variable the key comes from (named when the judge refuses it). */
  keyVariable: string;
  /** Stops the embedded server, when one was started. */
  close(): Promise<void>;
}

/** Options of {@linkcode prepareJudge}. */
export interface PrepareJudgeOptions {
  /** Overrides the judge's base URL (`--base-url`); checked like the workflow's. @default undefined */
  baseUrl?: string | undefined;
  /** Overrides the judge model (`--model`). @default undefined */
  model?: string | undefined;
  /** Reads environment variables (only the judge's own variable is read). @default Deno.env.get */
  env?: ((name: string) => string | undefined) | undefined;
}

/**
 * Resolves the judge: checks its URL, reads its key from its own environment variable, and starts
 * the embedded reference server when the spec asks for it and no base URL overrides it.
 *
 * @param spec The workflow's `audits.judge`.
 * @param options Overrides and environment.
 * @returns The prepared judge; call `close()` when done.
 * @throws {TypeError} When the URL is refused.
 * @throws {RangeError} When the reference predictor is unknown.
 */
export async function prepareJudge(
  spec: JudgeSpec,
  options: PrepareJudgeOptions = {},
): Promise<PreparedJudge> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const apiKey = env(spec.apiKeyEnv) || undefined;
  const model = options.model ?? spec.model;
  if (options.baseUrl !== undefined || spec.reference === undefined) {
    const base = options.baseUrl ?? spec.baseUrl;
    if (base === undefined) throw new TypeError("Cannot start the audit: the judge has no URL");
    checkJudgeUrl(base);
    const url = systemOneUrl(base);
    return {
      engine: systemOneEngine(base),
      identity: endpointIdentity(url),
      model,
      apiKey,
      retries: spec.retries,
      keyVariable: spec.apiKeyEnv,
      close: () => Promise.resolve(),
    };
  }
  const reference = spec.reference;
  const { startReferenceServer } = await import("../server/mod.ts");
  const server = await startReferenceServer({
    predictor: reference.predictor,
    faults: reference.faults,
    seed: reference.seed,
    latencyMs: reference.latencyMs,
    apiKey,
  });
  return {
    engine: systemOneEngine(server.url),
    identity: `reference:${reference.predictor}`,
    model,
    apiKey,
    retries: spec.retries,
    keyVariable: spec.apiKeyEnv,
    close: () => server.close(),
  };
}

/** What one judge call asks. */
export interface JudgeRequest {
  /** The state (the evidence object). */
  state: unknown;
  /** Question name on the wire. */
  name: string;
  /** The question. */
  question: Question;
}

/** Options of {@linkcode askJudge}. */
export interface AskJudgeOptions {
  /** Deadline of the whole call, retries and waits included, in ms. @default 10000 */
  deadlineMs?: number | undefined;
  /** Largest request body in UTF-8 bytes; a larger one is not sent. @default 6000 */
  maxRequestBytes?: number | undefined;
  /** First backoff when the server gives no Retry-After; doubles per attempt. @default 250 */
  backoffMs?: number | undefined;
  /** Caller's signal (Ctrl+C); its abort is rethrown, not recorded. @default undefined */
  signal?: AbortSignal | undefined;
  /** Called once, just before the first request is sent (not for a request over the cap). @default undefined */
  onSend?: () => void | undefined;
}

/** What one judge call produced. */
export interface JudgeCall {
  /** The judge's distribution in option order, or null when unavailable. */
  probabilities: Record<string, number> | null;
  /** Why it is unavailable, or null. */
  errorKind: UnavailableKind | null;
  /** Wall time including retries and waits, ms; null when nothing was sent. */
  elapsedMs: number | null;
  /** Requests sent (0 when the body was over the byte cap). */
  attempts: number;
  /** UTF-8 bytes of the body. */
  requestBytes: number;
  /** The model the server named. */
  modelReported: string | null;
  /** The provider's response id. */
  responseId: string | null;
  /** The error's message (never recorded: a server may quote the evidence), or null. */
  errorMessage: string | null;
  /** True when the error means no later call can succeed (unsupported endpoint, refused key). */
  fatal: boolean;
  /** Set when the judge's 2xx body is not a System One reply at all (a web page). */
  notAReply: NotAReply | null;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const id = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort(): void {
      clearTimeout(id);
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Asks the judge one question about one piece of evidence. The body is built once; over
 * `maxRequestBytes` it is not sent (`too_large`). Transient errors are retried (honouring
 * `Retry-After`) while the deadline allows; a wait that would cross the deadline, or a call still
 * running at it, ends as `deadline`. Errors are returned as their kind only.
 *
 * @param judge The prepared judge.
 * @param request State, question name and question.
 * @param options Deadline, byte cap, backoff, signal.
 * @returns The call's result; never throws for endpoint or answer errors.
 * @throws {DOMException} When the caller's signal aborts.
 */
export async function askJudge(
  judge: PreparedJudge,
  request: JudgeRequest,
  options: AskJudgeOptions = {},
): Promise<JudgeCall> {
  const deadlineMs = options.deadlineMs ?? JUDGE_DEADLINE_MS;
  const maxBytes = options.maxRequestBytes ?? MAX_JUDGE_REQUEST_BYTES;
  const backoffMs = options.backoffMs ?? 250;
  const questions = { [request.name]: request.question };
  const built = judge.engine.build({
    state: request.state,
    questions,
    model: judge.model,
    stateEncoding: "json",
  });
  const requestBytes = new TextEncoder().encode(built.body).byteLength;
  const result: JudgeCall = {
    probabilities: null,
    errorKind: null,
    elapsedMs: null,
    attempts: 0,
    requestBytes,
    modelReported: null,
    responseId: null,
    errorMessage: null,
    fatal: false,
    notAReply: null,
  };
  if (requestBytes > maxBytes) return { ...result, errorKind: "too_large" };

  options.onSend?.();
  const deadline = AbortSignal.timeout(deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const started = performance.now();
  const remaining = (): number => deadlineMs - (performance.now() - started);
  const deadlineText = `No answer from the judge "${judge.identity}" within the ${deadlineMs} ms ` +
    "deadline (retries included)";
  const finish = (extra: Partial<JudgeCall>): JudgeCall => ({
    ...result,
    elapsedMs: Math.round((performance.now() - started) * 1000) / 1000,
    ...extra,
  });
  for (;;) {
    result.attempts++;
    let reply: SendResult | undefined;
    try {
      reply = await send(built, {
        apiKey: judge.apiKey,
        timeoutMs: Math.max(1, Math.ceil(remaining())),
        signal,
        keyVariable: judge.keyVariable,
      });
      const parsed = redactDeep(judge.engine.parse(reply.body, questions), [judge.apiKey]);
      const answer = parsed.answers[request.name];
      if (!answer) return finish({ errorKind: "malformed", errorMessage: "answer missing" });
      return finish({
        probabilities: { ...answer.probabilities },
        modelReported: parsed.model ?? null,
        responseId: parsed.responseId ?? null,
      });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (deadline.aborted) return finish({ errorKind: "deadline", errorMessage: deadlineText });
      if (error instanceof AnswerValidationError) {
        return finish({
          errorKind: "malformed",
          errorMessage: redact(error.message, [judge.apiKey]),
          notAReply: error.notAReply && reply
            ? {
              status: reply.status,
              contentType: reply.contentType,
              start: redact(reply.body.slice(0, 80), [judge.apiKey]),
            }
            : null,
        });
      }
      if (!(error instanceof EndpointError)) throw error;
      if (error.kind === "timeout") {
        return finish({ errorKind: "deadline", errorMessage: deadlineText });
      }
      if (!error.transient || result.attempts > judge.retries) {
        return finish({ errorKind: error.kind, errorMessage: error.message, fatal: error.fatal });
      }
      const delay = error.retryAfterMs ?? backoffMs * 2 ** (result.attempts - 1);
      if (delay >= remaining()) {
        return finish({ errorKind: "deadline", errorMessage: deadlineText });
      }
      try {
        await wait(delay, signal);
      } catch (waitError) {
        if (options.signal?.aborted) throw options.signal.reason ?? waitError;
        return finish({ errorKind: "deadline", errorMessage: deadlineText });
      }
    }
  }
}
