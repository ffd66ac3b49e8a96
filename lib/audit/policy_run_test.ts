import assert from "node:assert/strict";
import { join } from "node:path";
import type { AnsweredCase, DecisionRecord } from "../record/mod.ts";
import { loadWorkflow, runBenchmark } from "../workflow/mod.ts";
import { choosePolicy, type PolicyItem } from "./policy.ts";
import { checkRunPolicy, PolicyRunSink, policyRunSink, readPolicy } from "./policy_run.ts";

const yesNo = (p: number) => ({ true: p, false: 1 - p });

/** Lane "big": gold "no" at low P(yes), gold "yes" at high P(yes); lane "small": too few labels. */
function items(): PolicyItem[] {
  const out: PolicyItem[] = [];
  for (let i = 0; i < 600; i++) {
    const no = i % 2 === 0;
    out.push({
      id: `b${String(i).padStart(3, "0")}`,
      lane: "big",
      predicted: yesNo(no ? (i / 2) / 300 * 0.8 : 0.7 + (i % 300) / 1000),
      gold: no ? "false" : "true",
    });
  }
  for (let i = 0; i < 12; i++) {
    out.push({ id: `s${i}`, lane: "small", predicted: yesNo(0.2), gold: i % 2 ? "true" : "false" });
  }
  return out;
}

const policy = choosePolicy(items(), {
  question: "ok",
  type: "noul",
  options: ["true", "false"],
  replicates: 0,
  calibrate: "none",
  split: [0, 1, 1],
  alpha: 0.05,
  delta: 0.05,
});

/** One answered case with one decision per entry. */
function answered(
  id: string,
  decisions: Partial<DecisionRecord>[],
): AnsweredCase {
  return {
    item: { id } as AnsweredCase["item"],
    index: 0,
    asked: null,
    records: decisions.map((d) =>
      ({
        case: id,
        question: "ok",
        type: "noul",
        error: null,
        ...d,
      }) as DecisionRecord
    ),
  };
}

Deno.test("`PolicyRunSink` gives each answer the gate's verdict and re-checks the policy per lane", () => {
  const bar = policy.lanes.big?.threshold as number;
  assert.equal(typeof bar, "number");
  const sink = new PolicyRunSink({ policy, file: "ok.policy.json", sha256: "ab".repeat(32) });
  // Lane big: 40 gold "no" above the bar (false passes), 60 gold "no" below it, 30 gold "yes"
  // above it, 5 unlabelled above it, 2 errored; lane small (uncertified): 10 cases; lane new
  // (unknown): 3 cases; another question's decision is not the policy's.
  const above = Math.min(1, bar + 0.001);
  for (let i = 0; i < 40; i++) {
    sink.case(answered(`n${i}`, [{ workflow: "big", predicted: yesNo(above), gold: "false" }]));
  }
  for (let i = 0; i < 60; i++) {
    sink.case(answered(`m${i}`, [{ workflow: "big", predicted: yesNo(0), gold: "false" }]));
  }
  for (let i = 0; i < 30; i++) {
    sink.case(answered(`y${i}`, [{ workflow: "big", predicted: yesNo(above), gold: "true" }]));
  }
  for (let i = 0; i < 5; i++) {
    sink.case(answered(`u${i}`, [{ workflow: "big", predicted: yesNo(above), gold: null }]));
  }
  for (let i = 0; i < 2; i++) {
    sink.case(answered(`e${i}`, [{
      workflow: "big",
      predicted: null,
      gold: "false",
      error: { kind: "timeout", message: "timed out" },
    }]));
  }
  for (let i = 0; i < 10; i++) {
    sink.case(answered(`s${i}`, [{ workflow: "small", predicted: yesNo(0.99), gold: "false" }]));
  }
  for (let i = 0; i < 3; i++) {
    sink.case(answered(`w${i}`, [
      { workflow: "new", predicted: yesNo(0.99), gold: "false" },
      { workflow: "new", question: "other", predicted: yesNo(0.99), gold: "false" },
    ]));
  }
  const section = sink.section();
  assert.equal(section.question, "ok");
  assert.equal(section.objective, "false-pass");
  assert.equal(section.calibration, "none");
  const [big, fresh, small] = section.lanes;
  assert.deepEqual(section.lanes.map((l) => l.lane), ["big", "new", "small"]);
  assert.deepEqual(big?.verdicts, { pass: 75, fail: 60, answer: 0, escalate: 0, undecided: 2 });
  assert.equal(big?.labelled, 130);
  assert.deepEqual([big?.events, big?.trials, big?.rate], [40, 100, 0.4]);
  assert.ok((big?.lower95 as number) > 0.3 && (big?.upper95 as number) < 0.5);
  assert.equal(big?.holds, false, "40% false passes: no longer holds at α 0.05");
  assert.deepEqual(
    [small?.known, small?.certified, small?.threshold, small?.verdicts.escalate, small?.holds],
    [true, false, null, 10, null],
  );
  assert.equal(small?.neededSelectN, policy.lanes.small?.neededSelectN);
  assert.deepEqual([fresh?.known, fresh?.verdicts.escalate, fresh?.holds], [false, 3, null]);
});

