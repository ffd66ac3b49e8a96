/**
 * Keeps secrets out of messages, records and pages: API keys and URL credentials.
 *
 * @module
 */

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The forms a secret can come back in: as sent, URL-encoded and Base64 (as in a Basic header);
 * matched in any letter case.
 */
function secretPattern(secrets: readonly (string | undefined)[]): RegExp | null {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(base64(secret).replace(/=+$/, ""));
  }
  if (forms.size === 0) return null;
  // Longest first, so a form containing another is replaced whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(sorted.join("|"), "gi");
}

function redactWith(text: string, pattern: RegExp | null): string {
  const out = pattern === null ? text : text.replace(pattern, "[redacted]");
  return out.replace(/(Bearer\s+)[^\s"',]+/gi, "$1[redacted]");
}

/**
 * Replaces every occurrence of each secret — as sent, URL-encoded or Base64, in any letter case —
 * with `[redacted]`, and every `Bearer <token>` with `Bearer [redacted]`.
 *
 * @param text Text that may contain a secret.
 * @param secrets Secrets to hide (empty, undefined and shorter than 4 characters are ignored).
 * @returns The text without the secrets.
 * @example
 * ```ts
 * import { redact } from "./redact.ts";
 * console.log(redact("model-bearer SK-ABC-123", ["sk-abc-123"])); // model-bearer [redacted]
 * ```
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return redactWith(text, secretPattern(secrets));
}

/**
 * A copy of a parsed JSON value with every string in it — object keys included — passed through
 * {@linkcode redact}: what a server says in a reply never carries the key further.
 *
 * @param value A parsed value (objects, arrays, strings, numbers, booleans, null).
 * @param secrets Secrets to hide.
 * @returns The value with its strings redacted; numbers, booleans and null as they were.
 * @example
 * ```ts
 * import { redactDeep } from "./redact.ts";
 * console.log(redactDeep({ auth: ["Bearer sk-abc-123"] }, ["sk-abc-123"]));
 * // { auth: [ "Bearer [redacted]" ] }
 * ```
 */
export function redactDeep<T>(value: T, secrets: readonly (string | undefined)[]): T {
  const pattern = secretPattern(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactWith(v, pattern);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      // fromEntries defines own properties: a "__proto__" key stays a key.
      return Object.fromEntries(
        Object.entries(v).map(([k, inner]) => [redactWith(k, pattern), walk(inner)]),
      );
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * A URL with user name, password, query and fragment removed, for messages and records.
 *
 * @param url The URL.
 * @returns scheme://host:port/path.
 */
export function safeUrl(url: string | URL): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(unparseable URL)";
  }
}
