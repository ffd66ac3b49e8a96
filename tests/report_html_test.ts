// End-to-end: the reports of a real `bench` run. report.html is one self-contained file with its
// Observable Plot charts inline and renders in headless Chromium (Debian's `chromium`, installed
// by scripts/test_deps.sh); report.md has every section docs/reports.md names.
import assert from "node:assert/strict";
import { runScript } from "./bench_cli_helpers.ts";
import { decodePng } from "./png_helpers.ts";

Deno.test("a `bench` run's report.html is self-contained with its charts and renders in headless Chromium; report.md has every section", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-report-" });
  try {
    const dir = `${tmp}/run`;
    const bench = await runScript("bench.ts", ["--out", dir, "--no-db"]);
    assert.equal(bench.code, 0, bench.stderr);
    const html = await Deno.readTextFile(`${dir}/report.html`);

    await t.step("report.html holds its charts inline and loads nothing", () => {
      const svgs = html.match(/<svg\b/g) ?? [];
      assert.ok(svgs.length >= 4, `expected the charts as inline SVG, found ${svgs.length}`);
      for (
        const chart of [
          "Reliability diagram",
          "Accuracy by workflow with 95% intervals",
          "Accuracy by question type with 95% intervals",
          "Confidence histogram",
        ]
      ) assert.ok(html.includes(chart), chart);
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<link\b/i);
      assert.doesNotMatch(html, /<(img|iframe|object|embed|video|audio|source)\b/i);
      assert.doesNotMatch(html, /\bsrc\s*=/i);
      assert.doesNotMatch(html, /url\(\s*['"]?(https?:)?\/\//i);
      assert.doesNotMatch(html, /@import/i);
      for (const workflow of ["customer_service", "invoice_processing", "security_incidents"]) {
        assert.ok(html.includes(workflow), workflow);
      }
    });

    await t.step("report.html renders in headless Chromium", async () => {
      const png = `${tmp}/report.png`;
      const out = await new Deno.Command("chromium", {
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          `--user-data-dir=${tmp}/chromium`,
          `--screenshot=${png}`,
          "--window-size=1200,2000",
          `file://${dir}/report.html`,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(90_000),
      }).output().catch((error) => {
        throw new Error(
          `Cannot run chromium: ${error.message}; install it with apt-get install -y chromium (scripts/test_deps.sh does)`,
        );
      });
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const image = await decodePng(await Deno.readFile(png));
      assert.equal(image.width, 1200);
      assert.equal(image.height, 2000);
      assert.ok(image.colours > 50, `only ${image.colours} colours: blank page?`);
      assert.ok(image.inked > 0.03, `only ${(image.inked * 100).toFixed(2)}% of pixels drawn`);
      assert.ok(image.spread > 10, `luminance spread ${image.spread.toFixed(1)}`);
    });

    await t.step(
      "report.md has every section, with both distributions in option order",
      async () => {
        const md = await Deno.readTextFile(`${dir}/report.md`);
        for (
          const section of [
            "## Headline",
            "## By question type",
            "## By workflow",
            "## By question",
            "## Calibration",
            "## Latency and tokens",
            "## Most confident disagreements with gold",
            "## Trace",
            "## Data",
          ]
        ) assert.ok(md.includes(`\n${section}\n`), section);
        assert.match(md, /\| rating \| ★{1,3} \|/);
        assert.match(md, /\| accuracy \| \d+\.\d% \| \[\d+\.\d, \d+\.\d\] \|/);
        assert.match(md, /not comparable with the card's ECE column/);
        assert.match(md, /<details><summary>/);
        assert.match(
          md,
          /Typed Decisions \(LocalLLaMA\/typed-decisions, revision e039ebf, Apache-2\.0\)/,
        );
        // Each traced decision: the predicted and gold lines list the same options in the same order.
        const trace = md.slice(md.indexOf("## Trace"));
        const pred = [...trace.matchAll(/^ {4}pred (.*)$/gm)].map((m) => m[1]!);
        const gold = [...trace.matchAll(/^ {4}gold (.*)$/gm)].map((m) => m[1]!);
        assert.equal(pred.length, 2000);
        assert.equal(gold.length, 2000);
        const keys = (line: string) => line.split(" ").map((kv) => kv.split("=")[0]);
        for (let i = 0; i < pred.length; i++) assert.deepEqual(keys(pred[i]!), keys(gold[i]!));
      },
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
