/**
 * The transcript file: JSONL, one conversation per line, checked line by line.
 *
 * @module
 */
import {
  type AuditCheck,
  checkName,
  type Transcript,
  TranscriptSchema,
  UNCLEAR,
} from "./schemas.ts";

/**
 * Parses transcript text (JSONL: one conversation per line; blank lines skipped).
 *
 * @param text The file's text.
 * @param file The file name, for messages.
 * @returns The items in file order.
 * @throws {SyntaxError} When a line is not JSON.
 * @throws {TypeError} When a line breaks the format (naming line and field) or an id repeats.
 * @example
 * ```ts
 * import { parseTranscripts } from "./transcripts.ts";
 * const items = parseTranscripts(
 *   '{"id":"t1","messages":[{"role":"assistant","content":"Done."}],"verdicts":{"done-claim":"claims_done"}}',
 *   "example.jsonl",
 * );
 * items[0]?.id; // "t1"
 * ```
 */
export function parseTranscripts(text: string, file: string): Transcript[] {
  const out: Transcript[] = [];
  const ids = new Set<string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SyntaxError(
        `Cannot read transcripts "${file}": line ${
          i + 1
        } is not JSON; write one conversation object per line`,
      );
    }
    const parsed = TranscriptSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join(".") : "(line)";
      throw new TypeError(
        `Cannot read transcripts "${file}": line ${i + 1} field "${field}": ${
          issue?.message ?? "invalid"
        }; see docs/audits.md "Transcript files"`,
      );
    }
    if (ids.has(parsed.data.id)) {
      throw new TypeError(
        `Cannot read transcripts "${file}": line ${
          i + 1
        } repeats id "${parsed.data.id}"; ids must be unique`,
      );
    }
    ids.add(parsed.data.id);
    out.push(parsed.data);
  }
  return out;
}

/**
 * Reads and parses a transcript file.
 *
 * @param path Path of the JSONL file.
 * @returns The items in file order, and the file's text (for hashing).
 * @throws {Deno.errors.NotFound} Rethrown as `TypeError` naming the file.
 * @throws {SyntaxError} When a line is not JSON.
 * @throws {TypeError} When the file is missing or empty, or a line breaks the format.
 */
export async function readTranscripts(
  path: string,
): Promise<{ items: Transcript[]; text: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new TypeError(
        `Cannot read transcripts "${path}": file not found; the path in "audits.transcripts" is relative to the workflow file`,
      );
    }
    throw error;
  }
  const items = parseTranscripts(text, path);
  if (items.length === 0) {
    throw new TypeError(
      `Cannot read transcripts "${path}": the file holds no conversation; write one conversation object per line (see docs/audits.md "Transcript files")`,
    );
  }
  return { items, text };
}

/** Options of {@linkcode checkVerdicts}. */
export interface CheckVerdictsOptions {
  /** The transcript file's name, for messages. @default "transcripts" */
  file?: string | undefined;
}

/**
 * Checks every verdict against the workflow's checks: it must name a check (by id without the
 * version suffix) and be one of that check's options other than `unclear`.
 *
 * @param items The transcript items.
 * @param checks Every check of the workflow (not only the selected set).
 * @param options The file name for messages.
 * @throws {TypeError} Naming the item, the check and the fix.
 */
export function checkVerdicts(
  items: readonly Transcript[],
  checks: readonly AuditCheck[],
  options: CheckVerdictsOptions = {},
): void {
  const file = options.file ?? "transcripts";
  const byName = new Map(checks.map((c) => [checkName(c.id), c]));
  for (const item of items) {
    for (const [name, verdict] of Object.entries(item.verdicts)) {
      const check = byName.get(name);
      if (!check) {
        throw new TypeError(
          `Cannot use transcripts "${file}": item "${item.id}" has a verdict for "${name}", which names no check; key verdicts by check id without "-vN" (${
            [...byName.keys()].map((n) => `"${n}"`).join(", ")
          })`,
        );
      }
      if (verdict === UNCLEAR || !Object.hasOwn(check.options, verdict)) {
        const options = Object.keys(check.options).filter((o) => o !== UNCLEAR);
        throw new TypeError(
          `Cannot use transcripts "${file}": item "${item.id}" verdict "${verdict}" for "${name}" is not one of ${
            options.map((o) => `"${o}"`).join(", ")
          }`,
        );
      }
    }
  }
}
