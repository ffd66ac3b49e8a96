import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { breakdown, type BreakdownRow, type ReliabilityRow } from "../metrics/mod.ts";
import { record } from "../../tests/records_fixtures.ts";
import { accuracyChart, confidenceHistogram, reliabilityChart } from "./charts.ts";

// Okabe & Ito's palette, distinguishable with every common form of colour blindness.
const OKABE_ITO = [
  "#000000",
  "#e69f00",
  "#56b4e9",
  "#009e73",
  "#f0e442",
  "#0072b2",
  "#d55e00",
  "#cc79a7",
];

/** The part of linkedom's DOM the tests read. */
interface Element {
  getAttribute(name: string): string | null;
  readonly parentElement: Element | null;
  readonly textContent: string | null;
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): Iterable<Element>;
}

function svgOf(text: string): Element {
  const window = parseHTML(`<!doctype html><html><body>${text}</body></html>`);
  const { document } = window as unknown as { document: Element };
  const svg = document.querySelector("svg");
  if (!svg) throw new Error("no svg");
  return svg;
}

/** The font size every text of the chart is drawn at: its own, else the root's inline style. */
function fontSizes(svg: Element): number[] {
  const root = /font-size:\s*([\d.]+)px/.exec(svg.getAttribute("style") ?? "")?.[1] ??
    svg.getAttribute("font-size");
  const sizes: number[] = [];
  for (const text of svg.querySelectorAll("text")) {
    let size: string | null = null;
    for (let node: Element | null = text; node && node !== svg; node = node.parentElement) {
      size = node.getAttribute("font-size");
      if (size !== null) break;
    }
    sizes.push(Number(size ?? root));
  }
  return sizes;
}

const reliability: ReliabilityRow[] = [
  { bin: 2, lower: 0.2, upper: 0.3, n: 7, meanConfidence: 0.25, accuracy: 0.05, gap: -0.2 },
  { bin: 5, lower: 0.5, upper: 0.6, n: 300, meanConfidence: 0.55, accuracy: 0.6, gap: 0.05 },
  { bin: 9, lower: 0.9, upper: 1.0, n: 1200, meanConfidence: 0.95, accuracy: 1, gap: 0.05 },
];

const groups: BreakdownRow[] = breakdown(
  ["customer_service", "security_incidents"].flatMap((workflow) =>
    [0, 1, 2].map((i) => record({ case: `${workflow}-${i}`, workflow }))
  ),
  "workflow",
  { resamples: 20 },
);

Deno.test("chart text, tick labels included, is at least 11 px", () => {
  const charts = {
    reliability: reliabilityChart(reliability),
    accuracy: accuracyChart(groups),
    histogram: confidenceHistogram([{ confidence: 0.7, correct: true }]),
  };
  for (const [name, text] of Object.entries(charts)) {
    const sizes = fontSizes(svgOf(text));
    assert.ok(sizes.length > 5, name);
    for (const size of sizes) assert.ok(size >= 11, `${name}: text at ${size} px`);
  }
});

Deno.test("the confidence histogram colours correct and wrong from a colour-blind-safe palette", () => {
  const svg = confidenceHistogram([
    { confidence: 0.72, correct: true },
    { confidence: 0.71, correct: false },
  ]);
  const fills = new Set(
    [...svg.matchAll(/fill="(#[0-9a-f]{6})"/gi)].map((m) => m[1]!.toLowerCase()),
  );
  assert.equal(fills.size, 2, [...fills].join(" "));
  for (const fill of fills) assert.ok(OKABE_ITO.includes(fill), fill);
  assert.ok(!svg.includes("#2f8f5b") && !svg.includes("#c8553d"), "not red against green");
});

Deno.test("reliability `n=` labels never overlap the dots", () => {
  const svg = svgOf(reliabilityChart(reliability));
  const translate = (el: Element) =>
    /translate\(([-\d.]+),([-\d.]+)\)/.exec(el.getAttribute("transform") ?? "")?.slice(1).map(
      Number,
    ) ?? [0, 0];
  const labels = [...svg.querySelectorAll("text")].filter((t) => t.textContent?.startsWith("n="));
  assert.equal(labels.length, 3);
  const dots = [...svg.querySelectorAll("circle")].map((c) => ({
    cx: Number(c.getAttribute("cx")),
    cy: Number(c.getAttribute("cy")),
    r: Number(c.getAttribute("r")),
  }));
  assert.equal(dots.length, 3);
  for (const label of labels) {
    // The label's box: its anchor point, shifted by its group's dy, ± half the font size.
    const [x, y] = translate(label);
    const group = label.parentElement as Element;
    const [dx, dy] = translate(group);
    const size = 11;
    const width = (label.textContent ?? "").length * size * 0.6;
    const box = {
      left: x! + dx! - width / 2,
      right: x! + dx! + width / 2,
      top: y! + dy! - size,
      bottom: y! + dy! + size / 2,
    };
    for (const d of dots) {
      const apart = box.right < d.cx - d.r || box.left > d.cx + d.r || box.bottom < d.cy - d.r ||
        box.top > d.cy + d.r;
      assert.ok(
        apart,
        `${label.textContent} at (${x! + dx!}, ${
          y! + dy!
        }) meets a dot at (${d.cx}, ${d.cy}) r ${d.r}`,
      );
    }
  }
});
