/**
 * Command-line overrides of every endpoint's limits (`--max-reply-mb`, `--timeout`, `--retries`),
 * applied to a loaded workflow before it runs.
 *
 * @module
 */
import type { EndpointSpec, Workflow } from "./schemas.ts";

/** Endpoint limits a command line may override. */
export interface EndpointLimits {
  /** Most bytes of a reply's decoded body read. @default undefined (the workflow's) */
  maxReplyBytes?: number | undefined;
  /** Per-request timeout in ms (`--timeout`). @default undefined (the workflow's) */
  timeoutMs?: number | undefined;
  /** Extra attempts after a transient error (`--retries`). @default undefined (the workflow's) */
  retries?: number | undefined;
}

/**
 * A copy of a workflow whose every endpoint has the limits given; limits left undefined keep the
 * workflow's value.
 *
 * @param workflow The loaded workflow.
 * @param limits The limits to set.
 * @returns The workflow with the limits applied (the same object when none is given).
 * @example
 * ```ts
 * import { loadWorkflow, withEndpointLimits } from "./mod.ts";
 * const workflow = withEndpointLimits(await loadWorkflow("workflows/reference.ts"), {
 *   maxReplyBytes: 1024 * 1024,
 * });
 * console.log(workflow.endpoint?.maxReplyBytes); // 1048576
 * ```
 */
export function withEndpointLimits(workflow: Workflow, limits: EndpointLimits): Workflow {
  const patch: Partial<EndpointSpec> = {};
  if (limits.maxReplyBytes !== undefined) patch.maxReplyBytes = limits.maxReplyBytes;
  if (limits.timeoutMs !== undefined) patch.timeoutMs = limits.timeoutMs;
  if (limits.retries !== undefined) patch.retries = limits.retries;
  if (Object.keys(patch).length === 0) return workflow;
  const apply = (e: EndpointSpec): EndpointSpec => ({ ...e, ...patch });
  return {
    ...workflow,
    ...(workflow.endpoint ? { endpoint: apply(workflow.endpoint) } : {}),
    ...(workflow.endpoints ? { endpoints: workflow.endpoints.map(apply) } : {}),
  };
}
