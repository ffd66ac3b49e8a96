import assert from "node:assert/strict";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { sha256Hex } from "../bytes.ts";
import { TICKET_QUESTIONS, TICKETS, ticketSpec, writeTickets } from "./_fixtures.ts";
import { loadDataset } from "./load.ts";
import { loadQuestionSet } from "./question_set.ts";
import { QuestionSetError } from "./question_set_error.ts";
import type { QuestionDefinition } from "./schemas.ts";

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof QuestionSetError) return error.message.split("\n");
    throw error;
  }
  throw new Error("expected a QuestionSetError");
}

Deno.test("`loadQuestionSet()` without a dataset is the verified Typed Decisions test split, unchanged", async () => {
  const set = await loadQuestionSet({});
  const plain = await loadDataset();
  assert.deepEqual(set, plain);
  assert.equal(set.info.questionSet, undefined, "the card protocol carries no question-set record");
});

Deno.test("`loadQuestionSet()` with `typedQuestions` asks only those questions and marks the set not the card protocol", async () => {
  const set = await loadQuestionSet({ typedQuestions: ["needs_review", "urgency"] });
  assert.equal(set.cases.length, 400, "every workflow asks urgency");
  const agent = set.cases.find((c) => c.workflow === "agent_trace_observability")!;
  assert.deepEqual(Object.keys(agent.questions), ["needs_review", "urgency"]);
  assert.deepEqual(Object.keys(agent.gold), ["needs_review", "urgency"]);
  const other = set.cases.find((c) => c.workflow === "customer_service")!;
  assert.deepEqual(Object.keys(other.questions), ["urgency"]);
  assert.deepEqual(set.info.questionSet, {
    kind: "typed-decisions",
    card_protocol: false,
    questions: ["needs_review", "urgency"],
  });
  const only = await loadQuestionSet({ typedQuestions: ["needs_review"] });
  assert.equal(only.cases.length, 100, "cases that ask none of the questions are left out");
  const lines = await problemsOf(loadQuestionSet({ typedQuestions: ["needs_reviews"] }));
  assert.match(
    lines[0]!,
    /^Typed Decisions: field "cases.questions": "needs_reviews" is not a question of any case \(questions: action, /,
  );
});

Deno.test("`loadQuestionSet()` reads the same tickets as JSONL, CSV and Parquet into the same cases", async () => {
  const dir = await Deno.makeTempDir();
  const sets = [];
  for (const format of ["jsonl", "csv", "parquet"] as const) {
    const path = await writeTickets(dir, format);
    sets.push(await loadQuestionSet({ dataset: ticketSpec(path), questions: TICKET_QUESTIONS }));
  }
  const [jsonl, csv, parquet] = sets as [typeof sets[0], typeof sets[0], typeof sets[0]];
  assert.deepEqual(csv.cases, jsonl.cases);
  assert.deepEqual(parquet.cases, jsonl.cases);
  const first = jsonl.cases[0]!;
  assert.equal(first.id, "T-1");
  assert.equal(first.workflow, "billing", "the lane field becomes the case's workflow");
  assert.equal(first.state, TICKETS[0]!.body);
  assert.deepEqual(first.questions.team, {
    type: "choice",
    instructions: "Which team?",
    criteria: { billing: "Payments and refunds", shipping: "Parcels and delivery" },
  }, "the question sent has no gold field");
  assert.deepEqual(first.gold.urgent, {
    type: "noul",
    label: "true",
    probabilities: { true: 1, false: 0 },
    confidence: 1,
    noul: 1,
  }, "a hard label is a one-hot distribution");
  assert.deepEqual(first.gold.mood?.probabilities, { "0": 0, "1": 0, "2": 1 });
  assert.deepEqual(Object.keys(jsonl.cases[2]!.gold), ["mood"], "empty gold is unlabelled");
  for (const set of sets) {
    const record = set.info.questionSet;
    assert.equal(record?.kind, "file");
    if (record?.kind !== "file") continue;
    assert.deepEqual(record.labelled, { urgent: 2, team: 2, mood: 3 });
    assert.equal(record.rows, 3);
    assert.equal(
      record.sha256,
      await sha256Hex(await Deno.readFile(join(dir, record.path.split("/").pop()!))),
    );
    assert.equal(set.info.revision, record.sha256, "the file's sha256 is the set's revision");
  }
});

Deno.test("`loadQuestionSet()` reads soft gold as written: a distribution, or Typed Decisions' gold object with its label", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "soft.jsonl");
  await Deno.writeTextFile(
    path,
    [
      { id: "a", s: { x: 1 }, t: { shipping: 0.3, billing: 0.7 }, u: { true: 0.2, false: 0.8 } },
      {
        id: "b",
        s: { x: 2 },
        t: { label: "shipping", probabilities: { billing: 0.5, shipping: 0.5 } },
      },
    ].map((r) => JSON.stringify(r)).join("\n"),
  );
  const questions: Record<string, QuestionDefinition> = {
    team: {
      type: "choice",
      instructions: "Which team?",
      criteria: ["billing", "shipping"],
      gold: "t",
    },
    urgent: { type: "noul", instructions: "Today?", gold: "u" },
  };
  const set = await loadQuestionSet({ dataset: { path, id: "id", state: "s" }, questions }, {
    lane: "tickets",
  });
  const [a, b] = set.cases as [typeof set.cases[0], typeof set.cases[0]];
  assert.equal(a.workflow, "tickets", "without a lane field every case is in the workflow's lane");
  assert.deepEqual(a.gold.team, {
    type: "choice",
    label: "billing",
    probabilities: { shipping: 0.3, billing: 0.7 },
    confidence: 0.7,
  });
  assert.equal(a.gold.urgent?.label, "false");
  assert.equal(b.gold.team?.label, "shipping", "the label given breaks the tie");
});

