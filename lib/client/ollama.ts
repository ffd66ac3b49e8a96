/**
 * Ollama (0.35 and later) serves System One at `/v1/systemone` with two differences that decibench
 * checks before sending: the model name is required (Ollama has no default model), and a request
 * body may be at most 64 KiB.
 *
 * @module
 */
import type { Engine } from "./engine.ts";
import { utf8Length } from "./_utf8.ts";
import { systemOneEngine } from "./systemone.ts";

/** Largest request body Ollama accepts on `/v1/systemone`, in bytes (64 KiB). */
export const OLLAMA_MAX_BODY_BYTES = 65_536;

/** Options of {@linkcode ollamaEngine}. */
export interface OllamaEngineOptions {
  /** Extra headers sent with every request (never credentials). @default {} */
  headers?: Record<string, string> | undefined;
  /** Largest body sent, in bytes. @default 65536 */
  maxBodyBytes?: number | undefined;
}

/**
 * Creates an Ollama engine: the System One wire format with Ollama's limits checked in `build`.
 *
 * @param baseUrl Base URL (`http://127.0.0.1:11434`).
 * @param model The model name Ollama should load (required).
 * @param options Extra headers, body cap.
 * @returns The engine; its `build` throws `RangeError` when a body would exceed the cap.
 * @throws {TypeError} When the URL is invalid or no model is named.
 * @example
 * ```ts
 * import { ollamaEngine } from "./ollama.ts";
 * const engine = ollamaEngine("http://127.0.0.1:11434", "decider-0.8b");
 * try {
 *   engine.build({
 *     state: "x".repeat(70_000),
 *     questions: { ok: { type: "noul", instructions: "Fine?" } },
 *     model: "decider-0.8b",
 *     stateEncoding: "json",
 *   });
 *   throw new Error("expected the 64 KiB limit");
 * } catch (error) {
 *   if (!(error instanceof RangeError)) throw error; // "... over Ollama's limit of 65,536 bytes ..."
 * }
 * ```
 */
export function ollamaEngine(
  baseUrl: string,
  model: string,
  options: OllamaEngineOptions = {},
): Engine {
  if (model.trim() === "" || model === "default") {
    throw new TypeError(
      `Cannot use Ollama: it needs the model's name (got "${model}"); set endpoint.model in the workflow or pass --model`,
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? OLLAMA_MAX_BODY_BYTES;
  const inner = systemOneEngine(baseUrl, options.headers ? { headers: options.headers } : {});
  return {
    ...inner,
    name: "ollama",
    params: { ...inner.params, maxBodyBytes },
    build(input) {
      const request = inner.build(input);
      const size = utf8Length(request.body);
      if (size > maxBodyBytes) {
        throw new RangeError(
          `Cannot send the case to Ollama: the request body is ${
            size.toLocaleString("en-US")
          } bytes, over Ollama's limit of ${
            maxBodyBytes.toLocaleString("en-US")
          } bytes (64 KiB); the state is never truncated — shorten it or use another server`,
        );
      }
      return request;
    },
  };
}
