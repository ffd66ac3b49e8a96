// Question sets end to end, in-process: a user's own file benchmarked against the embedded
// reference server over real HTTP on loopback, scored with the same metric definitions.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  loadDataset,
  type QuestionDefinition,
  QuestionSetError,
  wireQuestion,
} from "../lib/dataset/mod.ts";
import { TICKET_QUESTIONS, ticketSpec, writeTickets } from "../lib/dataset/_fixtures.ts";
import {
  inCaseOrder,
  loadRun,
  openRun,
  readDecisions,
  ResumeMismatchError,
} from "../lib/record/mod.ts";
import { compareRuns, markdownReport } from "../lib/report/mod.ts";
import { htmlReport } from "../lib/report/html.ts";
import {
  loadWorkflow,
  runBenchmark,
  validateWorkflow,
  type Workflow,
  WorkflowError,
} from "../lib/workflow/mod.ts";
import { ROOT } from "./bench_cli_helpers.ts";

const INVOICES = join(ROOT, "examples/invoices/workflow.ts");

function withPredictor(workflow: Workflow, predictor: string, extra: Partial<Workflow> = {}) {
  return validateWorkflow({
    ...workflow,
    endpoint: { ...workflow.endpoint, reference: { predictor } },
    ...extra,
  }, "test.ts");
}

/** The headline figures of a summary (run.json version 2 keys them under `metrics`). */
function figures(
  summary: { decisions: number; metrics: Record<string, number | null | undefined> },
) {
  const m = summary.metrics;
  return {
    decisions: summary.decisions,
    accuracy: m.accuracy,
    kl: m.kl,
    brier: m.brier,
    ece: m.ece,
  };
}

Deno.test("a user JSONL with soft gold of 100 Typed Decisions cases scores exactly what the built-in path scores, with uniform and fitted", async () => {
  const { cases } = await loadDataset();
  const selected = cases.filter((c) => c.workflow === "customer_service");
  assert.equal(selected.length, 100);
  const dir = await Deno.makeTempDir();
  const path = join(dir, "customer_service.jsonl");
  // The gold field holds Typed Decisions' own gold object: the distribution and its label.
  const names = Object.keys(selected[0]!.questions);
  await Deno.writeTextFile(
    path,
    selected.map((c) =>
      JSON.stringify({
        case_id: c.id,
        state: c.state,
        ...Object.fromEntries(names.map((n) => [`${n}_gold`, c.gold[n]])),
      })
    ).join("\n") + "\n",
  );
  const questions: Record<string, QuestionDefinition> = Object.fromEntries(
    names.map((n) => [n, { ...selected[0]!.questions[n]!, gold: `${n}_gold` }]),
  );
  for (const predictor of ["uniform", "fitted"]) {
    const builtIn = await runBenchmark(
      validateWorkflow({
        name: "builtin",
        endpoint: { reference: { predictor } },
        cases: { workflows: ["customer_service"] },
      }, "test.ts"),
      { outDir: join(dir, `builtin-${predictor}`), dbPath: null },
    );
    const user = await runBenchmark(
      validateWorkflow({
        name: "user",
        endpoint: { reference: { predictor } },
        dataset: { path, id: "case_id", state: "state" },
        questions,
      }, "test.ts"),
      { outDir: join(dir, `user-${predictor}`), dbPath: null },
    );
    assert.equal(builtIn.status, "completed");
    assert.equal(user.status, "completed");
    const a = figures(builtIn.summary);
    const b = figures(user.summary);
    assert.equal(b.decisions, 500);
    assert.equal(b.accuracy, a.accuracy, `${predictor}: accuracy`);
    assert.equal(b.kl, a.kl, `${predictor}: KL`);
    assert.equal(b.brier, a.brier, `${predictor}: Brier`);
    assert.equal(b.ece, a.ece, `${predictor}: ECE`);
    const builtInRecords = inCaseOrder(await readDecisions(join(builtIn.dir, "decisions.jsonl")));
    const userRecords = inCaseOrder(await readDecisions(join(user.dir, "decisions.jsonl")));
    for (const [i, r] of userRecords.entries()) {
      const s = builtInRecords[i]!;
      assert.deepEqual(
        [r.case, r.question, r.predicted, r.gold, r.gold_probabilities, r.correct, r.kl, r.brier],
        [s.case, s.question, s.predicted, s.gold, s.gold_probabilities, s.correct, s.kl, s.brier],
      );
    }
  }
});

