/**
 * Case selection: which cases of a workflow's question set a run asks, in dataset order.
 *
 * @module
 */
import {
  type Case,
  type CaseSelection,
  type Dataset,
  loadQuestionSet,
  openQuestionSet,
  type QuestionSet,
} from "../dataset/mod.ts";
import { drawSample, type SampleSpec } from "./sample.ts";
import type { Workflow } from "./schemas.ts";

/**
 * The selection a workflow's `cases` field and a `--limit` make.
 *
 * @param selection The workflow's `cases` field.
 * @param limit A command-line `--limit` that overrides the workflow's.
 * @returns The selection `openQuestionSet` applies.
 */
export function caseSelection(selection: Workflow["cases"], limit?: number): CaseSelection {
  return {
    lanes: selection.workflows,
    ids: selection.ids,
    limit: limit ?? selection.limit,
  };
}

/**
 * Selects the cases a workflow asks for.
 *
 * @param cases Every case of the question set, in dataset order.
 * @param selection The workflow's `cases` field (`workflows` applies to Typed Decisions; the
 *   question subset is applied when the question set is loaded).
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

/** Options of {@linkcode loadCases} and {@linkcode openCases}. */
export interface LoadCasesOptions {
  /**
   * Overrides the workflow's case limit (`--limit`).
   * @default undefined (the workflow's)
   */
  limit?: number | undefined;
  /**
   * A seeded draw of cases stratified by lane (`--sample N --seed S`) instead of the first ones;
   * not given together with `limit`.
   * @default undefined (no sample)
   */
  sample?: SampleSpec | undefined;
  /**
   * Folder of the vendored Typed Decisions files (tests).
   * @default undefined (the vendored one)
   */
  datasetDir?: string | undefined;
}

/**
 * Opens a workflow's question set with its case selection applied: every row checked before
 * anything is sent, the counts, lanes and digests a run needs known up front, and the selected
 * cases read as a stream (`cases()`), never held whole.
 *
 * @param workflow The validated workflow.
 * @param options Limit or sample, and dataset folder.
 * @returns The opened question set (its figures are the selected cases').
 * @throws {QuestionSetError} When the workflow's file is missing or a row breaks its declaration.
 * @throws {DatasetIntegrityError} When the vendored dataset fails its check.
 * @throws {RangeError} When the selection names an unknown id or matches nothing.
 */
export async function openCases(
  workflow: Workflow,
  options: LoadCasesOptions = {},
): Promise<QuestionSet> {
  const source = {
    dataset: workflow.dataset,
    questions: workflow.questions,
    typedQuestions: workflow.cases.questions,
  };
  const open = (selection: CaseSelection) =>
    openQuestionSet(source, {
      lane: workflow.name,
      selection,
      ...(options.datasetDir !== undefined ? { datasetDir: options.datasetDir } : {}),
    });
  const sample = options.sample;
  if (sample === undefined) return await open(caseSelection(workflow.cases, options.limit));
  // A sample: the eligible cases (the selection's lanes and ids) read once for their ids and
  // lanes, the draw made, and the set opened again on the drawn ids.
  const whole = await open({ ...caseSelection(workflow.cases), limit: undefined });
  const population: { id: string; lane: string }[] = [];
  for await (const item of whole.cases()) population.push({ id: item.id, lane: item.workflow });
  const ids = drawSample(population, sample);
  const drawn = await open({ lanes: workflow.cases.workflows, ids });
  return { ...drawn, eligible: whole.eligible };
}

/**
 * Loads a workflow's question set (Typed Decisions, a subset of its questions, or the workflow's
 * own file, verified before anything is sent) and selects its cases, all held in memory (see
 * {@linkcode openCases} for the stream).
 *
 * @param workflow The validated workflow.
 * @param options Limit and dataset folder.
 * @returns The question set and the selected cases.
 * @throws {QuestionSetError} When the workflow's file is missing or a row breaks its declaration.
 * @throws {DatasetIntegrityError} When the vendored dataset fails its check.
 * @throws {RangeError} When the selection names an unknown id or matches nothing.
 */
export async function loadCases(
  workflow: Workflow,
  options: LoadCasesOptions = {},
): Promise<{ dataset: Dataset; cases: Case[] }> {
  const dataset = await loadQuestionSet({
    dataset: workflow.dataset,
    questions: workflow.questions,
    typedQuestions: workflow.cases.questions,
  }, {
    lane: workflow.name,
    ...(options.datasetDir !== undefined ? { datasetDir: options.datasetDir } : {}),
  });
  const sample = options.sample;
  if (sample === undefined) {
    return { dataset, cases: selectCases(dataset.cases, workflow.cases, options.limit) };
  }
  const eligible = selectCases(dataset.cases, { ...workflow.cases, limit: undefined });
  const ids = new Set(
    drawSample(eligible.map((c) => ({ id: c.id, lane: c.workflow })), sample),
  );
  return { dataset, cases: eligible.filter((c) => ids.has(c.id)) };
}
