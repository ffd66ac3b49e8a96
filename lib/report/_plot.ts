/**
 * Private: renders an Observable Plot chart server-side into a linkedom document and returns
 * its SVG text (no script, no network load), for the charts of the calibration section.
 *
 * @module
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";

type PlotDocument = NonNullable<Plot.PlotOptions["document"]>;

/** Renders a Plot chart to SVG text. */
export function renderPlot(options: Plot.PlotOptions): string {
  const window = parseHTML("<!doctype html><html><head></head><body></body></html>");
  const document = (window as unknown as { document: PlotDocument }).document;
  const node = Plot.plot({ ...options, document });
  return (node as unknown as { outerHTML: string }).outerHTML;
}
