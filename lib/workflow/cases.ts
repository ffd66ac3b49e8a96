/**
 * Case selection: which dataset cases a run asks, in dataset order.
 *
 * @module
 */
import type { Case } from "../dataset/mod.ts";
import type { Workflow } from "./schemas.ts";

/**
 * Selects the cases a workflow asks for.
 *
 * @param cases Every case of the split, in dataset order.
 * @param selection The workflow's `cases` field.
 * @param limit A command-line `--limit` that overrides the workflow's.
 * @returns The selected cases.
 * @throws {RangeError} When an id is unknown or nothing is selected.
 */
export function selectCases(
  cases: readonly Case[],
  selection: Workflow["cases"],
  limit?: number,
): Case[] {
  let out = [...cases];
  if (selection.workflows) {
    const wanted = new Set<string>(selection.workflows);
    out = out.filter((c) => wanted.has(c.workflow));
  }
  if (selection.ids) {
    const known = new Set(cases.map((c) => c.id));
    const unknown = selection.ids.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new RangeError(
        `Cannot select cases: unknown id ${unknown.slice(0, 3).map((i) => `"${i}"`).join(", ")}`,
      );
    }
    const wanted = new Set(selection.ids);
    out = out.filter((c) => wanted.has(c.id));
  }
  const n = limit ?? selection.limit;
  if (n !== undefined) out = out.slice(0, n);
  if (!out.length) throw new RangeError("Cannot run: the case selection matches no case");
  return out;
}
