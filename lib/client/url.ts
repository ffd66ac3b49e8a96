/**
 * Endpoint URL rules.
 *
 * @module
 */
import { safeUrl } from "./redact.ts";

/**
 * Parses a base URL, refusing what cannot be an endpoint.
 *
 * @param base The base URL as given by a user or workflow.
 * @returns The parsed URL.
 * @throws {TypeError} When the URL is unparseable, not http(s), or carries credentials.
 */
export function parseBaseUrl(base: string): URL {
  // "localhost:8080" parses as scheme "localhost:"; it is a host and port without a scheme.
  const hostPort = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})(\/[^\s]*)?$/.exec(base);
  if (hostPort) {
    throw new TypeError(
      `Cannot use base URL "${hostPort[1]}:${
        hostPort[2]
      }": it has no scheme; did you mean "http://${hostPort[1]}:${hostPort[2]}"?`,
    );
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new TypeError(
      `Cannot use base URL: it is not a valid URL; give one like "http://127.0.0.1:8080"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(
      `Cannot use base URL "${safeUrl(url)}": scheme "${url.protocol}" is not http or https`,
    );
  }
  if (url.username || url.password) {
    throw new TypeError(
      `Cannot use base URL "${
        safeUrl(url)
      }": it embeds credentials; put the key in the environment variable the workflow names instead`,
    );
  }
  return url;
}

/**
 * The System One endpoint for a base URL: strip trailing `/`, append `/v1` unless the base already
 * ends in `/v1`, then `/systemone`.
 *
 * @param base Base URL such as `http://127.0.0.1:8080` or `https://openrouter.ai/api/v1`.
 * @returns The full endpoint URL.
 * @throws {TypeError} When the base URL is invalid.
 * @example
 * ```ts
 * import { systemOneUrl } from "./url.ts";
 * systemOneUrl("http://127.0.0.1:8080/"); // "http://127.0.0.1:8080/v1/systemone"
 * ```
 */
export function systemOneUrl(base: string): string {
  const url = parseBaseUrl(base);
  let path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/systemone")) return `${url.origin}${path}${url.search}`;
  if (!path.endsWith("/v1")) path += "/v1";
  return `${url.origin}${path}/systemone${url.search}`;
}

/**
 * The identity of an endpoint for fingerprints: scheme, host, port and path, never credentials.
 *
 * @param url The endpoint URL.
 * @returns `scheme://host:port/path` with the port always written.
 */
export function endpointIdentity(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.protocol}//${u.hostname}:${port}${u.pathname}`;
}
