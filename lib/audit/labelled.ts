/**
 * Where labelled yes/no items come from: a stored run's `noul` decisions, or a user's JSONL file.
 *
 * @module
 */
import { join } from "node:path";
import { type LabelledItem, LabelledItemSchema } from "./schemas.ts";

/** The fields read from a decision record. */
export interface NoulDecisionInput {
  /** Case id. */
  case: string;
  /** Workflow. */
  workflow: string;
  /** Question name. */
  question: string;
  /** Question type; only `noul` is used. */
  type: string;
  /** Predicted distribution (`true` is P(yes)), null on error. */
  predicted: Record<string, number> | null;
  /** Gold label (`"true"` or `"false"`), or null when the case has none (unlabelled). */
  gold: string | null;
  /** Error, when the case failed. */
  error?: unknown | undefined;
}

/**
 * Labelled items from a run's decisions: each answered `noul` decision becomes
 * `{id: case, lane: "workflow/question", p_yes: predicted.true, label: gold === "true"}`. For a
 * user question set the lane is `lane/question`. Decisions that errored have no P(yes) and are
 * counted as excluded, never as a 0; decisions without gold (unlabelled rows) are counted apart.
 *
 * @param decisions Decision records (e.g. from `readDecisions`).
 * @returns The items, how many `noul` decisions were excluded (errors) and how many had no gold.
 * @example
 * ```ts
 * import { itemsFromDecisions } from "./labelled.ts";
 * const { items } = itemsFromDecisions([{
 *   case: "c1", workflow: "w", question: "q", type: "noul",
 *   predicted: { true: 0.8, false: 0.2 }, gold: "false", error: null,
 * }]);
 * items[0]; // { id: "c1", lane: "w/q", p_yes: 0.8, label: false }
 * ```
 */
export function itemsFromDecisions(
  decisions: Iterable<NoulDecisionInput>,
): { items: LabelledItem[]; excluded: number; unlabelled: number } {
  const out = new LabelledItems();
  for (const d of decisions) out.add(d);
  return out.result();
}

/**
 * {@linkcode itemsFromDecisions} over a stream of decisions (e.g. a run's `decisions.jsonl` read
 * line by line): only the items (four fields per answered `noul` decision) are held.
 *
 * @param decisions The decisions, one at a time.
 * @returns The items, the excluded and unlabelled counts, and how many decisions were read.
 * @example
 * ```ts ignore
 * import { readDecisionLines } from "../record/mod.ts";
 * import { itemsFromDecisionStream } from "./labelled.ts";
 * async function* records() {
 *   for await (const { record } of readDecisionLines("runs/<id>/decisions.jsonl")) yield record;
 * }
 * const { items, decisions } = await itemsFromDecisionStream(records());
 * ```
 */
export async function itemsFromDecisionStream(
  decisions: AsyncIterable<NoulDecisionInput>,
): Promise<{ items: LabelledItem[]; excluded: number; unlabelled: number; decisions: number }> {
  const out = new LabelledItems();
  let read = 0;
  for await (const d of decisions) {
    read++;
    out.add(d);
  }
  return { ...out.result(), decisions: read };
}

class LabelledItems {
  readonly #items: LabelledItem[] = [];
  #excluded = 0;
  #unlabelled = 0;

  add(d: NoulDecisionInput): void {
    if (d.type !== "noul") return;
    if (d.gold === null) {
      this.#unlabelled++;
      return;
    }
    const p = d.predicted?.true;
    if (d.error || typeof p !== "number") {
      this.#excluded++;
      return;
    }
    this.#items.push({
      id: d.case,
      lane: `${d.workflow}/${d.question}`,
      p_yes: p,
      label: d.gold === "true",
    });
  }

  result(): { items: LabelledItem[]; excluded: number; unlabelled: number } {
    return { items: this.#items, excluded: this.#excluded, unlabelled: this.#unlabelled };
  }
}

/** Labelled items read from a file, with what was left out. */
export interface LabelsFile {
  /** The items in file order. */
  items: LabelledItem[];
  /** Gate verdicts without a P(yes) (undecided: the case could not be asked), left out. */
  excluded: number;
  /** Gate verdicts without a label (the case has no gold), left out. */
  unlabelled: number;
}

