/**
 * The view: a local, read-only, offline web app over the run index and the run directories —
 * the runs (sortable, filterable, two ticked to compare, live progress of a running run), one run
 * (summary cards, charts, per-lane and per-question tables, thresholds, errors by kind, a decision
 * explorer paged in SQL), the paired comparison of two runs with the decisions that flipped, and
 * the same data as JSON under `/api/`.
 *
 * @example
 * ```ts ignore
 * import { startView } from "./mod.ts";
 * const view = await startView({ port: 0, dbPath: "runs/decibench.db", runsDir: "runs" });
 * console.log(view.url); // http://127.0.0.1:<port>
 * await view.close();
 * ```
 *
 * @module
 */
export { startView, type ViewOptions, type ViewServer } from "./serve.ts";
