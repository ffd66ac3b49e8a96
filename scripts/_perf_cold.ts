/**
 * Private to `deno task perf`: the cold cost of the report's charts in a fresh process. It loads
 * Observable Plot and linkedom (as `report.html` does, through `lib/charts`) and draws the
 * reliability diagram and the confidence histogram of 2,000 made-up decisions, then prints one
 * JSON line: `{"loadMs": …, "drawMs": …, "againMs": …}` (the load, the first drawing of both
 * charts, and the same drawing a second time, warm). With `--empty` it exits at once, printing
 * nothing: the wall time of that process is Deno's own start and exit.
 *
 * ```sh
 * deno run -A scripts/_perf_cold.ts [--empty]
 * ```
 *
 * @module
 */
import type { CalibrationInput } from "../lib/metrics/mod.ts";

if (Deno.args[0] === "--empty") Deno.exit(0);
const t0 = performance.now();
const charts = await import("../lib/charts/charts.ts");
const { reliabilityTable } = await import("../lib/metrics/mod.ts");
const t1 = performance.now();
// 2,000 decisions from a fixed linear congruential sequence: confidence in [0.25, 1), correct
// with that probability.
let seed = 12345;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const decisions: (CalibrationInput & { correct: boolean })[] = Array.from({ length: 2000 }, () => {
  const confidence = 0.25 + 0.75 * next();
  return { confidence, correct: next() < confidence };
});
function draw(): number {
  const started = performance.now();
  charts.reliabilityChart(reliabilityTable(decisions));
  charts.confidenceHistogram(decisions);
  return performance.now() - started;
}
const drawMs = draw();
const againMs = draw();
console.log(JSON.stringify({ loadMs: t1 - t0, drawMs, againMs }));
