/**
 * The worker that computes run pages' reports (breakdown bootstraps and charts), so a large run's
 * first opening does not hold up every other request of the view.
 *
 * @module
 */
import { runPageReport } from "./run_report.ts";
import type { ReportJob } from "./report_worker.ts";

// deno-lint-ignore no-explicit-any
const scope = self as any;
scope.onmessage = (event: MessageEvent<ReportJob>) => {
  const { id, run, records } = event.data;
  try {
    scope.postMessage({ id, report: runPageReport(run, records) });
  } catch (error) {
    scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
