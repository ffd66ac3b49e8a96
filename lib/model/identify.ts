/**
 * Which trained workflow a request's questions belong to: the workflow is identified by its set
 * of question names, each with the same options in the same order.
 *
 * @module
 */
import { optionsOf, type Question } from "../dataset/mod.ts";

/** A workflow as far as identification goes: its questions and their option keys. */
export interface WorkflowSignature {
  /** Workflow name. */
  workflow: string;
  /** Question name → option keys in order. */
  questions: ReadonlyMap<string, readonly string[]>;
}

/**
 * Finds the one workflow that asks every requested question with the same options.
 *
 * A request may ask a subset of a workflow's questions, as long as only one workflow matches.
 *
 * @param questions The request's questions.
 * @param signatures The known workflows.
 * @returns The index of the matching signature.
 * @throws {RangeError} When no workflow, or more than one, asks these questions with these
 *   options, or when no question is asked.
 * @example
 * ```ts
 * import { identifyWorkflow } from "./identify.ts";
 * const signatures = [{ workflow: "w", questions: new Map([["ok", ["true", "false"]]]) }];
 * const index = identifyWorkflow({ ok: { type: "noul", instructions: "Is it ok?" } }, signatures);
 * if (index !== 0) throw new Error("found w");
 * ```
 */
export function identifyWorkflow(
  questions: Record<string, Question>,
  signatures: readonly WorkflowSignature[],
): number {
  const names = Object.keys(questions);
  if (names.length === 0) {
    throw new RangeError("Cannot identify the workflow: the request asks no questions");
  }
  const asked = names.map((name) => [name, optionsOf(questions[name] as Question)] as const);
  const matches: number[] = [];
  signatures.forEach((signature, index) => {
    const fits = asked.every(([name, options]) => {
      const known = signature.questions.get(name);
      return known !== undefined && known.length === options.length &&
        known.every((option, k) => option === options[k]);
    });
    if (fits) matches.push(index);
  });
  if (matches.length === 1) return matches[0] as number;
  const list = names.map((name) => `"${name}"`).join(", ");
  if (matches.length === 0) {
    throw new RangeError(
      `Cannot answer questions ${list}: no trained workflow asks them with these options (known workflows: ${
        signatures.map((s) => `"${s.workflow}" (${[...s.questions.keys()].join(", ")})`).join("; ")
      })`,
    );
  }
  throw new RangeError(
    `Cannot answer questions ${list}: they match several workflows (${
      matches.map((i) => `"${signatures[i]?.workflow}"`).join(", ")
    }); ask all of one workflow's questions`,
  );
}
