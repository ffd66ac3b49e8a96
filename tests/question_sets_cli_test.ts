// The invoices example as a new user runs it (bench → gate → sweep), against the embedded
// reference server and against `deno task serve`, and bad question-set files refused with one
// message each, exit 2, nothing sent.
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadDataset } from "../lib/dataset/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { readRunJson, ROOT, runScript, startServe } from "./bench_cli_helpers.ts";

const WORKFLOW = "examples/invoices/workflow.ts";
/** Each question's first option: what `uniform` predicts (a tie goes to the first listed). */
const FIRST: Record<string, string> = {
  discrepancy_severity: "0",
  disposition: "approve",
  duplicate: "true",
  matches_order: "true",
  urgency: "0",
};
/** Options per question. */
const K: Record<string, number> = {
  discrepancy_severity: 4,
  disposition: 4,
  duplicate: 2,
  matches_order: 2,
  urgency: 4,
};

/** The uniform figures by hand: share of labels that are the first option, ln K, 1 − 1/K. */
async function handFigures(): Promise<{ accuracy: number; kl: number; brier: number }> {
  const { cases } = await loadDataset({ split: "train" });
  const invoices = cases.filter((c) => c.workflow === "invoice_processing");
  let first = 0;
  let kl = 0;
  let brier = 0;
  let n = 0;
  for (const c of invoices) {
    for (const q of Object.keys(FIRST)) {
      n++;
      if (c.gold[q]?.label === FIRST[q]) first++;
      kl += Math.log(K[q]!);
      brier += 1 - 1 / K[q]!;
    }
  }
  return { accuracy: first / n, kl: kl / n, brier: brier / n };
}

