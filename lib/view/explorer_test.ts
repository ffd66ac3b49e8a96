import assert from "node:assert/strict";
import { indexRun, openIndex } from "../record/mod.ts";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import {
  countDecisions,
  errorGroups,
  facets,
  filterQuery,
  mayHoldLegacyGold,
  pageQuery,
  parseQuery,
  queryDecisions,
  whereOf,
} from "./explorer.ts";

const records = [
  record({ case: "c1", question: "a", confidence: 0.95, correct: false, answer: "false" }),
  record({ case: "c1", question: "b", confidence: 0.6 }),
  record({ case: "c2", question: "a", type: "choice", workflow: "invoice_processing" }),
  errored({ case: "c2", question: "b" }),
  errored({ case: "c3", question: "a", error: { kind: "timeout", message: "slow" } }),
];

function withIndex(fn: (db: ReturnType<typeof openIndex>["db"]) => void): void {
  const index = openIndex(":memory:");
  try {
    indexRun(index, runJson(records), records);
    fn(index.db);
  } finally {
    index.close();
  }
}

Deno.test("`parseQuery()` reads the explorer's filters and names bad values", () => {
  const ok = parseQuery(new URLSearchParams("outcome=wrong&min_conf=0.9&page=2&order=confidence"));
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.filter.outcome, "wrong");
  assert.equal(ok.filter.minConfidence, 0.9);
  assert.deepEqual(ok.page, { page: 2, perPage: 50, order: "confidence" });
  assert.equal(filterQuery(ok.filter).toString(), "outcome=wrong&min_conf=0.9");
  const bad = parseQuery(
    new URLSearchParams("outcome=x&min_conf=-1&max_conf=abc&page=0&per_page=9999"),
  );
  assert.deepEqual(bad.problems, [
    'outcome "x" is not one of correct, wrong, unlabelled, error',
    'min_conf "-1" is not a number in [0, 1]',
    'max_conf "abc" is not a number in [0, 1]',
    'page "0" is not a whole number ≥ 1',
  ]);
  assert.equal(bad.page.perPage, 200, "pages hold at most 200 decisions");
});

Deno.test("`whereOf()` filters one run's decisions in SQL, parameters bound", () => {
  withIndex((db) => {
    const id = runJson(records).id;
    const count = (query: string, cases: string[] | null = null) =>
      countDecisions(db, whereOf(id, parseQuery(new URLSearchParams(query)).filter, cases));
    assert.equal(count(""), 5);
    assert.equal(count("outcome=wrong&min_conf=0.9"), 1);
    assert.equal(count("outcome=correct"), 2);
    assert.equal(count("outcome=error"), 2);
    assert.equal(count("error_kind=timeout"), 1);
    assert.equal(count("type=choice"), 1);
    assert.equal(count("workflow=customer_service&question=a"), 2);
    assert.equal(count("max_conf=0.7"), 1, "errors have no confidence");
    assert.equal(count("q=c3"), 1, "the text matches case ids");
    assert.equal(count("q=zzz", ["c1"]), 2, "and the cases whose state holds it");
    assert.equal(count("workflow=x' OR '1'='1"), 0, "values are bound, not spliced");
    assert.equal(countDecisions(db, whereOf("other-run", {})), 0);
  });
});

Deno.test("`queryDecisions()` pages in record or confidence order", () => {
  withIndex((db) => {
    const id = runJson(records).id;
    const first = queryDecisions(db, whereOf(id, {}), { page: 1, perPage: 2, order: "dataset" });
    assert.equal(first.total, 5);
    assert.equal(first.pages, 3);
    assert.deepEqual(first.decisions, records.slice(0, 2));
    const last = queryDecisions(db, whereOf(id, {}), { page: 9, perPage: 2, order: "dataset" });
    assert.equal(last.page, 3, "a page past the end shows the last one");
    assert.deepEqual(last.decisions, records.slice(4));
    const confident = queryDecisions(db, whereOf(id, {}), {
      page: 1,
      perPage: 5,
      order: "confidence",
    });
    assert.deepEqual(confident.decisions.map((r) => r.confidence), [0.95, 0.8, 0.6, null, null]);
  });
});

Deno.test("`facets()` and `errorGroups()` list a run's values and its errors with examples", () => {
  withIndex((db) => {
    const id = runJson(records).id;
    const f = facets(db, id);
    assert.deepEqual(f.workflows, [{ name: "customer_service", n: 4 }, {
      name: "invoice_processing",
      n: 1,
    }]);
    assert.deepEqual(f.errorKinds, [{ name: "network", n: 1 }, { name: "timeout", n: 1 }]);
    assert.deepEqual(errorGroups(db, id), [
      {
        kind: "network",
        count: 1,
        examples: [{ case: "c2", question: "b", message: "Cannot reach the server" }],
      },
      { kind: "timeout", count: 1, examples: [{ case: "c3", question: "a", message: "slow" }] },
    ]);
  });
});

