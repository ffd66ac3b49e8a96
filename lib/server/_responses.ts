/**
 * Response helpers: JSON bodies and llama-style error envelopes.
 *
 * @module
 */
import type { ErrorBody } from "./schemas.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/** llama-server's error types by status. */
export const ERROR_TYPES = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "request_too_large_error",
  429: "rate_limit_error",
  500: "server_error",
  501: "not_supported_error",
  503: "unavailable_error",
} as const;

/** A status with a known error type. */
export type ErrorStatus = keyof typeof ERROR_TYPES;

/**
 * A JSON response from text already serialised.
 *
 * @param text The JSON text.
 * @param status The status.
 * @returns The response.
 */
export function jsonText(text: string, status = 200): Response {
  return new Response(text, { status, headers: { "content-type": JSON_TYPE } });
}

/**
 * A llama-style error: `{"error": {"code", "message", "type"}}`.
 *
 * @param status The HTTP status.
 * @param message The message.
 * @param headers Extra headers (e.g. `Retry-After`).
 * @returns The response.
 */
export function errorResponse(
  status: ErrorStatus,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body: ErrorBody = { error: { code: status, message, type: ERROR_TYPES[status] } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
  });
}

/**
 * A 200 whose headers promise `length` bytes of JSON, followed by a body that ends at once: the
 * client gets the status line, then the connection closes mid-response.
 *
 * @param length The `Content-Length` to announce.
 * @returns The response.
 */
export function resetResponse(length: number): Response {
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": JSON_TYPE, "content-length": String(Math.max(length, 1)) },
  });
}
