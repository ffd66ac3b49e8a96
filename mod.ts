/**
 * decibench: benchmark decision models (System One servers such as llama.cpp's `/v1/systemone`,
 * and pcdServer) on the Typed Decisions dataset, with honest intervals.
 *
 * @example
 * ```ts ignore
 * import { loadWorkflow, runBenchmark } from "./mod.ts";
 * const workflow = await loadWorkflow("workflows/reference.ts");
 * const result = await runBenchmark(workflow, { limit: 20, outDir: await Deno.makeTempDir() });
 * console.log(result.status, result.summary.accuracy);
 * ```
 *
 * @module
 */
export * from "./lib/dataset/mod.ts";
export * from "./lib/client/mod.ts";
export * from "./lib/metrics/mod.ts";
export * from "./lib/record/mod.ts";
export * from "./lib/report/mod.ts";
export * from "./lib/workflow/mod.ts";
export * from "./lib/server/mod.ts";
export * from "./lib/audit/mod.ts";
export * from "./lib/model/mod.ts";
export * from "./lib/live/mod.ts";
export { TOOL_NAME, TOOL_VERSION } from "./lib/version.ts";