Deno.test("the explorer's pages are read off an index, never sorted (EXPLAIN QUERY PLAN)", () => {
  const index = openIndex(":memory:");
  try {
    const records = Array.from(
      { length: 300 },
      (_, i) =>
        i % 17 === 0 ? errored({ case: `c${i}`, question: `q${i % 5}` }) : record({
          case: `c${i}`,
          workflow: i % 2 === 0 ? "billing" : "customer_service",
          question: `q${i % 5}`,
          correct: i % 3 !== 0,
          confidence: (i % 100) / 100,
        }),
    );
    // Several runs, as an index holds: a run's rows are a part of the table.
    for (const id of ["p", "r", "s", "t"]) indexRun(index, runJson(records, { id }), records);
    index.db.exec("ANALYZE");
    const orders = ["dataset", "confidence"] as const;
    const filters = [
      {},
      { workflow: "billing", question: "q1" },
      { outcome: "correct" as const },
      { outcome: "wrong" as const, minConfidence: 0.9 },
      { workflow: "billing" },
      { type: "noul" },
    ];
    for (const filter of filters) {
      for (const order of orders) {
        const where = whereOf("r", filter);
        const plan = (index.db.prepare(
          `EXPLAIN QUERY PLAN ${pageQuery(where, order)} LIMIT 50`,
        ).all(...where.params) as { detail: string }[]).map((r) => r.detail).join("; ");
        const what = `${JSON.stringify(filter)} in ${order} order: ${plan}`;
        // Counting a filter of outcome and confidence reads one index range, not the run.
        if (filter.outcome === "wrong") {
          const count = (index.db.prepare(
            `EXPLAIN QUERY PLAN SELECT COUNT(*) FROM decisions WHERE ${where.sql}`,
          ).all(...where.params) as { detail: string }[]).map((r) => r.detail).join("; ");
          assert.match(
            count,
            /COVERING INDEX decisions_by_outcome \(run_id=\? AND correct=\? AND error_kind=\? AND confidence>\?\)/,
            count,
          );
        }
        assert.match(plan, /USING (COVERING )?INDEX decisions_/, what);
        assert.doesNotMatch(plan, /TEMP B-TREE/, what);
      }
    }
    // The most confident first, unfiltered and by question, need not read the table at all.
    for (const filter of [{}, { workflow: "billing", question: "q1" }]) {
      const where = whereOf("r", filter);
      const plan = (index.db.prepare(
        `EXPLAIN QUERY PLAN ${pageQuery(where, "confidence")} LIMIT 50`,
      ).all(...where.params) as { detail: string }[]).map((r) => r.detail).join("; ");
      assert.match(plan, /COVERING INDEX decisions_by_(question_)?confidence/);
    }
    // And the page the query returns is the one a full sort gives.
    const page = queryDecisions(index.db, whereOf("r", {}), {
      page: 1,
      perPage: 20,
      order: "confidence",
    });
    const sorted = records.filter((r) => r.confidence !== null).sort((a, b) =>
      (b.confidence ?? 0) - (a.confidence ?? 0) || records.indexOf(a) - records.indexOf(b)
    ).slice(0, 20);
    assert.deepEqual(page.decisions.map((d) => d.case), sorted.map((d) => d.case));
  } finally {
    index.close();
  }
});

Deno.test("the outcome filter: wrong is answers against gold, unlabelled the answers without", () => {
  const index = openIndex(":memory:");
  try {
    const { kl: _, brier: __, ...noGold } = record({
      case: "c4",
      question: "a",
      confidence: 0.97,
      answer: "false",
      gold: null,
      gold_probabilities: null,
      correct: null,
    });
    const all = [...records, noGold];
    const id = runJson(all).id;
    indexRun(index, runJson(all), all);
    // A row as an index written before schema version 5 held it: gold '', correct 0.
    index.db.prepare(
      `INSERT INTO decisions (run_id, case_id, workflow, question, type, confidence, gold,
        gold_probabilities, correct, attempts) VALUES (?, 'c5', 'w', 'a', 'noul', 0.99, '', 'null', 0, 1)`,
    ).run(id);
    index.db.prepare("UPDATE runs SET decisions = decisions + 1 WHERE id = ?").run(id);
    // The run was indexed with its labelled count: rows of its own are never the old kind.
    assert.equal(mayHoldLegacyGold(index.db, id), false);
    index.db.prepare("UPDATE runs SET labelled = NULL WHERE id = ?").run(id);
    assert.equal(mayHoldLegacyGold(index.db, id), true);
    const count = (query: string) =>
      countDecisions(
        index.db,
        whereOf(id, parseQuery(new URLSearchParams(query)).filter, null, true),
      );
    assert.equal(count("outcome=wrong"), 1);
    assert.equal(count("outcome=wrong&min_conf=0.9"), 1, "an unlabelled answer is no mistake");
    assert.equal(count("outcome=correct"), 2);
    assert.equal(count("outcome=unlabelled"), 2);
    assert.equal(count("outcome=error"), 2);
    assert.equal(count(""), 7);
  } finally {
    index.close();
  }
});
