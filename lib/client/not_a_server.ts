/**
 * Telling a server that is not a decision model at all (a web page, another JSON API answering
 * 200) from a decision server whose answers are malformed: the first few 2xx replies decide.
 *
 * @module
 */
import type { NotAReply } from "./ask.ts";

/** How many first 2xx replies, all outside the wire format, stop a run. */
export const NOT_A_SERVER_AFTER = 3;

/** Options of {@linkcode watchReplies}. */
export interface WatchRepliesOptions {
  /** First 2xx replies that decide. @default 3 */
  after?: number;
  /** What the caller cannot do, for the message ("Cannot <action> …"). @default "benchmark" */
  action?: string;
}

/** What the watch reads from one request's outcome (a `CaseOutcome` fits). */
export interface ReplyOutcome {
  /** The parsed reply (anything non-null), or null when there is none. */
  reply: unknown;
  /** The error, or null. */
  error: { kind: string } | null;
  /** Set when the 2xx body is not of the wire format at all. */
  notAReply?: NotAReply | undefined;
}

/** Watches the first replies of a run. */
export interface ReplyWatch {
  /**
   * Looks at one case's outcome.
   *
   * @param outcome The outcome of asking one case.
   * @returns The message that stops the run, once the first replies are all outside the wire
   *   format; null otherwise (and always after one reply of the wire format arrived).
   */
  observe(outcome: ReplyOutcome): string | null;
}

const FORMATS: Readonly<Record<string, string>> = {
  pcd: "pcdServer",
  clef: "Cloudflare clef",
};

/**
 * Watches a run's first replies. Only 2xx replies count: HTTP errors, timeouts and network
 * failures say nothing about the wire format. As soon as one reply is of the engine's format
 * (valid, or malformed answers inside the right envelope), the server is a decision server and
 * later malformed answers stay case errors. When the first `after` replies are all outside the
 * format (not JSON, or JSON without the envelope), the returned message says what came back: the
 * status, the content type and the first 80 characters.
 *
 * @param engine The engine name (`systemone`, `pcd`, `clef`, `ollama`), for the message.
 * @param endpoint The endpoint identity (no credentials), for the message.
 * @param options How many replies decide, and the action the message names.
 * @returns The watch.
 * @example
 * ```ts
 * import { watchReplies } from "./not_a_server.ts";
 * const watch = watchReplies("systemone", "http://127.0.0.1:8080/v1/systemone");
 * const page = {
 *   reply: null,
 *   error: { kind: "malformed", message: "reply: body is not valid JSON" },
 *   fatal: false,
 *   attempts: 1,
 *   latencyMs: 1,
 *   notAReply: { status: 200, contentType: "text/html", start: "<!doctype html>" },
 * };
 * watch.observe(page); // null
 * watch.observe(page); // null
 * watch.observe(page)?.startsWith("Cannot benchmark"); // true
 * ```
 */
export function watchReplies(
  engine: string,
  endpoint: string,
  options: WatchRepliesOptions = {},
): ReplyWatch {
  const after = options.after ?? NOT_A_SERVER_AFTER;
  const action = options.action ?? "benchmark";
  const format = FORMATS[engine] ?? "System One";
  let decided = false;
  let seen = 0;
  return {
    observe(outcome) {
      if (decided) return null;
      if (outcome.notAReply) {
        seen++;
        if (seen < after) return null;
        decided = true;
        const { status, contentType, start } = outcome.notAReply;
        const type = contentType === null ? "no content type" : `content type "${contentType}"`;
        return `Cannot ${action} "${endpoint}": its first ${seen} answers are not ${format} ` +
          `replies (HTTP ${status}, ${type}, body starts ${JSON.stringify(start)}); it is not a ` +
          `decision model server — check --base-url (llama.cpp's llama-server serves ` +
          `/v1/systemone from b11361)`;
      }
      // A reply in the wire format, even with malformed answers: a decision server.
      if (outcome.reply !== null || outcome.error?.kind === "malformed") decided = true;
      return null;
    },
  };
}
