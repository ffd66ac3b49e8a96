/**
 * The prior: per workflow question, the mean of the training cases' gold distributions. It
 * ignores the state.
 *
 * @module
 */
import { type Case, optionsOf, type Question } from "../dataset/mod.ts";
import { identifyWorkflow, type WorkflowSignature } from "./identify.ts";
import type { CompiledModel } from "./predict.ts";

/**
 * Fits the prior on training cases (never on the benchmark's test split): for each workflow and
 * question, the mean over that workflow's cases of the gold probability of each option (options
 * keyed and ordered as `optionsOf(question)`, a missing gold option counting 0), rescaled to sum
 * to exactly 1 (gold probabilities are rounded to 6 decimals, so their mean can miss 1 by ~1e-6).
 *
 * @param cases Training cases.
 * @returns A model answering any workflow it has seen; its `predict` throws `RangeError` for
 *   questions that match no workflow or several.
 * @throws {RangeError} When there are no cases, or a workflow's cases ask different questions.
 * @example
 * ```ts
 * import { fitPrior } from "./prior.ts";
 * const question = { type: "noul", instructions: "Fine?" } as const;
 * const gold = (p: number) => ({
 *   ok: { type: "noul", label: "true", probabilities: { true: p, false: 1 - p }, confidence: 0 },
 * } as const);
 * const prior = fitPrior([
 *   { id: "a", workflow: "w", state: {}, questions: { ok: question }, gold: gold(1) },
 *   { id: "b", workflow: "w", state: {}, questions: { ok: question }, gold: gold(0.5) },
 * ]);
 * const answer = prior.predict({}, { ok: question }).ok; // { true: 0.75, false: 0.25 }
 * if (answer?.true !== 0.75) throw new Error("mean of gold");
 * ```
 */
export function fitPrior(cases: readonly Case[]): CompiledModel {
  if (cases.length === 0) throw new RangeError("Cannot fit the prior: no training cases given");
  const sums = new Map<string, Map<string, Float64Array>>();
  const orders = new Map<string, Map<string, string[]>>();
  for (const caseItem of cases) {
    let order = orders.get(caseItem.workflow);
    let sum = sums.get(caseItem.workflow);
    const entries = Object.entries(caseItem.questions).map(
      ([name, question]) => [name, optionsOf(question)] as const,
    );
    if (!order || !sum) {
      order = new Map(entries.map(([name, options]) => [name, options]));
      sum = new Map(entries.map(([name, options]) => [name, new Float64Array(options.length)]));
      orders.set(caseItem.workflow, order);
      sums.set(caseItem.workflow, sum);
    }
    const known = order;
    const same = entries.length === known.size &&
      entries.every(([name, options]) =>
        known.get(name)?.join("\u0000") === options.join("\u0000")
      );
    if (!same) {
      throw new RangeError(
        `Cannot fit the prior: case "${caseItem.id}" of workflow "${caseItem.workflow}" asks different questions than the workflow's first case`,
      );
    }
    for (const [name, options] of entries) {
      const gold = caseItem.gold[name];
      if (!gold) {
        throw new RangeError(
          `Cannot fit the prior: case "${caseItem.id}" has no gold answer for "${name}"`,
        );
      }
      const vector = sum.get(name) as Float64Array;
      options.forEach((option, k) => {
        vector[k] = (vector[k] as number) + (gold.probabilities[option] ?? 0);
      });
    }
  }
  const workflows = [...sums.keys()].sort();
  const signatures: WorkflowSignature[] = workflows.map((workflow) => ({
    workflow,
    questions: orders.get(workflow) as Map<string, string[]>,
  }));
  const tables = workflows.map((workflow) => {
    const order = orders.get(workflow) as Map<string, string[]>;
    const table = new Map<string, Record<string, number>>();
    for (const [name, vector] of sums.get(workflow) as Map<string, Float64Array>) {
      const options = order.get(name) as string[];
      // Gold probabilities are rounded to 6 decimals, so the mean can miss 1 by ~1e-6: rescale.
      const total = vector.reduce((sum, v) => sum + v, 0);
      table.set(
        name,
        Object.fromEntries(options.map((option, k) => [option, (vector[k] as number) / total])),
      );
    }
    return table;
  });
  return {
    signatures,
    predict(
      _state: unknown,
      questions: Record<string, Question>,
    ): Record<string, Record<string, number>> {
      const table = tables[identifyWorkflow(questions, signatures)] as Map<
        string,
        Record<string, number>
      >;
      const out: Record<string, Record<string, number>> = {};
      for (const name of Object.keys(questions)) out[name] = { ...table.get(name) };
      return out;
    },
  };
}