async function threeCommands(t: Deno.TestContext, baseUrl: string[]): Promise<void> {
  const hand = await handFigures();
  const out = await Deno.makeTempDir();
  const runDir = join(out, "bench");
  await t.step("bench: uniform's figures equal the hand computation; the bar fails", async () => {
    const r = await runScript("bench.ts", [WORKFLOW, ...baseUrl, "--out", runDir, "--no-db"]);
    assert.equal(r.code, 1, `a failed threshold exits 1: ${r.stderr}`);
    const run = await readRunJson(runDir);
    const summary = run.summary as { decisions: number; metrics: Record<string, number> };
    const s = { decisions: summary.decisions, ...summary.metrics } as Record<string, number>;
    assert.equal(run.status, "completed");
    assert.equal(s.decisions, 1500);
    assert.equal(s.accuracy, hand.accuracy);
    assert.equal(s.accuracy, 430 / 1500);
    assert.ok(Math.abs(s.kl! - hand.kl) < 1e-12, `KL ${s.kl} vs ${hand.kl}`);
    assert.ok(Math.abs(s.brier! - hand.brier) < 1e-12, `Brier ${s.brier} vs ${hand.brier}`);
    assert.ok(Math.abs(s.nll! - hand.kl) < 1e-12, "with hard labels NLL equals KL: −ln p(label)");
    const stdout = r.lines.join("\n");
    assert.match(stdout, /rating +none \(not the Typed Decisions card protocol\)/);
    assert.match(
      stdout,
      /threshold +accuracy \(question matches_order, lower bound\) >= 0\.85: 0\.\d+ \(estimate 0\.497\) FAIL/,
    );
    assert.match(
      stdout,
      /data +examples\/invoices\/invoices\.csv \(300 rows, sha256 [0-9a-f]{12}\)/,
    );
  });
  await t.step(
    "gate: 300 verdicts; P(yes) 0.5 fails the default bar and passes a 0.5 bar",
    async () => {
      const gateDir = join(out, "gate");
      const r = await runScript("gate.ts", [
        WORKFLOW,
        "--question",
        "matches_order",
        ...baseUrl,
        "--out",
        gateDir,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const lines = (await Deno.readTextFile(join(gateDir, "gate.jsonl"))).trim().split("\n").map((
        l,
      ) => JSON.parse(l));
      assert.equal(lines.length, 300);
      assert.deepEqual(Object.keys(lines[0]), [
        "id",
        "lane",
        "p_yes",
        "verdict",
        "label",
        "error",
        "provenance",
      ]);
      assert.ok(lines.every((l) => l.p_yes === 0.5 && l.verdict === "fail"));
      assert.deepEqual(lines[0].provenance, {
        kind: "atomic-decision",
        model: "default",
        response_id: null,
        cost: null,
        threshold: 0.7,
        calibrated: false,
      });
      const stdout = r.lines.join("\n");
      assert.match(
        stdout,
        /bar P\(yes\) ≥ 0\.70 \(the default, uncalibrated\); 300 cases, 0 undecided/,
      );
      assert.match(
        stdout,
        /overdue +85 +0 +85 +0 +85 +52\.9% \(45\/85\) +0\.0% \(0\/45\) +100\.0% \(40\/40\) +6\.4%/,
      );
      assert.match(stdout, /\(overall\) +300 +0 +300 +0 +300 +50\.3% \(151\/300\)/);
      const at = join(out, "gate-0.5");
      const r2 = await runScript("gate.ts", [
        WORKFLOW,
        "--question",
        "matches_order",
        "--threshold",
        "0.5",
        "--calibrated",
        ...baseUrl,
        "--out",
        at,
      ]);
      assert.equal(r2.code, 0, r2.stderr);
      const passed = (await Deno.readTextFile(join(at, "gate.jsonl"))).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.ok(passed.every((l) => l.verdict === "pass" && l.provenance.calibrated === true));
    },
  );
  await t.step("sweep: per lane and question of the user run", async () => {
    const r = await runScript("sweep.ts", [runDir]);
    assert.equal(r.code, 0, r.stderr);
    const stdout = r.lines.join("\n");
    assert.match(stdout, /Threshold sweep of 600 labelled yes\/no items/);
    for (
      const lane of [
        "overdue/duplicate",
        "overdue/matches_order",
        "scheduled/duplicate",
        "scheduled/matches_order",
      ]
    ) {
      assert.match(stdout, new RegExp(`^${lane.replace("/", "\\/")} `, "m"));
    }
  });
}

Deno.test("the invoices example: bench → gate → sweep against the embedded reference server", async (t) => {
  await threeCommands(t, []);
});

Deno.test("the invoices example: bench → gate → sweep against `deno task serve`", async (t) => {
  const serve = await startServe(["--port", "0"]);
  try {
    await threeCommands(t, ["--base-url", serve.url]);
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
  }
});

Deno.test("bad question-set files: one message naming file, line and field, exit 2, nothing sent", async (t) => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const dir = await Deno.makeTempDir();
  const header = "ticket_id,body,queue,is_urgent,team,mood\n";
  const good = "T-1,Refund,billing,yes,billing,2\nT-2,Parcel?,shipping,no,shipping,1\n";
  const jsonl = (rows: Record<string, unknown>[]) =>
    rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const row = { ticket_id: "a", body: "x", queue: "q", is_urgent: true, team: "billing", mood: 0 };
  const cases: [string, string, string | Uint8Array, RegExp][] = [
    [
      "a label that is not an option",
      "label.csv",
      header + good + "T-3,Hello,billing,yes,sales,0\n",
      /^decibench: \S+label\.csv:4: field "team": "sales" is not an option \(billing, shipping\)$/,
    ],
    [
      "a duplicated id",
      "dup.jsonl",
      jsonl([row, { ...row, body: "y" }]),
      /^decibench: \S+dup\.jsonl:2: field "ticket_id": "a" repeats the id of line 1; ids must be unique$/,
    ],
    [
      "a missing state field",
      "state.jsonl",
      jsonl([row, { ticket_id: "b", queue: "q", is_urgent: false, team: "shipping", mood: 1 }]),
      /^decibench: \S+state\.jsonl:2: field "body": missing: every row needs each state field$/,
    ],
    [
      "an unreadable Parquet file",
      "broken.parquet",
      new Uint8Array([...new TextEncoder().encode("PAR1 not really"), 0, 1, 2]),
      /^decibench: \S+broken\.parquet: cannot be read as Parquet \(.+\); export it again, or use \.csv or \.jsonl$/,
    ],
    [
      "a CSV with a ragged row",
      "ragged.csv",
      header + good + "T-3,Hello,billing\n",
      /^decibench: \S+ragged\.csv:4: field "is_urgent": missing: the row has 3 fields, the header 6/,
    ],
  ];
  for (const [what, name, content, expected] of cases) {
    await t.step(what, async () => {
      const data = join(dir, name);
      if (typeof content === "string") await Deno.writeTextFile(data, content);
      else await Deno.writeFile(data, content);
      const workflow = join(dir, `${name}.ts`);
      await Deno.writeTextFile(
        workflow,
        `export default {
  name: "tickets",
  endpoint: { baseUrl: ${JSON.stringify(server.url)} },
  dataset: { path: ${JSON.stringify(name)}, id: "ticket_id", state: "body", lane: "queue" },
  questions: {
    urgent: { type: "noul", instructions: "Does this need a reply today?", gold: "is_urgent" },
    team: { type: "choice", instructions: "Which team?", criteria: { billing: "…", shipping: "…" }, gold: "team" },
    mood: { type: "score", instructions: "How upset?", criteria: ["calm", "annoyed", "angry"], gold: "mood" },
  },
};
`,
      );
      const out = join(dir, `${name}-run`);
      const r = await runScript("bench.ts", [workflow, "--out", out, "--no-db"]);
      assert.equal(r.code, 2, r.stderr);
      const messages = r.stderr.trim().split("\n");
      assert.equal(messages.length, 1, r.stderr);
      assert.match(messages[0]!, expected);
      assert.ok(
        messages[0]!.includes(data),
        "the file is named as found from the working directory",
      );
      await assert.rejects(Deno.stat(out), Deno.errors.NotFound, "no run directory");
      const gate = await runScript("gate.ts", [workflow, "--question", "urgent", "--out", out]);
      assert.equal(gate.code, 2, gate.stderr);
      assert.match(gate.stderr.trim(), expected);
      await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
    });
  }
  assert.equal(server.stats().requests, 0, "nothing was sent");
});

Deno.test("a question-set path that is a FIFO or a device exits 2 at once, naming the path", async () => {
  const dir = await Deno.makeTempDir();
  const fifo = join(dir, "pipe.jsonl");
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  await Deno.symlink("/dev/zero", join(dir, "zero.csv"));
  const paths: [string, string][] = [["pipe.jsonl", "a FIFO (named pipe)"], [
    "zero.csv",
    "a device",
  ]];
  for (const [name, kind] of paths) {
    const workflow = join(dir, `${name}.ts`);
    await Deno.writeTextFile(
      workflow,
      `export default {
  name: "tickets",
  endpoint: { reference: { predictor: "uniform" } },
  dataset: { path: ${JSON.stringify(name)}, id: "id", state: "body" },
  questions: { urgent: { type: "noul", instructions: "Today?" } },
};
`,
    );
    const out = join(dir, `${name}-run`);
    const r = await runScript("bench.ts", [workflow, "--out", out, "--no-db"]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr.trim(),
      `decibench: ${
        join(dir, name)
      }: is ${kind}, not a regular file; name a .jsonl, .csv or .parquet file`,
    );
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound, "no run directory");
  }
});

