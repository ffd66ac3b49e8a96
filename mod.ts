/**
 * decibench: benchmark decision models (System One servers such as llama.cpp's `/v1/systemone`,
 * and pcdServer) on the Typed Decisions dataset, with honest intervals.
 *
 * This module is what a workflow file, a notebook or a one-off script needs: define, load and run
 * workflows, load datasets and stored runs, compute metrics from the registry, render and compare
 * reports, start the reference server, run the decision gate and sweep thresholds. Each folder's
 * fuller API is its own entry point (`@decibench/decibench/workflow`, `/dataset`, `/client`,
 * `/metrics`, `/model`, `/server`, `/record`, `/charts`, `/report`, `/export`, `/audit`, `/live`,
 * `/view`).
 *
 * @example
 * ```ts ignore
 * import { loadWorkflow, runBenchmark } from "./mod.ts";
 * const workflow = await loadWorkflow("workflows/reference.ts");
 * const result = await runBenchmark(workflow, { limit: 20, outDir: await Deno.makeTempDir() });
 * console.log(result.status, result.summary.metrics.accuracy);
 * ```
 *
 * @module
 */
export {
  compareEngines,
  defineWorkflow,
  engineComparisonText,
  loadWorkflow,
  runBenchmark,
  type RunEvent,
  type RunOptions,
  type RunResult,
  validateWorkflow,
  type Workflow,
  WorkflowError,
  type WorkflowInput,
} from "./lib/workflow/mod.ts";
export {
  attribution,
  type Case,
  type Dataset,
  DatasetIntegrityError,
  loadDataset,
  loadQuestionSet,
  QuestionSetError,
} from "./lib/dataset/mod.ts";
export {
  breakdown,
  type BreakdownRow,
  computeMetric,
  computeMetrics,
  METRIC_REGISTRY,
  metricByName,
  type MetricDefinition,
  reliabilityTable,
  summarize,
  type Summary,
} from "./lib/metrics/mod.ts";
export {
  type DecisionRecord,
  listRuns,
  type LoadedRun,
  loadRun,
  openIndex,
  readDecisions,
  runDecisions,
  type RunJson,
} from "./lib/record/mod.ts";
export {
  compareRuns,
  comparisonReport,
  markdownReport,
  num,
  pct,
  type RunComparison,
  statePreview,
  table,
  terminalReport,
} from "./lib/report/mod.ts";
// The HTML renderer loads Observable Plot and linkedom: lib/report/mod.ts leaves it out so that a
// run loads it only when it writes report.html; this entry point offers it.
export { type HtmlOptions, htmlReport } from "./lib/report/html.ts";
export { predictorNames, type ReferenceServer, startReferenceServer } from "./lib/server/mod.ts";
export {
  decisionGate,
  type GateResult,
  itemsFromDecisions,
  type LabelledItem,
  readLabelledItems,
  runGate,
  type SweepResult,
  thresholdSweep,
} from "./lib/audit/mod.ts";
