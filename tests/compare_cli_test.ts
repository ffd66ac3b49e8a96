// End-to-end: `deno task compare` on a run against the uniform predictor and a run against the
// oracle (two real reference servers over loopback, two real `bench` subprocesses).
import assert from "node:assert/strict";
import { pairedComparison } from "../lib/metrics/mod.ts";
import { inCaseOrder, readDecisions } from "../lib/record/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { readRunJson, runScript, writeWorkflow } from "./bench_cli_helpers.ts";

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

Deno.test("`compare` prints both accuracies, the paired difference with its interval and McNemar counts, and refuses another dataset revision", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-compare-" });
  await using uniform = await startReferenceServer({ predictor: "uniform" });
  await using oracle = await startReferenceServer({ predictor: "oracle" });
  try {
    const workflow = await writeWorkflow(tmp);
    const a = `${tmp}/uniform`;
    const b = `${tmp}/oracle`;
    for (const [dir, server] of [[a, uniform], [b, oracle]] as const) {
      const run = await runScript("bench.ts", [
        workflow,
        "--base-url",
        server.url,
        "--limit",
        "100",
        "--out",
        dir,
        "--no-db",
      ]);
      assert.equal(run.code, 0, run.stderr);
    }
    // Compared by case id, whatever order each run's cases were answered in.
    const expected = pairedComparison(
      inCaseOrder(await readDecisions(`${a}/decisions.jsonl`)),
      inCaseOrder(await readDecisions(`${b}/decisions.jsonl`)),
    );
    const runA = await readRunJson(a);
    const runB = await readRunJson(b);

    await t.step("text output", async () => {
      const out = await runScript("compare.ts", [a, b]);
      assert.equal(out.code, 0, out.stderr);
      const text = out.lines.join("\n");
      assert.match(text, /500 shared decisions in 100 cases/);
      assert.ok(text.includes(`A  ${runA.id}`));
      assert.ok(text.includes(`B  ${runB.id}`));
      const accuracy = text.split("\n").find((l) => l.startsWith("accuracy "));
      assert.ok(accuracy?.includes(pct(expected.accuracyA!)), accuracy);
      assert.ok(accuracy?.includes(pct(expected.accuracyB!)), accuracy);
      const diff = `+${(expected.difference! * 100).toFixed(1)} points [+${
        (expected.interval![0] * 100).toFixed(1)
      }, +${(expected.interval![1] * 100).toFixed(1)}]`;
      assert.ok(text.includes(`accuracy difference (B − A): ${diff}`), text);
      const m = expected.mcnemar;
      assert.ok(
        text.includes(`McNemar: only A right ${m.onlyA}, only B right ${m.onlyB}`),
        text,
      );
      assert.ok(m.onlyB > 300 && m.onlyA === 0, "the oracle wins every discordant decision");
      assert.match(text, /exact p = \d\.\de-\d+/);
      assert.match(text, /\nBy workflow\n/);
      assert.match(text, /agent_trace_observability\/action +100 /);
      const md = await Deno.readTextFile(`${b}/compare.md`);
      assert.match(md, /^# decibench comparison/);
      assert.ok(md.includes(`accuracy difference (B − A): ${diff}`));
      assert.match(md, /## By question\n/);
    });

    await t.step("--json prints one event line", async () => {
      const out = await runScript("compare.ts", [a, b, "--json", "--out", `${tmp}/c.md`]);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.lines.length, 1);
      const event = JSON.parse(out.lines[0]!);
      assert.equal(event.event, "comparison");
      assert.deepEqual(event.paired.mcnemar, expected.mcnemar);
      assert.equal(event.a.summary.metrics.accuracy, expected.accuracyA);
      assert.ok(event.b.summary.metrics.kl < 1e-9, "the oracle answers the gold distributions");
      assert.ok((await Deno.stat(`${tmp}/c.md`)).isFile);
    });

    await t.step("runs on another dataset revision are refused", async () => {
      const other = `${tmp}/other`;
      await Deno.mkdir(other);
      await Deno.copyFile(`${a}/decisions.jsonl`, `${other}/decisions.jsonl`);
      const run = await readRunJson(a);
      (run.spec as { revision: string }).revision = "0123456789abcdef0123456789abcdef01234567";
      await Deno.writeTextFile(`${other}/run.json`, JSON.stringify(run));
      const out = await runScript("compare.ts", [other, b]);
      assert.equal(out.code, 2);
      assert.match(
        out.stderr,
        /Cannot compare runs ".*" and ".*": they used different dataset revisions/,
      );
      assert.match(out.stderr, /0123456789ab/);
      assert.equal(out.lines.length, 0);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
