/**
 * Private: Observable Plot, and rendering a chart server-side into a linkedom document as SVG text
 * (no script, no network load), for the charts of the reports.
 *
 * Plot is loaded from the single-file builds its package and d3's publish (`dist/*.umd.min.js`,
 * found beside each package's entry point): two files instead of the few hundred modules of
 * their sources, which halves the time `report.html` waits for them (≈ 35–55 ms against
 * 60–105 ms, measured in fresh processes). The builds set the globals `d3` and `Plot`; whatever
 * the process had under those names is put back. Should the builds not be found, the sources are
 * imported instead.
 *
 * @module
 */
import type * as PlotModule from "@observablehq/plot";
import { parseHTML } from "linkedom/worker";

/** Observable Plot's API. */
export const Plot: typeof PlotModule = await loadPlot();

async function loadPlot(): Promise<typeof PlotModule> {
  const global = globalThis as Record<string, unknown>;
  const names = ["d3", "Plot"] as const;
  const saved = names.map((name) => [name, Object.hasOwn(global, name), global[name]] as const);
  for (const name of names) delete global[name];
  try {
    try {
      await import(builtBeside(import.meta.resolve("d3"), "../dist/d3.min.js"));
    } catch {
      // Not found: d3's module build serves Plot's as well.
      global.d3 = await import("d3");
    }
    await import(builtBeside(import.meta.resolve("@observablehq/plot"), "../dist/plot.umd.min.js"));
    const plot = global.Plot as typeof PlotModule | undefined;
    if (typeof plot?.plot === "function") return plot;
  } catch {
    // Not where the package publishes it: its sources below.
  } finally {
    for (const [name, had, value] of saved) {
      if (had) global[name] = value;
      else delete global[name];
    }
  }
  return await import("@observablehq/plot");
}

/** The file URL of `path` relative to a package's resolved entry point (a file URL). */
function builtBeside(entry: string, path: string): string {
  if (!entry.startsWith("file:")) throw new Error(`"${entry}" is not a file`);
  return new URL(path, entry).href;
}

type PlotDocument = NonNullable<PlotModule.PlotOptions["document"]>;

/** Renders a Plot chart to SVG text. */
export function renderPlot(options: PlotModule.PlotOptions): string {
  const window = parseHTML("<!doctype html><html><head></head><body></body></html>");
  const document = (window as unknown as { document: PlotDocument }).document;
  const node = Plot.plot({ ...options, document });
  return (node as unknown as { outerHTML: string }).outerHTML;
}