/**
 * Parses a labels file: JSONL of `{id, lane, p_yes, label}` (label `true`/`false` or 1/0).
 *
 * @param text The file's text.
 * @param file File name for messages.
 * @returns The items in file order.
 * @throws {SyntaxError} When a line is not JSON.
 * @throws {TypeError} When a line breaks the format (naming line and field), or repeats the id
 *   of an earlier line in the same lane.
 */
export function parseLabelledItems(text: string, file: string): LabelledItem[] {
  return parseLabels(text, file).items;
}

/**
 * Parses a labels file or a gate's `gate.jsonl`. A labels line is `{id, lane, p_yes, label}`; a
 * gate line (it has a `verdict`) gives its `id`, `lane`, `p_yes` and `label`, and one that is
 * undecided (`p_yes` null) or has no gold (`label` null) is counted and left out.
 *
 * @param text The file's text.
 * @param file File name for messages.
 * @returns The items in file order, and the gate lines left out.
 * @throws {SyntaxError} When a line is not JSON.
 * @throws {TypeError} When a line breaks the format (naming line and field), or repeats the id
 *   of an earlier line in the same lane.
 * @example
 * ```ts
 * import { parseLabels } from "./labelled.ts";
 * const gate = '{"id":"a","lane":"x","p_yes":0.8,"verdict":"pass","label":true}\n' +
 *   '{"id":"b","lane":"x","p_yes":null,"verdict":"undecided","label":false}';
 * const { items, excluded } = parseLabels(gate, "gate.jsonl"); // 1 item, 1 excluded
 * ```
 */
export function parseLabels(text: string, file: string): LabelsFile {
  const items: LabelledItem[] = [];
  let excluded = 0;
  let unlabelled = 0;
  // Line of each (lane, id): an item given twice would count twice in its lane's split.
  const seen = new Map<string, number>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SyntaxError(`Cannot read labels "${file}": line ${i + 1} is not JSON`);
    }
    if (isGateLine(value)) {
      // A gate verdict: its label and P(yes), the verdict and provenance aside.
      if (value.p_yes === null) {
        excluded++;
        continue;
      }
      if (value.label === null) {
        unlabelled++;
        continue;
      }
      value = { id: value.id, lane: value.lane, p_yes: value.p_yes, label: value.label };
    }
    const parsed = LabelledItemSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TypeError(
        `Cannot read labels "${file}": line ${i + 1} field "${
          issue?.path.join(".") || "(line)"
        }": ${
          issue?.message ?? "invalid"
        }; write {"id", "lane", "p_yes", "label"} per line, or give a gate's gate.jsonl`,
      );
    }
    const key = JSON.stringify([parsed.data.lane, parsed.data.id]);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new TypeError(
        `Cannot read labels "${file}": line ${
          i + 1
        } repeats id "${parsed.data.id}" of lane "${parsed.data.lane}" (first on line ${first}); give each item one line`,
      );
    }
    seen.set(key, i + 1);
    items.push(parsed.data);
  }
  return { items, excluded, unlabelled };
}

/** A line of `gate.jsonl`: it carries a verdict beside the labels file's fields. */
function isGateLine(
  value: unknown,
): value is { id: unknown; lane: unknown; p_yes: unknown; label: unknown; verdict: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.hasOwn(value, "verdict");
}

/**
 * Reads a labels file or a gate's output: a JSONL file (see {@linkcode parseLabels}), or a gate's
 * directory holding `gate.jsonl`.
 *
 * @param path A JSONL file, or a gate directory.
 * @returns The items and the gate lines left out.
 * @throws {TypeError} When the file is missing or a line breaks the format.
 * @throws {SyntaxError} When a line is not JSON.
 */
export async function readLabels(path: string): Promise<LabelsFile> {
  let file = path;
  try {
    if ((await Deno.stat(path)).isDirectory) file = join(path, "gate.jsonl");
  } catch {
    // missing: said below
  }
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new TypeError(
        `Cannot read labels "${file}": file not found; give a labels JSONL file or a gate's gate.jsonl`,
      );
    }
    throw error;
  }
  return parseLabels(text, file);
}

/**
 * Reads a labels file.
 *
 * @param path Path of the JSONL file.
 * @returns The items.
 * @throws {TypeError} When the file is missing or a line breaks the format.
 * @throws {SyntaxError} When a line is not JSON.
 */
export async function readLabelledItems(path: string): Promise<LabelledItem[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new TypeError(`Cannot read labels "${path}": file not found`);
    }
    throw error;
  }
  return parseLabelledItems(text, path);
}
