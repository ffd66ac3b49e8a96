/**
 * How a run asks through the request cache: the endpoint's identity in the cache's key (the URL
 * without credentials, or the embedded reference server's settings, whose port changes from one
 * invocation to the next) and the pass.
 *
 * @module
 */
import { type AskCache, endpointIdentity, type ReplyCache } from "../client/mod.ts";
import type { EndpointSpec } from "./schemas.ts";

/** The parts of a prepared endpoint the cache key reads. */
export interface CachedEndpoint {
  /** The endpoint spec (its `reference` when embedded). */
  spec: Pick<EndpointSpec, "reference">;
  /** Base URL actually used. */
  baseUrl: string;
  /** Model sent. */
  model: string;
  /** True when the embedded reference server answers. */
  embedded?: boolean | undefined;
}

/**
 * The cache settings of one pass of a run over an endpoint.
 *
 * @param store The request cache, or undefined without `--cache`.
 * @param endpoint The prepared endpoint.
 * @param pass 0 for the official pass, 1, 2, … for the stability passes.
 * @returns What `askCase` takes as `cache`, or undefined without a cache.
 */
export function askCacheFor(
  store: ReplyCache | undefined,
  endpoint: CachedEndpoint,
  pass: number,
): AskCache | undefined {
  if (store === undefined) return undefined;
  const identity = endpoint.embedded === true && endpoint.spec.reference !== undefined
    ? `reference ${JSON.stringify(endpoint.spec.reference)}`
    : endpointIdentity(endpoint.baseUrl);
  return { store, endpoint: identity, model: endpoint.model, pass };
}
