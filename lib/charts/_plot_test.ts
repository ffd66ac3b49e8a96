import assert from "node:assert/strict";

Deno.test("loading Observable Plot puts back the globals d3 and Plot its builds set", async () => {
  const global = globalThis as Record<string, unknown>;
  const mine = { d3: Symbol("d3"), Plot: Symbol("Plot") };
  global.d3 = mine.d3;
  global.Plot = mine.Plot;
  try {
    // First loaded here: no other module of this test file imports it.
    const { Plot, renderPlot } = await import("./_plot.ts");
    assert.equal(global.d3, mine.d3);
    assert.equal(global.Plot, mine.Plot);
    const svg = renderPlot({ marks: [Plot.dot([{ x: 1, y: 2 }], { x: "x", y: "y" })] });
    assert.match(svg, /^<svg[^>]*>.*<circle/s);
  } finally {
    delete global.d3;
    delete global.Plot;
  }
});
