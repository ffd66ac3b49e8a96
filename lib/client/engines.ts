/**
 * Engine factory: one place that maps an endpoint's `engine` name to its wire format.
 *
 * @module
 */
import type { Engine } from "./engine.ts";
import { systemOneEngine } from "./systemone.ts";

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
 * @throws {TypeError} For an invalid URL.
 */
export function createEngine(target: EngineTarget): Engine {
  switch (target.engine) {
    case "systemone":
      return systemOneEngine(target.baseUrl, { headers: target.headers });
    default:
      throw new RangeError(
        `Cannot create engine "${target.engine}": known engines are systemone`,
      );
  }
}
