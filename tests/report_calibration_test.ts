// End-to-end: the calibration section of a fitted `bench` run's reports (the default workflow:
// the fitted reference server, all 400 test cases) — the scorer profile, the Murphy decomposition
// against labels, the risk–coverage curve and thresholds, the temperature what-if — and the
// risk–coverage chart drawn by headless Chromium.
import assert from "node:assert/strict";
import { runScript } from "./bench_cli_helpers.ts";

const tmp = await Deno.makeTempDir({ prefix: "decibench-calibration-" });
const dir = `${tmp}/run`;
const bench = await runScript("bench.ts", ["--out", dir, "--no-db"]);
assert.equal(bench.code, 0, bench.stderr);
const md = await Deno.readTextFile(`${dir}/report.md`);
const html = await Deno.readTextFile(`${dir}/report.html`);

/** The Markdown table rows under a heading (up to the next heading). */
function rowsUnder(heading: string): string[][] {
  const start = md.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, heading);
  const end = md.indexOf("\n#", start + heading.length + 2);
  return md.slice(start, end < 0 ? undefined : end).split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| ---"))
    .slice(1)
    .map((l) => l.slice(2, -2).split(" | "));
}

Deno.test("report.md names every calibration estimator with its value and interval", () => {
  const rows = rowsUnder("## Calibration measures");
  assert.deepEqual(rows.map((r) => r[1]), [
    "ece_15",
    "ece_em",
    "ece_debiased",
    "ece_per_question",
    "mce",
    "brier_rel",
    "brier_res",
    "brier_unc",
    "aurc",
    "acc_at_50",
    "acc_at_80",
    "score_mae",
    "score_within_one",
  ]);
  for (const row of rows) {
    assert.match(row[2]!, /^\d+\.\d+%?$/, `${row[1]} value`);
    assert.match(row[3]!, /^\[-?\d/, `${row[1]} interval`);
    assert.ok(row[4]!.length > 30, `${row[1]} estimator`);
  }
  assert.match(md, /Nixon et al\. 2019/);
  assert.match(md, /Kumar, Liang & Ma 2019/);
  assert.match(md, /Murphy \(1973\)/);
});

Deno.test("report.md shows the scorer profile with decibench's conventions marked", () => {
  const rows = rowsUnder("### Scorer profile");
  assert.equal(rows.length, 14);
  assert.deepEqual(rows.filter((r) => r[3] === "decibench headline").map((r) => r[0]), [
    "accuracy",
    "KL",
    "Brier",
    "ECE",
  ]);
  assert.ok(rows.some((r) => r[1] === "per question, 15 bins"));
  assert.ok(rows.some((r) => r[1] === "pooled, floor 1e-9"));
});

Deno.test("report.md says the Murphy Brier is against labels, not gold distributions", () => {
  assert.match(md, /against labels\*\* — P\(yes\) against outcome 1 when the gold label is yes/);
  assert.match(
    md,
    /unlike the headline Brier, which compares the predicted distribution with the gold distribution/,
  );
  const rows = Object.fromEntries(
    rowsUnder("### Brier decomposition (yes/no questions, against labels)"),
  );
  // rel − res + unc is the label Brier (to the table's 4 decimals)
  assert.equal(rows["rel − res + unc"], rows["label Brier, mean (P(yes) − outcome)²"]);
  assert.equal(rows["decisions / distinct forecasts"], "600 / 600");
});

Deno.test("report.md gives a confidence threshold for each coverage", () => {
  const rows = rowsUnder("### Selective prediction (risk–coverage)");
  assert.deepEqual(rows.map((r) => r[0]), [
    "10.0%",
    "20.0%",
    "30.0%",
    "40.0%",
    "50.0%",
    "60.0%",
    "70.0%",
    "80.0%",
    "90.0%",
    "100.0%",
  ]);
  // answering more decisions never raises the threshold
  const thresholds = rows.map((r) => Number(r[1]));
  assert.deepEqual([...thresholds].sort((a, b) => b - a), thresholds);
  assert.equal(rows.at(-1)![3], "100.0%");
});

Deno.test("report.md shows the temperature what-if per question and pooled", () => {
  const rows = rowsUnder("### What a temperature would fix");
  assert.equal(rows.length, 21);
  const all = rows.at(-1)!;
  assert.equal(all[0], "all");
  assert.equal(all[2], "1000");
  // the fitted model is underconfident: a temperature below 1 lowers held-out ECE and NLL
  assert.ok(Number(all[4]) < Number(all[3]), `ECE ${all[3]} → ${all[4]}`);
  assert.ok(Number(all[6]) < Number(all[5]), `NLL ${all[5]} → ${all[6]}`);
  assert.ok(rows.slice(0, -1).every((r) => Number(r[1]) > 0 && Number(r[1]) < 1));
  assert.match(md, /never tempered/);
});

Deno.test("report.html draws the risk–coverage curve, and Chromium renders it", async () => {
  const figure = /<figure>(<svg[^]*?<\/svg>)<figcaption>Risk–coverage curve/.exec(html);
  assert.ok(figure, "risk–coverage figure");
  const svg = figure[1]!;
  assert.match(svg, /50%: accuracy \d+\.\d%/);
  assert.match(svg, /80%: accuracy \d+\.\d%/);
  const paths = [...svg.matchAll(/<path[^>]*\sd="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(paths.some((d) => (d.match(/L/g) ?? []).length >= 300), "a model line of many points");
  // Rendered alone in headless Chromium, the chart covers far more pixels than a blank page.
  const shoot = async (name: string, body: string): Promise<number> => {
    await Deno.writeTextFile(
      `${tmp}/${name}.html`,
      `<!doctype html><body style="margin:0;background:#fff">${body}</body>`,
    );
    const out = await new Deno.Command("chromium", {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        `--user-data-dir=${tmp}/chromium`,
        `--screenshot=${tmp}/${name}.png`,
        "--window-size=700,400",
        `file://${tmp}/${name}.html`,
      ],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(90_000),
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return (await Deno.stat(`${tmp}/${name}.png`)).size;
  };
  const blank = await shoot("blank", "");
  const chart = await shoot("chart", svg);
  assert.ok(chart > 4 * blank, `chart ${chart} bytes vs blank ${blank}`);
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(tmp, { recursive: true });
});
