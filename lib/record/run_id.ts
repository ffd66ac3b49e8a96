/**
 * Run ids: a UTC time stamp to the second, the workflow name and a random suffix, so that runs
 * (and audits) started in the same second by two processes never share a directory.
 *
 * @module
 */

/**
 * A new run id.
 *
 * @param name The workflow name.
 * @param now The start time. @default new Date()
 * @returns e.g. `20260101-120000-reference-3f9a`.
 * @example
 * ```ts
 * import { runId } from "./run_id.ts";
 * runId("reference", new Date("2026-01-01T12:00:00Z")).slice(0, 25); // "20260101-120000-reference"
 * ```
 */
export function runId(name: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${name}-${crypto.randomUUID().slice(0, 4)}`;
}
