/**
 * The engine registry: one definition per wire format (its name, what speaks it, how to create
 * it), and `createEngine`, which looks an endpoint's `engine` up in it.
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

/** One wire format decibench speaks. */
export interface EngineDefinition {
  /** The `engine` value of an endpoint. */
  readonly name: EngineName;
  /** Who speaks it, one line. */
  readonly description: string;
  /** Whether its probabilities are calibrated (System One) or a raw softmax (pcdServer). */
  readonly calibrated: boolean;
  /**
   * Creates the engine for an endpoint.
   *
   * @param target Base URL, model and headers.
   * @returns The engine.
   * @throws {TypeError} For an invalid URL, or a model the engine cannot use.
   */
  create(target: EngineTarget): Engine;
}

/** Every engine, in the order of {@linkcode ENGINE_NAMES} (a test holds them equal). */
export const ENGINE_REGISTRY: readonly EngineDefinition[] = [
  {
    name: "systemone",
    description: "System One (/v1/systemone): llama-server, TypeSafe, OpenRouter",
    calibrated: true,
    create: (t) => systemOneEngine(t.baseUrl, { headers: t.headers }),
  },
  {
    name: "ollama",
    description: "System One with Ollama's required model and 64 KiB body cap",
    calibrated: true,
    create: (t) => ollamaEngine(t.baseUrl, t.model, { headers: t.headers }),
  },
  {
    name: "clef",
    description: "System One inside Cloudflare's envelope, model in the URL",
    calibrated: true,
    create: (t) => clefEngine(t.baseUrl, { model: t.model, headers: t.headers }),
  },
  {
    name: "pcd",
    description: "pcdServer (/v1/pcd/decode), translated from System One questions",
    calibrated: false,
    create: (t) => pcdEngine(t.baseUrl, { headers: t.headers }),
  },
];

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
  const definition = ENGINE_REGISTRY.find((e) => e.name === target.engine);
  if (definition === undefined) {
    throw new RangeError(
      `Cannot create engine "${target.engine}": known engines are ${ENGINE_NAMES.join(", ")}`,
    );
  }
  return definition.create(target);
}
