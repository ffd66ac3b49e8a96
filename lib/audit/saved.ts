/**
 * Reading a saved audit for resume.
 *
 * @module
 */
import { join } from "node:path";
import { type AuditMeta, AuditMetaSchema, type AuditRecord, AuditRecordSchema } from "./schemas.ts";

/** A saved audit: its `audit.json` and its records by item and check. */
export interface SavedAudit {
  /** `audit.json`. */
  meta: AuditMeta;
  /** Records keyed by `JSON.stringify([item, check_id])`; a later line wins. */
  records: Map<string, AuditRecord>;
}

/**
 * Reads a saved audit directory (`audit.json` and `audit.jsonl`; a torn or invalid line is
 * skipped and judged again).
 *
 * @param dir The directory of an earlier audit.
 * @returns The saved audit.
 * @throws {TypeError} When the directory holds no readable `audit.json`.
 */
export async function readSavedAudit(dir: string): Promise<SavedAudit> {
  let meta: AuditMeta;
  try {
    meta = AuditMetaSchema.parse(JSON.parse(await Deno.readTextFile(join(dir, "audit.json"))));
  } catch {
    throw new TypeError(
      `Cannot resume the audit in "${dir}": no valid audit.json there; give the directory an earlier audit wrote`,
    );
  }
  const records = new Map<string, AuditRecord>();
  let text = "";
  try {
    text = await Deno.readTextFile(join(dir, "audit.jsonl"));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const record = AuditRecordSchema.parse(JSON.parse(line));
      records.set(JSON.stringify([record.item, record.check_id]), record);
    } catch {
      // a torn line from a crash: that item is judged again
    }
  }
  return { meta, records };
}
