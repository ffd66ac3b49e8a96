/**
 * The reference server's OpenRouter relay route, `POST /api/v1/systemone`: the System One answer
 * plus the relay's extra reply fields — `id` (`gen-…`), `provider` and `usage.cost` (US dollars
 * at a fixed emulated price per input token). Errors are OpenRouter's
 * `{"error": {"code": <status>, "message", "metadata"?}}`, with `metadata.provider_name` on
 * failures upstream of the relay (429 and 5xx).
 *
 * @module
 */
import { answerSystemOne, breakText, type Dialect } from "./_dialect.ts";
import type { ErrorStatus } from "./_responses.ts";

/** The provider name the emulated relay reports. */
export const OPENROUTER_PROVIDER = "decibench-reference";

/** Emulated price in US dollars per input token ($0.24 per million). */
export const OPENROUTER_PRICE_PER_TOKEN = 0.24e-6;

function openRouterError(
  status: ErrorStatus,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const error: Record<string, unknown> = { code: status, message };
  if (status === 429 || status >= 500) error.metadata = { provider_name: OPENROUTER_PROVIDER };
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** The OpenRouter relay dialect. */
export const openRouterDialect: Dialect = {
  name: "openrouter",
  error: openRouterError,
  answer(json, context) {
    const result = answerSystemOne(json, context);
    if (!result.ok) return { ok: false, response: openRouterError(400, result.message) };
    const { reply, inputTokens } = result.answered;
    const relayed = {
      id: `gen-${context.sequence}-${crypto.randomUUID().slice(0, 8)}`,
      provider: OPENROUTER_PROVIDER,
      model: reply.model,
      answers: reply.answers,
      usage: {
        ...reply.usage,
        cost: Math.round(inputTokens * OPENROUTER_PRICE_PER_TOKEN * 1e12) / 1e12,
      },
    };
    return {
      ok: true,
      text: breakText(context.fault, JSON.stringify(relayed), '"answers":'),
      inputTokens,
    };
  },
};
