/**
 * The System One engine: `POST /v1/systemone` as llama-server, Ollama, TypeSafe and OpenRouter
 * speak it.
 *
 * @module
 */
import { questionsJson } from "../dataset/mod.ts";
import type { Engine, EngineRequest } from "./engine.ts";
import { parseJsonBody, parseSystemOneReply } from "./schemas.ts";
import { systemOneUrl } from "./url.ts";

/** Options of the System One engine. */
export interface SystemOneEngineOptions {
  /** Full endpoint URL instead of the one derived from the base URL. @default undefined */
  url?: string | undefined;
  /** Extra headers sent with every request (never credentials). @default {} */
  headers?: Record<string, string> | undefined;
}

/**
 * Creates a System One engine for a base URL.
 *
 * @param baseUrl Base URL of the server (`/v1/systemone` is appended by the URL rule).
 * @param options Endpoint override and extra headers.
 * @returns The engine.
 * @throws {TypeError} When the URL is invalid.
 * @example
 * ```ts
 * import { systemOneEngine } from "./systemone.ts";
 * const engine = systemOneEngine("http://127.0.0.1:8080");
 * const req = engine.build({
 *   state: { ticket: "refund please" },
 *   questions: { refund: { type: "noul", instructions: "Is this a refund request?" } },
 *   model: "default",
 *   stateEncoding: "json",
 * });
 * console.log(req.url); // http://127.0.0.1:8080/v1/systemone
 * ```
 */
export function systemOneEngine(baseUrl: string, options: SystemOneEngineOptions = {}): Engine {
  const url = options.url ?? systemOneUrl(baseUrl);
  const headers = { "content-type": "application/json", ...options.headers };
  return {
    name: "systemone",
    url,
    params: { url },
    calibrated: true,
    build(input): EngineRequest {
      const state = input.stateEncoding === "text" ? JSON.stringify(input.state) : input.state;
      // The same bytes as JSON.stringify({model, state, questions}); a workflow's questions are
      // one object shared by its cases, so their JSON is serialised once.
      const body = `{"model":${JSON.stringify(input.model)},"state":${
        JSON.stringify(state) ?? "null"
      },"questions":${questionsJson(input.questions)}}`;
      return { url, headers, body };
    },
    parse(body, questions) {
      return parseSystemOneReply(parseJsonBody(body), questions);
    },
  };
}
