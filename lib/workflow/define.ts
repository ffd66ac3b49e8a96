/**
 * `defineWorkflow`: the identity helper workflow files export, with the types of what they write.
 * The installed `decibench` command maps `decibench/workflow` here, so a TypeScript workflow in any
 * folder starts with `import { defineWorkflow } from "decibench/workflow";`.
 *
 * @module
 */
import type { WorkflowInput } from "./schemas.ts";

export type {
  CaseSelection,
  EndpointSpecInput,
  ReferenceSpecInput,
  ThresholdSpec,
  WorkflowInput,
} from "./schemas.ts";

/**
 * Declares a workflow. Returns its argument unchanged so TypeScript checks it; the loader
 * validates it again with zod.
 *
 * @param spec The workflow as typed data.
 * @returns The same object.
 * @example
 * ```ts
 * import { defineWorkflow } from "./define.ts";
 * export default defineWorkflow({
 *   name: "llama",
 *   endpoint: { baseUrl: "http://127.0.0.1:8080", apiKeyEnv: "LLAMA_API_KEY" },
 *   thresholds: [{ metric: "accuracy", op: ">=", limit: 0.6 }],
 * });
 * ```
 */
export function defineWorkflow<const T extends WorkflowInput>(spec: T): T {
  return spec;
}
