// The quick-run and fault-tolerance flags as a user meets them: `bench --sample N --seed S` (a
// seeded draw stratified by lane, recorded and reused by --resume), `--timeout` and `--retries` on
// bench, gate and live, `gate --resume` after faults, and `sweep --labels` on the gate's own
// output. Real scripts, the embedded reference server over loopback, temp directories.
import assert from "node:assert/strict";
import { join } from "node:path";
import { readDecisions } from "../lib/record/mod.ts";
import { drawSample } from "../lib/workflow/sample.ts";
import { readRunJson, runScript } from "./bench_cli_helpers.ts";
import { ticketRows, writeCsv, writeTicketWorkflow } from "./_ticket_set.ts";

async function caseIds(dir: string): Promise<string[]> {
  return [...new Set((await readDecisions(join(dir, "decisions.jsonl"))).map((d) => d.case))]
    .sort();
}

Deno.test("bench --sample draws a seeded sample stratified by lane, records it and reuses it on --resume", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-sample-" });
  try {
    const rows = await ticketRows(200);
    await writeCsv(join(dir, "tickets.csv"), rows);
    const workflow = await writeTicketWorkflow(dir, { questions: "urgent" });
    const lanes = new Set(rows.map((r) => r.channel));
    assert.equal(lanes.size, 4);
    const bench = (out: string, ...args: string[]) =>
      runScript("bench.ts", [workflow, ...args, "--out", join(dir, out), "--no-db"]);

    await t.step("8 cases with seed 5: every lane kept, recorded in run.json", async () => {
      const r = await bench("s5", "--sample", "8", "--seed", "5");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /: 8 cases \(a sample of 200, seed 5, stratified by lane\)/);
      const run = await readRunJson(join(dir, "s5"));
      assert.deepEqual(run.spec.sample, { size: 8, seed: 5, population: 200 });
      assert.equal(run.spec.cases, 8);
      const ids = await caseIds(join(dir, "s5"));
      assert.equal(ids.length, 8);
      const laneOf = new Map(rows.map((r) => [r.ticket_id, r.channel]));
      assert.equal(new Set(ids.map((id) => laneOf.get(id))).size, 4, "each lane keeps a case");
      // The same draw as the library's, on the same population.
      const expected = drawSample(rows.map((r) => ({ id: r.ticket_id!, lane: r.channel! })), {
        size: 8,
        seed: 5,
      });
      assert.deepEqual(ids, [...expected].sort());
      assert.notDeepEqual(ids, rows.slice(0, 8).map((r) => r.ticket_id).sort(), "not the first 8");
    });
    await t.step("the same seed draws the same cases; another seed others", async () => {
      assert.equal((await bench("s5b", "--sample", "8", "--seed", "5")).code, 0);
      assert.deepEqual(await caseIds(join(dir, "s5b")), await caseIds(join(dir, "s5")));
      assert.equal((await bench("s6", "--sample", "8", "--seed", "6")).code, 0);
      assert.notDeepEqual(await caseIds(join(dir, "s6")), await caseIds(join(dir, "s5")));
    });
    await t.step("--resume re-uses the sample: the same cases, finished", async () => {
      const faulty = await writeTicketWorkflow(dir, {
        name: "faulty.yaml",
        questions: "urgent",
        faults: "malformed=0.5",
      });
      const out = join(dir, "faulty");
      const first = await runScript("bench.ts", [
        faulty,
        "--sample",
        "12",
        "--seed",
        "2",
        "--out",
        out,
        "--no-db",
      ]);
      assert.equal(first.code, 1, "malformed answers leave the run incomplete");
      const before = await readRunJson(out);
      assert.equal(before.status, "incomplete");
      const resumed = await runScript("bench.ts", ["--resume", out, "--no-db"]);
      assert.notEqual(resumed.code, 2, resumed.stderr);
      const after = await readRunJson(out);
      assert.deepEqual(after.spec.sample, { size: 12, seed: 2, population: 200 });
      assert.equal(after.spec.case_ids_sha256, before.spec.case_ids_sha256);
      assert.deepEqual(
        await caseIds(out),
        [...drawSample(rows.map((r) => ({ id: r.ticket_id!, lane: r.channel! })), {
          size: 12,
          seed: 2,
        })].sort(),
      );
    });
    await t.step("gate --sample draws the same cases as bench", async () => {
      const out = join(dir, "gate");
      const r = await runScript("gate.ts", [
        workflow,
        "--question",
        "urgent",
        "--sample",
        "8",
        "--seed",
        "5",
        "--out",
        out,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const ids = (await Deno.readTextFile(join(out, "gate.jsonl"))).trim().split("\n")
        .map((l) => JSON.parse(l).id).sort();
      assert.deepEqual(ids, await caseIds(join(dir, "s5")));
      const gate = JSON.parse(await Deno.readTextFile(join(out, "gate.json")));
      assert.deepEqual(gate.sample, { size: 8, seed: 5 });
    });
    await t.step("--sample with --limit, and --seed alone, are usage errors", async () => {
      const both = await bench("x", "--sample", "3", "--limit", "3");
      assert.equal(both.code, 2);
      assert.match(both.stderr, /Cannot use --limit with --sample/);
      const seed = await bench("x", "--seed", "3");
      assert.equal(seed.code, 2);
      assert.match(seed.stderr, /Cannot use --seed without --sample/);
      const zero = await bench("x", "--sample", "0");
      assert.equal(zero.code, 2);
      assert.match(zero.stderr, /Cannot use --sample "0": it is too small/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--timeout and --retries: recorded by bench, checked on bench, gate and live", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-timeout-" });
  try {
    await writeCsv(join(dir, "tickets.csv"), await ticketRows(5));
    const workflow = await writeTicketWorkflow(dir, { questions: "urgent" });
    await t.step("bench records them in run.json's spec", async () => {
      const out = join(dir, "r");
      const r = await runScript("bench.ts", [
        workflow,
        "--timeout",
        "2.5",
        "--retries",
        "0",
        "--out",
        out,
        "--no-db",
      ]);
      assert.equal(r.code, 0, r.stderr);
      const run = await readRunJson(out);
      assert.equal(run.spec.timeout_ms, 2500);
      assert.equal(run.spec.retries, 0);
    });
    for (const script of ["bench.ts", "gate.ts", "live.ts"]) {
      await t.step(`${script} refuses a bad value with exit 2`, async () => {
        const extra = script === "gate.ts" ? ["--question", "urgent"] : [];
        for (
          const [flag, value, message] of [
            ["--timeout", "0", /Cannot use --timeout "0": it is zero/],
            ["--timeout", "-3", /Cannot use --timeout "-3": it is negative/],
            ["--timeout", "soon", /Cannot use --timeout "soon": it is not a number/],
            [
              "--retries",
              "11",
              /Cannot use --retries "11": it is too large; give a whole number from 0 to 10/,
            ],
            ["--retries", "1.5", /Cannot use --retries "1.5": it is not a whole number/],
          ] as const
        ) {
          const r = await runScript(
            script,
            [workflow, ...extra, flag, value, "--no-db"].filter((a) =>
              script === "bench.ts" || a !== "--no-db"
            ),
          );
          assert.equal(r.code, 2, `${script} ${flag} ${value}: ${r.stderr}`);
          assert.match(r.stderr, message);
        }
      });
    }
    await t.step("gate and live take them", async () => {
      const gate = await runScript("gate.ts", [
        workflow,
        "--question",
        "urgent",
        "--timeout",
        "30",
        "--retries",
        "1",
        "--out",
        join(dir, "g"),
      ]);
      assert.equal(gate.code, 0, gate.stderr);
      const live = await runScript("live.ts", [
        "--probes",
        "1",
        "--interval",
        "0",
        "--timeout",
        "30",
        "--retries",
        "1",
      ]);
      assert.equal(live.code, 0, live.stderr);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gate --resume asks only the undecided cases again, and sweep --labels reads the gate's output", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-gate-" });
  try {
    await writeCsv(join(dir, "tickets.csv"), await ticketRows(40));
    const workflow = await writeTicketWorkflow(dir, {
      questions: "urgent",
      faults: "http503=0.3",
    });
    const out = join(dir, "gate");
    const read = async () =>
      (await Deno.readTextFile(join(out, "gate.jsonl"))).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
    const first = await runScript("gate.ts", [
      workflow,
      "--question",
      "urgent",
      "--threshold",
      "0.4",
      "--retries",
      "0",
      "--out",
      out,
    ]);
    assert.equal(first.code, 1, "503s with no retries leave cases undecided");
    let records = await read();
    let undecided = records.filter((r) => r.verdict === "undecided").length;
    assert.ok(undecided > 0 && undecided < 40, `undecided ${undecided}`);
    assert.match(first.stderr, new RegExp(`${undecided} of 40 cases are undecided`));
    assert.match(first.stderr, /finish it when the endpoint answers with: .*gate --resume /);

    await t.step(
      "each --resume asks the undecided cases only and keeps every verdict",
      async () => {
        for (let round = 0; undecided > 0 && round < 10; round++) {
          const decided = records.filter((r) => r.verdict !== "undecided");
          const r = await runScript("gate.ts", ["--resume", out, "--json", "--retries", "0"]);
          assert.ok(r.code === 0 || r.code === 1, r.stderr);
          const asked = r.lines.map((l) => JSON.parse(l)).filter((e) => e.event === "gate");
          assert.equal(asked.length, undecided, "one request per undecided case");
          const summary = JSON.parse(r.lines.at(-1)!);
          assert.equal(summary.resumed, undecided);
          assert.equal(summary.cases, 40);
          records = await read();
          assert.equal(records.length, 40);
          for (const kept of decided) {
            assert.deepEqual(
              records.find((x) => x.id === kept.id),
              kept,
              "a decided verdict is kept",
            );
          }
          undecided = records.filter((x) => x.verdict === "undecided").length;
        }
        assert.equal(undecided, 0);
      },
    );
    await t.step("a resume with another bar is refused", async () => {
      const r = await runScript("gate.ts", ["--resume", out, "--threshold", "0.9"]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /Cannot resume the gate in .*threshold was 0\.4, now 0\.9/);
    });
    await t.step("sweep --labels gate.jsonl sweeps its labelled verdicts", async () => {
      const r = await runScript("sweep.ts", ["--labels", join(out, "gate.jsonl"), "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const sweep = JSON.parse(r.lines.join("\n"));
      const labelled = records.filter((x) => x.label !== null && x.p_yes !== null).length;
      const overall = sweep.overall;
      assert.equal(overall.n, labelled);
      assert.equal(sweep.unlabelled, records.filter((x) => x.label === null).length);
      const lanes = new Set(records.map((x) => x.lane));
      assert.deepEqual(new Set(sweep.lanes.map((l: { lane: string }) => l.lane)), lanes);
      const fromDir = await runScript("sweep.ts", ["--labels", out, "--json"]);
      assert.equal(fromDir.code, 0, fromDir.stderr);
      assert.equal(JSON.parse(fromDir.lines.join("\n")).overall.n, labelled);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
