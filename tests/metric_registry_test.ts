/**
 * A metric registered as one definition shows up everywhere: `nll` (lib/metrics/headline.ts) in
 * the terminal report, report.md, report.html, run.json, the SQLite index and a workflow threshold.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readRunJson, runScript } from "./bench_cli_helpers.ts";

const MOD = pathToFileURL(join(import.meta.dirname as string, "..", "mod.ts")).href;

async function workflowFile(dir: string, thresholds: string): Promise<string> {
  const file = join(dir, "nll.ts");
  await Deno.writeTextFile(
    file,
    `import { defineWorkflow } from "${MOD}";
export default defineWorkflow({
  name: "nll",
  endpoint: { reference: { predictor: "fitted" }, model: "decibench-reference" },
  parallel: 4,
  thresholds: ${thresholds},
});
`,
  );
  return file;
}

Deno.test("`nll` appears in the terminal, report.md, report.html, run.json, the index and thresholds", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const file = await workflowFile(
      tmp,
      '[{ metric: "nll", op: "<=", limit: 1.2 }, { metric: "nll", op: ">", limit: 5 }]',
    );
    const out = join(tmp, "run");
    const db = join(tmp, "index.db");
    const r = await runScript("bench.ts", [file, "--limit", "20", "--out", out, "--db", db]);
    const run = await readRunJson(out);
    const nll = run.summary?.metrics.nll;
    assert.ok(typeof nll === "number" && nll > 0 && nll < 1.2, `nll ${nll}`);
    const interval = run.summary?.intervals.nll;
    assert.ok(interval && interval[0] <= nll && nll <= interval[1], `interval ${interval}`);

    // Thresholds: one passes, one fails, so the exit status is 1.
    assert.deepEqual(run.thresholds.map((t) => [t.metric, t.value, t.pass]), [
      ["nll", nll, true],
      ["nll", nll, false],
    ]);
    assert.equal(r.code, 1, r.stderr);

    const text = r.lines.join("\n");
    assert.match(text, new RegExp(`NLL +${nll.toFixed(3)} \\[`));
    assert.match(text, /threshold +nll <= 1\.2: \d\.\d{3} pass/);
    const md = await Deno.readTextFile(join(out, "report.md"));
    assert.match(md, new RegExp(`\\| NLL, −ln p\\(gold label\\), nats \\| ${nll.toFixed(3)} \\|`));
    assert.match(
      md,
      /\| group \| n \| labelled \| accuracy \| 95% CI \| KL \| Brier \| ECE \| NLL \| errors \|/,
    );
    const html = await Deno.readTextFile(join(out, "report.html"));
    assert.match(html, new RegExp(`NLL, −ln p\\(gold label\\), nats.*?${nll.toFixed(3)}`, "s"));

    const index = new DatabaseSync(db, { readOnly: true });
    try {
      const row = index.prepare("SELECT nll FROM runs WHERE id = ?").get(run.id) as { nll: number };
      assert.equal(row.nll, nll);
    } finally {
      index.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a threshold on a metric the registry does not know is refused, naming the known ones", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const file = await workflowFile(tmp, '[{ metric: "nlll", op: "<=", limit: 1 }]');
    const r = await runScript("bench.ts", [file, "--limit", "1", "--out", join(tmp, "run")]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /thresholds\.0\.metric/);
    assert.match(r.stderr, /"nll"/);
    await assert.rejects(Deno.stat(join(tmp, "run")), Deno.errors.NotFound, "no run directory");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
