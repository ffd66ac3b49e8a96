/**
 * The monitor's I/O steps: ask one case (the benchmark's request, transport and scoring) and read
 * the server's `/metrics`.
 *
 * @module
 */
import { askCase, type CaseOutcome, redact, safeUrl, tryBuild } from "../client/mod.ts";
import type { Case } from "../dataset/mod.ts";
import { decisionRecords } from "../record/mod.ts";
import type { PreparedEndpoint } from "../workflow/mod.ts";
import type { Probe } from "./state.ts";
import { parsePrometheus } from "./server_load.ts";

/** Characters of state text a probe keeps for the preview. */
const PREVIEW_CHARS = 400;

/** Options of {@linkcode probeCase}. */
export interface ProbeOptions {
  /**
   * Extra attempts after a transient failure. The monitor shows failures rather than hiding
   * them: the next probe is the retry.
   *
   * @default {0}
   */
  retries?: number | undefined;
  /**
   * Aborts the request (quitting).
   *
   * @default {undefined}
   */
  signal?: AbortSignal | undefined;
}

/** A probe and whether its error ends the monitor. */
export interface ProbeResult {
  /** The scored probe. */
  probe: Probe;
  /** True when the server does not serve decision models or refuses the key. */
  fatal: boolean;
  /** What asking the case produced (reply, error, whether the body was a reply at all). */
  outcome: CaseOutcome;
}

/**
 * Asks one case with all five questions in one request and scores the answers against gold with
 * the benchmark's code (`askCase`, `decisionRecords`).
 *
 * @param endpoint The prepared endpoint (engine, model, key, timeout).
 * @param item The case.
 * @param options Retries and abort signal.
 * @returns The scored probe; endpoint and answer errors are in it, never thrown.
 * @throws {DOMException} When `signal` aborts.
 */
export async function probeCase(
  endpoint: PreparedEndpoint,
  item: Case,
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  // A case that breaks an engine limit (pcdServer) is a `limit` error, as in a benchmark run.
  const built = tryBuild(endpoint.engine, {
    state: item.state,
    questions: item.questions,
    model: endpoint.model,
    stateEncoding: endpoint.spec.stateEncoding,
  });
  const outcome = "error" in built ? built : await askCase(endpoint.engine, built, item.questions, {
    apiKey: endpoint.apiKey,
    timeoutMs: endpoint.spec.timeoutMs,
    maxReplyBytes: endpoint.spec.maxReplyBytes,
    maxRetryAfterMs: endpoint.spec.maxRetryAfterMs,
    retries: options.retries ?? 0,
    signal: options.signal,
    keyVariable: endpoint.spec.apiKeyEnv,
  });
  const records = decisionRecords(item, outcome);
  const text = typeof item.state === "string" ? item.state : JSON.stringify(item.state);
  return {
    probe: {
      caseId: item.id,
      workflow: item.workflow,
      statePreview: (text ?? "").slice(0, PREVIEW_CHARS),
      records,
      latencyMs: outcome.latencyMs,
      inputTokens: outcome.reply?.inputTokens ?? null,
      error: outcome.error,
      attempts: outcome.attempts,
    },
    fatal: outcome.fatal,
    outcome,
  };
}

/** Options of {@linkcode scrapeMetrics}. */
export interface ScrapeOptions {
  /**
   * Bearer key (send it only to the endpoint's own origin).
   *
   * @default {undefined}
   */
  apiKey?: string | undefined;
  /**
   * Timeout in ms.
   *
   * @default {2000}
   */
  timeoutMs?: number | undefined;
  /**
   * Aborts the request.
   *
   * @default {undefined}
   */
  signal?: AbortSignal | undefined;
}

/**
 * Reads Prometheus text from a `/metrics` URL.
 *
 * @param url The `/metrics` URL.
 * @param options Key, timeout, signal.
 * @returns Values by metric name.
 * @throws {Error} When the server does not answer, answers an error status, or sends no
 *   `llamacpp:` metric; the message says which, without the key.
 */
export async function scrapeMetrics(
  url: string,
  options: ScrapeOptions = {},
): Promise<Record<string, number>> {
  const { apiKey, timeoutMs = 2000, signal } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = {};
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, {
      headers,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    body = await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    if (timeout.aborted) throw new Error(`no answer within ${timeoutMs} ms`);
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot reach "${safeUrl(url)}": ${redact(detail, [apiKey]).slice(0, 120)}`);
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const values = parsePrometheus(body);
  if (!Object.keys(values).some((name) => name.startsWith("llamacpp:"))) {
    throw new Error("no llamacpp: metrics in the answer");
  }
  return values;
}
