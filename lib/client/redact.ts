/**
 * Keeps secrets out of messages: API keys and URL credentials.
 *
 * @module
 */

/**
 * Replaces every occurrence of each secret with `[redacted]`.
 *
 * @param text Text that may contain a secret.
 * @param secrets Secrets to hide (empty or undefined entries are ignored).
 * @returns The text without the secrets.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out.replace(/(Bearer\s+)[^\s"',]+/gi, "$1[redacted]");
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