Deno.test("gate exits 1 and records undecided cases under faults: never a pass, never a fail", async () => {
  const dir = await Deno.makeTempDir();
  const workflow = join(dir, "faulty.ts");
  await Deno.writeTextFile(
    workflow,
    `export default {
  name: "faulty",
  endpoint: { reference: { predictor: "uniform", faults: "http500=0.3", seed: 5 }, retries: 0 },
  dataset: { path: ${
      JSON.stringify(join(Deno.cwd(), "examples/invoices/invoices.csv"))
    }, id: "case_id", state: ["invoice"], lane: "payment_status" },
  questions: { matches_order: { type: "noul", instructions: "Reconciles?", gold: "matches_order_label" } },
  parallel: 1,
};
`,
  );
  const out = join(dir, "gate");
  const r = await runScript("gate.ts", [
    workflow,
    "--question",
    "matches_order",
    "--limit",
    "40",
    "--out",
    out,
  ]);
  assert.equal(r.code, 1, r.stderr);
  const lines = (await Deno.readTextFile(join(out, "gate.jsonl"))).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  assert.equal(lines.length, 40);
  const undecided = lines.filter((l) => l.verdict === "undecided");
  assert.ok(undecided.length > 0 && undecided.length < 40, `${undecided.length} undecided`);
  for (const l of undecided) {
    assert.equal(l.p_yes, null);
    assert.equal(l.error.kind, "unavailable");
  }
  for (const l of lines.filter((l) => l.verdict !== "undecided")) {
    assert.equal(l.verdict, l.p_yes >= 0.7 ? "pass" : "fail");
    assert.equal(l.error, null);
  }
  assert.match(r.stderr, new RegExp(`${undecided.length} of 40 cases are undecided`));
  const summary = JSON.parse(await Deno.readTextFile(join(out, "gate.json")));
  assert.equal(summary.undecided, undecided.length);
  assert.equal(
    summary.lanes.at(-1).labelled,
    40 - undecided.length,
    "undecided cases are left out of the rates",
  );
});

Deno.test("examples/invoices/invoices.csv is exactly the export of the vendored train split", async () => {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "examples/invoices/export.ts", "--check"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
});

Deno.test("gate refuses a question that is not yes/no, or is missing, with exit 2", async () => {
  const choice = await runScript("gate.ts", [WORKFLOW, "--question", "disposition"]);
  assert.equal(choice.code, 2);
  assert.match(
    choice.stderr,
    /question "disposition" is a choice question; the gate asks a yes\/no \(noul\) question \(duplicate, matches_order\)/,
  );
  const none = await runScript("gate.ts", [WORKFLOW]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--question NAME is required/);
});