Deno.test("the embedded oracle answers a user set's hard labels one-hot: accuracy 1, KL 0, Brier 0", async () => {
  const out = await Deno.makeTempDir();
  const workflow = withPredictor(await loadWorkflow(INVOICES), "oracle");
  const result = await runBenchmark(workflow, { outDir: out, dbPath: null });
  const s = figures(result.summary);
  assert.equal(result.status, "completed");
  assert.equal(s.decisions, 1500);
  assert.equal(s.accuracy, 1);
  assert.equal(s.kl, 0);
  assert.equal(s.brier, 0);
  assert.equal(result.run.spec.endpoint, "embedded:reference/oracle");
  assert.equal(result.thresholds[0]?.pass, true);
});

Deno.test("unlabelled rows are asked and recorded with null gold, and left out of every metric", async () => {
  const dir = await Deno.makeTempDir();
  const path = await writeTickets(dir, "csv");
  const result = await runBenchmark(
    validateWorkflow({
      name: "tickets",
      endpoint: { reference: { predictor: "uniform" } },
      dataset: ticketSpec(path),
      questions: TICKET_QUESTIONS,
    }, "test.ts"),
    { outDir: join(dir, "run"), dbPath: null },
  );
  assert.equal(result.status, "completed");
  const records = await readDecisions(join(dir, "run", "decisions.jsonl"));
  assert.equal(records.length, 9, "every question of every row is asked");
  const t3 = records.filter((r) => r.case === "T-3");
  assert.deepEqual(
    t3.map((r) => [r.question, r.gold, r.gold_probabilities, r.correct, "kl" in r, r.kl]),
    [
      ["urgent", null, null, null, false, undefined],
      ["team", null, null, null, false, undefined],
      ["mood", "0", { "0": 1, "1": 0, "2": 0 }, true, true, Math.log(3)],
    ],
    "an unlabelled decision: correct null, no KL or Brier field",
  );
  assert.deepEqual(t3.map((r) => r.answer), ["true", "billing", "0"], "answers are still recorded");
  assert.equal(records[0]?.workflow, "billing", "the lane is the record's workflow");
  const s = figures(result.summary);
  // Uniform predicts the first option: urgent true (T-1 right, T-2 wrong), team billing (T-1),
  // mood "0" (T-3): 3 right of 7 labelled decisions; the 2 unlabelled are no misses.
  assert.equal(s.decisions, 9);
  assert.equal(s.accuracy, 3 / 7);
  const kl = (2 * Math.log(2) + 2 * Math.log(2) + 3 * Math.log(3)) / 7;
  assert.ok(Math.abs(s.kl! - kl) < 1e-12, `KL ${s.kl} = mean −ln p(label)`);
  const report = await Deno.readTextFile(join(result.dir, "report.md"));
  assert.match(report, /rating \| none \(not the Typed Decisions card protocol\)/);
  assert.match(report, /KL\(gold ‖ pred\) is then −ln p\(label\)/);
  assert.match(report, /unlabelled: urgent 1, team 1/);
  assert.match(report, /team \(choice\) · pred billing gold none/);
  assert.doesNotMatch(report, /Reference points from the dataset card|~4B teacher/);
  assert.doesNotMatch(htmlReport(result.report), /teacher self-agreement/);
});

Deno.test("a per-question lower-bound threshold fails where the point estimate passes (fitted on the invoices)", async () => {
  const workflow = withPredictor(await loadWorkflow(INVOICES), "fitted", {
    thresholds: [
      { metric: "accuracy", question: "matches_order", op: ">=", limit: 0.88 },
      { metric: "accuracy", question: "matches_order", op: ">=", limit: 0.88, bound: "lower" },
    ],
  });
  const result = await runBenchmark(workflow, { outDir: await Deno.makeTempDir(), dbPath: null });
  const [estimate, lower] = result.thresholds;
  assert.equal(estimate?.value, 268 / 300);
  assert.equal(estimate?.pass, true);
  assert.equal(lower?.estimate, 268 / 300);
  assert.ok(lower!.value! < 0.88, `lower bound ${lower?.value}`);
  assert.equal(lower?.pass, false);
  const run = JSON.parse(await Deno.readTextFile(join(result.dir, "run.json")));
  assert.deepEqual(Object.keys(run.thresholds[1]), [
    "metric",
    "question",
    "op",
    "limit",
    "bound",
    "value",
    "estimate",
    "pass",
  ], "the run record shows the value used and the estimate beside it");
});