Deno.test("`PolicyRunSink` under selective-risk on a choice question counts answered cases and wrong answers", () => {
  const options = ["x", "y", "z"];
  const choice: PolicyItem[] = [];
  for (let i = 0; i < 900; i++) {
    const gold = options[i % 3] as string;
    const sure = i % 10 !== 0;
    const predicted = Object.fromEntries(
      options.map((o) => [o, o === gold ? (sure ? 0.9 : 0.2) : sure ? 0.05 : 0.4]),
    );
    choice.push({ id: `c${String(i).padStart(3, "0")}`, lane: "l", predicted, gold });
  }
  const selective = choosePolicy(choice, {
    question: "topic",
    type: "choice",
    options,
    replicates: 0,
    calibrate: "none",
    objective: "selective-risk",
    split: [1, 1, 1],
    alpha: 0.1,
    delta: 0.05,
  });
  assert.equal(selective.lanes.l?.certified, true, JSON.stringify(selective.lanes));
  const sink = new PolicyRunSink({ policy: selective, file: "topic.json", sha256: "0".repeat(64) });
  const at = (gold: string, top: string, p: number) =>
    answered(`${gold}${top}${p}`, [{
      workflow: "l",
      question: "topic",
      type: "choice",
      predicted: Object.fromEntries(options.map((o) => [o, o === top ? p : (1 - p) / 2])),
      gold,
    }]);
  for (let i = 0; i < 20; i++) sink.case(at("x", "x", 0.95)); // answered, right
  for (let i = 0; i < 10; i++) sink.case(at("x", "y", 0.95)); // answered, wrong
  for (let i = 0; i < 7; i++) sink.case(at("x", "y", 0.4)); // escalated
  const [lane] = sink.section().lanes;
  assert.deepEqual(lane?.verdicts, { pass: 0, fail: 0, answer: 30, escalate: 7, undecided: 0 });
  assert.deepEqual([lane?.events, lane?.trials, lane?.labelled], [10, 30, 37]);
  assert.equal(lane?.holds, false, "a third wrong among answered: lower bound above α 0.1");
});

Deno.test("`RunOptions.policy`: a library run applies a policy read from its file and records it in run.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-policy-run-" });
  try {
    const rows = ["id,lane,text,ok"];
    for (let i = 0; i < 40; i++) {
      rows.push(`r${i},${i % 2 ? "big" : "small"},item ${i},${i % 3 ? "no" : "yes"}`);
    }
    await Deno.writeTextFile(join(dir, "items.csv"), rows.join("\n") + "\n");
    const workflowFile = join(dir, "items.json");
    const spec = (instructions: string) =>
      JSON.stringify({
        name: "items",
        endpoint: {
          baseUrl: "http://127.0.0.1:9",
          reference: { predictor: "synthetic", skill: 1, temperature: 0.5, seed: 1 },
        },
        dataset: { path: join(dir, "items.csv"), id: "id", state: ["text"], lane: "lane" },
        questions: { ok: { type: "noul", instructions, gold: "ok" } },
      });
    await Deno.writeTextFile(workflowFile, spec("Is this item fine?"));
    const policyFile = join(dir, "ok.policy.json");
    await Deno.writeTextFile(
      policyFile,
      JSON.stringify({
        ...policy,
        definition: { type: "noul", instructions: "Is this item fine?" },
      }),
    );
    const read = await readPolicy(policyFile);
    const workflow = await loadWorkflow(workflowFile);
    const result = await runBenchmark(workflow, {
      outDir: join(dir, "run"),
      dbPath: null,
      policy: policyRunSink(read, workflow),
    });
    assert.equal(result.status, "completed");
    const recorded = JSON.parse(await Deno.readTextFile(join(dir, "run", "run.json")));
    assert.deepEqual(recorded.policy, result.run.policy);
    assert.equal(recorded.policy.sha256, read.sha256);
    const lanes = recorded.policy.lanes as { lane: string; verdicts: Record<string, number> }[];
    assert.deepEqual(lanes.map((l) => l.lane), ["big", "small"]);
    assert.equal(lanes.find((l) => l.lane === "small")?.verdicts.escalate, 20);
    // The same question defined differently: refused before the run.
    assert.throws(
      () =>
        checkRunPolicy(read, {
          ...workflow,
          questions: JSON.parse(spec("Is this item broken?")).questions,
        }),
      /question "ok" is defined differently here/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