Deno.test("`loadQuestionSet()` builds a state object from a list of fields; CSV cells holding JSON objects are parsed", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "orders.csv");
  await Deno.writeTextFile(
    path,
    'order,customer,lines,note,ok\n1,"{""name"": ""Ann""}","[1, 2]",plain text,1\n',
  );
  const set = await loadQuestionSet({
    dataset: { path, id: "order", state: ["customer", "lines", "note"] },
    questions: { ok: { type: "noul", instructions: "Fine?", gold: "ok" } },
  });
  assert.deepEqual(set.cases[0]!.state, {
    customer: { name: "Ann" },
    lines: [1, 2],
    note: "plain text",
  });
  assert.equal(set.cases[0]!.gold.ok?.label, "true", "CSV 1 is yes");
});

Deno.test("`loadQuestionSet()` refuses bad rows with one message per problem naming file, line and field", async (t) => {
  const dir = await Deno.makeTempDir();
  const csv = async (name: string, text: string) => {
    const path = join(dir, name);
    await Deno.writeTextFile(path, text);
    return path;
  };
  const load = (path: string, questions = TICKET_QUESTIONS) =>
    problemsOf(loadQuestionSet({ dataset: ticketSpec(path), questions }));
  const header = "ticket_id,body,queue,is_urgent,team,mood\n";
  const good = "T-1,Refund,billing,yes,billing,2\nT-2,Parcel?,shipping,no,shipping,1\n";

  await t.step("a label that is not an option: the CSV line in the file", async () => {
    // A quoted line break moves the bad row to line 5 of the file.
    const path = await csv("label.csv", header + good + 'T-3,"two\nlines",billing,yes,sales,0\n');
    const lines = await load(path);
    assert.deepEqual(lines, [
      `${path}:4: field "team": "sales" is not an option (billing, shipping)`,
    ]);
  });
  await t.step("a duplicated id", async () => {
    const path = await csv("dup.csv", header + good + "T-1,Again,billing,no,billing,0\n");
    assert.deepEqual(await load(path), [
      `${path}:4: field "ticket_id": "T-1" repeats the id of line 2; ids must be unique`,
    ]);
  });
  await t.step("a missing state field in a JSONL row", async () => {
    const path = await csv(
      "state.jsonl",
      '{"ticket_id": "a", "body": "x", "queue": "q"}\n{"ticket_id": "b", "queue": "q"}\n',
    );
    assert.deepEqual(await load(path, { urgent: { type: "noul", instructions: "Today?" } }), [
      `${path}:2: field "body": missing: every row needs each state field`,
    ]);
  });
  await t.step("a ragged CSV row", async () => {
    const path = await csv("ragged.csv", header + good + "T-3,Hello,billing,yes\n");
    assert.deepEqual(await load(path), [
      `${path}:4: field "team": missing: the row has 4 fields, the header 6 (a missing comma, or a line break outside quotes?)`,
    ]);
  });
  await t.step("an unreadable Parquet file", async () => {
    const path = join(dir, "broken.parquet");
    await Deno.writeFile(path, new TextEncoder().encode("this is not parquet at all"));
    const lines = await load(path);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      new RegExp(
        `^${path}: cannot be read as Parquet \\(.+\\); export it again, or use \\.csv or \\.jsonl$`,
      ),
    );
  });
  await t.step("a score level out of range and a noul that is not yes/no", async () => {
    const path = await csv("levels.csv", header + "T-1,a,billing,maybe,billing,3\n");
    assert.deepEqual(await load(path), [
      `${path}:2: field "is_urgent": "maybe" is not an option (true, false, yes, no, 1, 0)`,
      `${path}:2: field "mood": "3" is not a level (0, 1, 2)`,
    ]);
  });
  await t.step("distributions: wrong options, a bad sum, a non-finite Parquet number", async () => {
    const path = await csv(
      "dist.jsonl",
      [
        '{"ticket_id": "a", "body": "x", "queue": "q", "team": {"billing": 0.5, "sales": 0.5}}',
        '{"ticket_id": "b", "body": "x", "queue": "q", "team": {"billing": 0.5, "shipping": 0.6}}',
        '{"ticket_id": "c", "body": "x", "queue": "q", "is_urgent": "yes", "mood": 1}',
      ].join("\n"),
    );
    assert.deepEqual(await load(path), [
      `${path}:1: field "team": the distribution has "sales", which is not an option (billing, shipping)`,
      `${path}:2: field "team": probabilities sum to 1.1, not 1 (± 0.001)`,
      `${path}:3: field "is_urgent": "yes" is not an option (true, false) or a distribution over them`,
    ]);
    const pq = join(dir, "nan.parquet");
    await Deno.writeFile(
      pq,
      new Uint8Array(parquetWriteBuffer({
        columnData: [
          { name: "ticket_id", data: ["a", "b"], type: "STRING" },
          { name: "body", data: ["x", "y"], type: "STRING" },
          { name: "queue", data: ["q", "q"], type: "STRING" },
          { name: "score", data: [1.5, NaN], type: "DOUBLE" },
        ],
      })),
    );
    assert.deepEqual(
      await problemsOf(loadQuestionSet({
        dataset: { path: pq, id: "ticket_id", state: ["body", "score"], lane: "queue" },
        questions: { urgent: { type: "noul", instructions: "Today?" } },
      })),
      [`${pq}:2: field "score": NaN is not a finite number`],
    );
  });
  await t.step(
    "a column the workflow names but the file lacks: once, on the header line",
    async () => {
      const path = await csv("cols.csv", "ticket_id,text,queue\nT-1,a,billing\nT-2,b,billing\n");
      const lines = await load(path, {
        urgent: { type: "noul", instructions: "Today?", gold: "is_urgent" },
      });
      assert.deepEqual(lines, [
        `${path}:1: field "body": no such column (a state field); the file has ticket_id, text, queue`,
        `${path}:1: field "is_urgent": no such column (the gold field of question "urgent"); the file has ticket_id, text, queue`,
      ]);
    },
  );
  await t.step("a JSONL gold field that no row has (a misspelt name) is refused once", async () => {
    const path = await csv(
      "typo.jsonl",
      '{"ticket_id": "a", "body": "x", "queue": "q", "urgnt": true}\n',
    );
    assert.deepEqual(
      await load(path, { urgent: { type: "noul", instructions: "Today?", gold: "urgent" } }),
      [
        `${path}: field "urgent": no such field in any row (the gold field of question "urgent"); the file has ticket_id, body, queue, urgnt`,
      ],
    );
  });
  await t.step("a missing file", async () => {
    const path = join(dir, "nope.csv");
    assert.deepEqual(await load(path), [
      `${path}: file not found (dataset.path is relative to the workflow file)`,
    ]);
  });
  await t.step("more than ten problems: the first ten and a count", async () => {
    const rows = Array.from({ length: 14 }, (_, i) => `T-${i},x,billing,yes,sales,0`).join("\n");
    const lines = await load(await csv("many.csv", header + rows + "\n"));
    assert.equal(lines.length, 11);
    assert.equal(lines[10], "… and 4 more problems");
  });
});