Deno.test("the embedded fitted predictor refuses a question set it was not fitted for, before anything runs", async () => {
  const dir = await Deno.makeTempDir();
  const path = await writeTickets(dir, "jsonl");
  const out = join(dir, "run");
  await assert.rejects(
    runBenchmark(
      validateWorkflow({
        name: "tickets",
        endpoint: { reference: { predictor: "fitted" } },
        dataset: ticketSpec(path),
        questions: TICKET_QUESTIONS,
      }, "test.ts"),
      { outDir: out, dbPath: null },
    ),
    (error: unknown) =>
      error instanceof WorkflowError &&
      error.message.startsWith(
        'Cannot start the embedded reference server for this question set: The "fitted" predictor answers Typed Decisions questions only: Cannot answer questions "urgent", "team", "mood": no trained workflow asks them',
      ) &&
      /set reference: \{ predictor: "uniform" \} \(or "oracle"\) in the workflow/.test(
        error.message,
      ),
  );
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("Typed Decisions `cases.questions` runs only those questions, marked not the card protocol", async () => {
  const base = { name: "subset", endpoint: { reference: { predictor: "fitted" } } };
  const subset = await runBenchmark(
    validateWorkflow({ ...base, cases: { questions: ["needs_review"], limit: 20 } }, "t.ts"),
    { outDir: await Deno.makeTempDir(), dbPath: null },
  );
  const full = await runBenchmark(validateWorkflow({ ...base, cases: { limit: 20 } }, "t.ts"), {
    outDir: await Deno.makeTempDir(),
    dbPath: null,
  });
  const subsetRecords = await readDecisions(join(subset.dir, "decisions.jsonl"));
  assert.equal(subsetRecords.length, 20);
  assert.ok(subsetRecords.every((r) => r.question === "needs_review"));
  assert.deepEqual(subset.run.spec.question_set, {
    kind: "typed-decisions",
    card_protocol: false,
    questions: ["needs_review"],
  });
  assert.equal(full.run.spec.question_set, undefined);
  assert.notEqual(subset.run.spec.fingerprint, full.run.spec.fingerprint);
  const report = markdownReport(subset.report);
  assert.match(report, /rating \| none \(not the Typed Decisions card protocol\)/);
  assert.match(report, /Not the dataset card's protocol: each case was asked only "needs_review"/);
  assert.match(markdownReport(full.report), /rating \| ★/);
});

Deno.test("--resume and compare refuse a run whose question set file changed, naming the file", async () => {
  const dir = await Deno.makeTempDir();
  const path = await writeTickets(dir, "csv");
  const workflow = validateWorkflow({
    name: "tickets",
    endpoint: { reference: { predictor: "uniform" } },
    dataset: ticketSpec(path),
    questions: TICKET_QUESTIONS,
  }, "test.ts");
  const first = await runBenchmark(workflow, { outDir: join(dir, "a"), dbPath: null });
  assert.equal(first.run.spec.question_set?.kind, "file");
  await Deno.writeTextFile(
    path,
    (await Deno.readTextFile(path)).replace("Where is my parcel?", "Where is it?"),
  );
  await assert.rejects(
    runBenchmark(workflow, { resume: await loadRun(first.dir), dbPath: null }),
    (error: unknown) =>
      error instanceof ResumeMismatchError &&
      error.message.includes(
        `question set file "${path}": recorded "sha256 ${
          first.run.spec.revision.slice(0, 12)
        }, 3 rows"`,
      ) &&
      /the file changed since the run started/.test(error.message),
  );
  const second = await runBenchmark(workflow, { outDir: join(dir, "b"), dbPath: null });
  assert.notEqual(
    second.run.spec.fingerprint,
    first.run.spec.fingerprint,
    "the sha256 is in the fingerprint",
  );
  await assert.rejects(
    async () => await compareRuns(await openRun(first.dir), await openRun(second.dir)),
    (error: unknown) =>
      error instanceof RangeError &&
      error.message.includes(`question set file "${path}" changed`),
  );
});

Deno.test("a refused question set leaves no run directory", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "tickets.csv");
  await Deno.writeTextFile(
    path,
    "ticket_id,body,queue,is_urgent,team,mood\nT-1,a,billing,yes,sales,0\n",
  );
  const out = join(dir, "run");
  await assert.rejects(
    runBenchmark(
      validateWorkflow({
        name: "tickets",
        endpoint: { reference: { predictor: "uniform" } },
        dataset: ticketSpec(path),
        questions: TICKET_QUESTIONS,
      }, "test.ts"),
      { outDir: out, dbPath: null },
    ),
    (error: unknown) =>
      error instanceof QuestionSetError &&
      error.message === `${path}:2: field "team": "sales" is not an option (billing, shipping)`,
  );
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  // The wire question is the definition without its gold field.
  assert.deepEqual(wireQuestion(TICKET_QUESTIONS.urgent!), {
    type: "noul",
    instructions: "Does this need a reply today?",
  });
});
