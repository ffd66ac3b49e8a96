/**
 * The live monitor (`deno task live`): probes a serving decision model one Typed Decisions case
 * at a time, scores every answer against gold with the benchmark's code, and shows rolling
 * quality, calibration and server load full screen (or one line per probe without a terminal).
 *
 * The state is plain data moved on by pure functions (`addProbe`, `resetSession`, `addScrape`),
 * drawn by `drawLive(state, size)` into lines; `runMonitor` does the I/O.
 *
 * @example
 * ```ts
 * import { addProbe, createLiveState, drawLive } from "./mod.ts";
 * const meta = {
 *   workflow: "reference", endpoint: "http://127.0.0.1:8080/v1/systemone", model: "m",
 *   intervalSeconds: 0.5, cases: 400, attribution: "Typed Decisions",
 * };
 * let state = createLiveState(meta, 0);
 * state = addProbe(state, {
 *   caseId: "c1", workflow: "customer_service", statePreview: "{}", records: [],
 *   latencyMs: 12, inputTokens: 800, error: null, attempts: 1,
 * }, 1000);
 * const lines = drawLive(state, { columns: 100, rows: 30 }, { now: 1000 });
 * if (lines.length !== 30) throw new Error("one line per row");
 * ```
 *
 * @module
 */
export {
  addProbe,
  createLiveState,
  type CreateLiveStateOptions,
  type LiveMeta,
  type LiveState,
  type MistakeBanner,
  type Probe,
  type TypeTally,
} from "./state.ts";
export type { MetricsSample, ServerLoad } from "./server_load.ts";
export { drawLive, type DrawOptions, type TerminalSize } from "./draw.ts";
export { type MonitorOptions, type MonitorResult, runMonitor } from "./monitor.ts";
