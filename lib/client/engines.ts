/**
 * Engine factory: one place that maps an endpoint's `engine` name to its wire format.
 *
 * | engine | wire format | calibrated |
 * |---|---|---|
 * | `systemone` | System One (`/v1/systemone`): llama-server, TypeSafe, OpenRouter | yes |
 * | `ollama` | System One with Ollama's required model and 64 KiB body cap | yes |
 * | `clef` | System One inside Cloudflare's envelope, model in the URL | yes |
 * | `pcd` | pcdServer (`/v1/pcd/decode`), translated from System One questions | no |
 *
 * @module
 */
import { clefEngine } from "./clef.ts";
import type { Engine } from "./engine.ts";
import { ollamaEngine } from "./ollama.ts";
import { pcdEngine } from "./pcd.ts";
import { systemOneEngine } from "./systemone.ts";

/** The engine names {@linkcode createEngine} knows. */
export const ENGINE_NAMES = ["systemone", "ollama", "clef", "pcd"] as const;

/** The name of a wire format decibench speaks (`ENGINE_NAMES`). */
export type EngineName = typeof ENGINE_NAMES[number];

/** What an engine needs to know about its endpoint. */
export interface EngineTarget {
  /** Engine name. */
  engine: string;
  /** Base URL. */
  baseUrl: string;
  /** Model (some engines put it in the URL). */
  model: string;
  /** Extra headers. */
  headers: Record<string, string>;
}

/**
 * Creates the engine for an endpoint.
 *
 * @param target Engine name, base URL, model, headers.
 * @returns The engine.
 * @throws {RangeError} For an unknown engine name.
 * @throws {TypeError} For an invalid URL, or Ollama without a model name.
 * @example
 * ```ts
 * import { createEngine } from "./engines.ts";
 * const engine = createEngine({ engine: "pcd", baseUrl: "http://127.0.0.1:8080", model: "default", headers: {} });
 * engine.calibrated; // false
 * ```
 */
export function createEngine(target: EngineTarget): Engine {
  const headers = { headers: target.headers };
  switch (target.engine) {
    case "systemone":
      return systemOneEngine(target.baseUrl, headers);
    case "ollama":
      return ollamaEngine(target.baseUrl, target.model, headers);
    case "clef":
      return clefEngine(target.baseUrl, { model: target.model, ...headers });
    case "pcd":
      return pcdEngine(target.baseUrl, headers);
    default:
      throw new RangeError(
        `Cannot create engine "${target.engine}": known engines are ${ENGINE_NAMES.join(", ")}`,
      );
  }
}
