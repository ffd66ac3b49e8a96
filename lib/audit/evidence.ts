/**
 * Evidence: the public assistant text a judge sees, by scope. Reasoning, tool calls and other
 * roles' messages are never evidence.
 *
 * @module
 */
import type { EvidenceScope, TranscriptMessage } from "./schemas.ts";

/**
 * The evidence of a conversation for a scope. `messages`: every assistant message with public
 * text, in order (whitespace-only ones left out). `final_answer`: the last assistant message
 * with public text, when it is not whitespace-only.
 *
 * @param messages The conversation.
 * @param scope The evidence scope.
 * @returns The messages to send; empty when there is no evidence (the audit is unavailable).
 * @example
 * ```ts
 * import { evidenceOf } from "./evidence.ts";
 * const messages = [
 *   { role: "user" as const, content: "Refund me" },
 *   { role: "assistant" as const, content: "Refund issued." },
 *   { role: "assistant" as const, content: "Sorry, it was not issued." },
 * ];
 * evidenceOf(messages, "final_answer"); // ["Sorry, it was not issued."]
 * ```
 */
export function evidenceOf(
  messages: readonly TranscriptMessage[],
  scope: EvidenceScope,
): string[] {
  const texts = messages
    .filter((m) => m.role === "assistant" && typeof m.content === "string")
    .map((m) => m.content as string);
  if (scope === "final_answer") {
    const last = texts.at(-1);
    return last !== undefined && last.trim() !== "" ? [last] : [];
  }
  return texts.filter((t) => t.trim() !== "");
}

/**
 * The state sent to the judge: the scope and the assistant messages, as a JSON object.
 *
 * @param evidence The evidence messages.
 * @param scope The evidence scope.
 * @returns The state object.
 */
export function evidenceState(
  evidence: readonly string[],
  scope: EvidenceScope,
): { evidence_scope: EvidenceScope; assistant_messages: string[] } {
  return { evidence_scope: scope, assistant_messages: [...evidence] };
}
