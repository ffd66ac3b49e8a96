// End-to-end: per-class results of a real `deno task bench` run on examples/tickets (a choice, a
// yes/no and a score question, four lanes, blank labels) against the embedded oracle with seeded
// noise and malformed replies (so the matrices are not diagonal and some labelled decisions are
// errors). The figures are recomputed here from decisions.jsonl with plain code and compared
// with run.json, the terminal, report.md, report.html, the index's `classes` table, and the view's
// per-class page and API (also for a run whose run.json has no per-class results).
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { ClassResults } from "../lib/metrics/mod.ts";
import type { DecisionRecord, RunJson } from "../lib/record/mod.ts";
import { startView } from "../lib/view/mod.ts";
import { ROOT, runScript } from "./bench_cli_helpers.ts";
import { dom } from "./view_helpers.ts";

const OPTIONS: Record<string, string[]> = {
  topic: ["billing", "shipping", "returns", "account", "other"],
  urgent: ["true", "false"],
  severity: ["0", "1", "2", "3"],
};
const LEVEL_NAMES = ["None", "Low", "High", "Critical"];

interface Expected {
  n: number;
  confusion: number[][];
  perClass: {
    label: string;
    precision: number | null;
    recall: number | null;
    f1: number | null;
    support: number;
  }[];
  macroF1: number | null;
  majorityBaseline: number | null;
  accuracy: number;
  auroc?: number;
  aurocSlack?: number;
}

/** The per-class figures of some decisions of one question, by definition. */
function expected(question: string, decisions: readonly DecisionRecord[]): Expected {
  const labels = OPTIONS[question]!;
  const labelled = decisions.filter((d) => d.question === question && d.gold !== null);
  const confusion = labels.map((gold) =>
    [...labels, "error"].map((predicted) =>
      labelled.filter((d) =>
        d.gold === gold && (d.error === null ? d.answer === predicted : predicted === "error")
      ).length
    )
  );
  const perClass = labels.map((label, i) => {
    const support = confusion[i]!.reduce((a, b) => a + b, 0);
    const tp = confusion[i]![i]!;
    const predicted = confusion.reduce((a, row) => a + row[i]!, 0);
    const precision = predicted === 0 ? null : tp / predicted;
    const recall = support === 0 ? null : tp / support;
    const f1 = precision === null && recall === null
      ? null
      : precision === null || recall === null || precision + recall === 0
      ? 0
      : 2 * precision * recall / (precision + recall);
    return { label, precision, recall, f1, support };
  });
  const f1s = perClass.filter((r) => r.f1 !== null).map((r) => r.f1 as number);
  const n = labelled.length;
  const out: Expected = {
    n,
    confusion,
    perClass,
    macroF1: f1s.length ? f1s.reduce((a, b) => a + b, 0) / f1s.length : null,
    majorityBaseline: n ? Math.max(...perClass.map((r) => r.support)) / n : null,
    accuracy: labelled.filter((d) => d.error === null && d.answer === d.gold).length / n,
  };
  if (question === "urgent") {
    // Every answered positive against every answered negative, ties ½.
    const scored = labelled.filter((d) => d.error === null).map((d) => ({
      p: (d.predicted as Record<string, number>).true as number,
      y: d.gold === "true",
    }));
    const pos = scored.filter((s) => s.y).map((s) => s.p).sort((a, b) => a - b);
    const neg = scored.filter((s) => !s.y).map((s) => s.p).sort((a, b) => a - b);
    let wins = 0;
    let sameBin = 0;
    for (const p of pos) {
      for (const q of neg) {
        wins += p > q ? 1 : p === q ? 0.5 : 0;
        if (p !== q && Math.floor(p * 1000) === Math.floor(q * 1000)) sameBin++;
      }
    }
    out.auroc = wins / (pos.length * neg.length);
    // A histogram of width 0.001 scores a pair sharing a bin ½ instead of 0 or 1.
    out.aurocSlack = (sameBin / 2) / (pos.length * neg.length);
  }
  return out;
}

function close(actual: number | null | undefined, wanted: number | null, what: string): void {
  if (wanted === null) return assert.equal(actual, null, what);
  assert.ok(
    typeof actual === "number" && Math.abs(actual - wanted) < 1e-12,
    `${what}: ${actual} ≠ ${wanted}`,
  );
}

function pct(v: number | null): string {
  return v === null ? "n/a" : `${(v * 100).toFixed(1)}%`;
}

/** The Markdown table right after a heading, as cell rows (header and rule left out). */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  let i = lines.indexOf(heading);
  assert.ok(i >= 0, `report.md has "${heading}"`);
  while (!lines[i]!.startsWith("|")) i++;
  const rows: string[][] = [];
  for (i += 2; lines[i]?.startsWith("|"); i++) {
    rows.push(lines[i]!.slice(1, -1).split("|").map((c) => c.trim()));
  }
  return rows;
}

function heading(question: string, label: string): string {
  return question === "severity" ? `${label} ${LEVEL_NAMES[Number(label)]}` : label;
}

Deno.test("per-class results of the tickets set agree in run.json, the reports, the index and the view with a recomputation from decisions.jsonl", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-classes-" });
  try {
    const runs = join(tmp, "runs");
    const db = join(runs, "decibench.db");
    const workflow = join(tmp, "tickets.yaml");
    const example = await Deno.readTextFile(join(ROOT, "examples/tickets/workflow.yaml"));
    await Deno.writeTextFile(
      workflow,
      example
        .replace(/^\$schema:.*$/m, "")
        .replace("path: tickets.csv", `path: ${join(ROOT, "examples/tickets/tickets.csv")}`)
        .replace(
          /reference: \{[^}]*\}/,
          'reference: { predictor: oracle, faults: "jitter=0.5,malformed=0.05", seed: 3 }',
        ),
    );
    const dir = join(runs, "tickets");
    const bench = await runScript("bench.ts", [
      workflow,
      "--out",
      dir,
      "--db",
      db,
      "--limit",
      "1200",
    ]);
    assert.ok(bench.code === 0 || bench.code === 1, bench.stderr);
    const run = JSON.parse(await Deno.readTextFile(join(dir, "run.json"))) as RunJson;
    const records = (await Deno.readTextFile(join(dir, "decisions.jsonl"))).trim().split("\n")
      .map((line) => JSON.parse(line) as DecisionRecord);
    const classes = run.summary?.classes as ClassResults;
    const lanes = [...new Set(records.map((r) => r.workflow))];
    const want = Object.fromEntries(
      Object.keys(OPTIONS).map((q) => [q, expected(q, records)]),
    ) as Record<string, Expected>;

    await t.step("run.json holds every question, overall and per lane, as recomputed", () => {
      assert.deepEqual(Object.keys(classes).sort(), Object.keys(OPTIONS).sort());
      for (const [q, e] of Object.entries(want)) {
        const got = classes[q]!;
        assert.deepEqual(got.labels, OPTIONS[q]);
        assert.deepEqual(got.columns, [...OPTIONS[q]!, "error"]);
        assert.deepEqual(got.confusion, e.confusion, `${q} confusion`);
        assert.equal(got.n, e.n);
        got.perClass.forEach((r, i) => {
          const w = e.perClass[i]!;
          assert.equal(r.label, w.label);
          assert.equal(r.support, w.support);
          close(r.precision, w.precision, `${q} ${r.label} precision`);
          close(r.recall, w.recall, `${q} ${r.label} recall`);
          close(r.f1, w.f1, `${q} ${r.label} f1`);
        });
        close(got.macroF1, e.macroF1, `${q} macro-F1`);
        close(got.majorityBaseline, e.majorityBaseline, `${q} majority baseline`);
        // The diagonal over n is the question's accuracy over labelled decisions.
        const diagonal = got.confusion.reduce((a, row, i) => a + row[i]!, 0);
        close(diagonal / got.n, e.accuracy, `${q} accuracy`);
        assert.deepEqual(Object.keys(got.lanes).sort(), [...lanes].sort());
        for (const lane of lanes) {
          const l = expected(q, records.filter((r) => r.workflow === lane));
          assert.deepEqual(got.lanes[lane]!.confusion, l.confusion, `${q} ${lane} confusion`);
          close(got.lanes[lane]!.macroF1, l.macroF1, `${q} ${lane} macro-F1`);
          close(got.lanes[lane]!.majorityBaseline, l.majorityBaseline, `${q} ${lane} baseline`);
        }
      }
      assert.deepEqual(classes.severity!.levels?.map((t) => t.split(":")[0]), LEVEL_NAMES);
    });

    await t.step("unlabelled decisions are left out and errored ones are the error column", () => {
      for (const q of Object.keys(OPTIONS)) {
        const all = records.filter((r) => r.question === q);
        const unlabelled = all.filter((r) => r.gold === null).length;
        assert.ok(unlabelled > 0, `${q} has blank labels`);
        assert.equal(classes[q]!.n, all.length - unlabelled);
        const errored = all.filter((r) => r.gold !== null && r.error !== null).length;
        assert.ok(errored > 0, `${q} has labelled errors`);
        assert.equal(classes[q]!.confusion.reduce((a, row) => a + row.at(-1)!, 0), errored);
      }
    });

    await t.step("AUROC of urgent is the exact pairwise value within the 0.001 bins' ties", () => {
      const urgent = classes.urgent!;
      const e = want.urgent!;
      assert.ok(typeof urgent.auroc === "number");
      assert.ok(
        Math.abs(urgent.auroc - e.auroc!) <= e.aurocSlack! + 1e-12,
        `AUROC ${urgent.auroc} vs exact ${e.auroc} (slack ${e.aurocSlack})`,
      );
      const [lo, hi] = urgent.intervals!.auroc!;
      assert.ok(lo <= urgent.auroc && urgent.auroc <= hi && hi - lo > 0);
      assert.ok(typeof urgent.auprc === "number" && urgent.intervals!.auprc !== null);
      assert.equal(classes.topic!.auroc, undefined);
    });

    await t.step("the terminal shows macro-F1 and the majority baseline per question", () => {
      const out = bench.lines.join("\n");
      assert.match(
        out,
        /Per class \(confusion matrices, per-class and per-lane figures: report\.md\)/,
      );
      for (const [q, e] of Object.entries(want)) {
        const row = bench.lines.find((l) => l.startsWith(`${q} `) && l.includes("%"));
        assert.ok(row, `terminal row of ${q}`);
        assert.ok(
          row.includes(e.macroF1!.toFixed(3)) && row.includes(pct(e.majorityBaseline)),
          row,
        );
      }
    });

    await t.step("report.md and report.html show the matrices and per-class tables", async () => {
      const md = await Deno.readTextFile(join(dir, "report.md"));
      const html = await Deno.readTextFile(join(dir, "report.html"));
      for (const [q, e] of Object.entries(want)) {
        const type = classes[q]!.type;
        const matrix = tableAfter(md, `### ${q} (${type})`);
        assert.deepEqual(
          matrix,
          OPTIONS[q]!.map((label, i) => [
            heading(q, label),
            ...e.confusion[i]!.map(String),
            String(e.perClass[i]!.support),
          ]),
          `${q} matrix in report.md`,
        );
        const summary = `${e.n} labelled · macro-F1 ${e.macroF1!.toFixed(3)} · majority baseline ${
          pct(e.majorityBaseline)
        }`;
        assert.ok(md.includes(summary), summary);
        assert.ok(html.includes(summary), `report.html: ${summary}`);
        for (const r of e.perClass) {
          const cells = [heading(q, r.label), r.precision, r.recall, r.f1].map((v) =>
            typeof v === "number" ? v.toFixed(3) : v
          );
          assert.ok(md.includes(`| ${cells.join(" | ")} | ${r.support} |`), `${q} ${r.label} row`);
        }
      }
      const auroc = classes.urgent!.auroc!;
      const [lo, hi] = classes.urgent!.intervals!.auroc!;
      const shown = `AUROC ${auroc.toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}]`;
      assert.ok(md.includes(shown) && html.includes(shown), shown);
      assert.match(html, /<h2 id="per-class">Per-class results<\/h2>/);
    });

    await t.step("the index's classes table holds the per-class rows, overall and per lane", () => {
      const index = new DatabaseSync(db, { readOnly: true });
      try {
        const rows = index.prepare(
          "SELECT question, lane, label, precision, recall, f1, support FROM classes WHERE run_id = ? ORDER BY rowid",
        ).all(run.id) as Record<string, string | number | null>[];
        for (const [q, e] of Object.entries(want)) {
          const overall = rows.filter((r) => r.question === q && r.lane === null);
          assert.deepEqual(overall.map((r) => r.label), OPTIONS[q]);
          overall.forEach((r, i) => {
            const w = e.perClass[i]!;
            assert.equal(r.support, w.support);
            close(r.precision as number | null, w.precision, `index ${q} precision`);
            close(r.recall as number | null, w.recall, `index ${q} recall`);
            close(r.f1 as number | null, w.f1, `index ${q} f1`);
          });
          for (const lane of lanes) {
            const l = expected(q, records.filter((r) => r.workflow === lane));
            const got = rows.filter((r) => r.question === q && r.lane === lane);
            assert.deepEqual(got.map((r) => r.support), l.perClass.map((r) => r.support));
          }
        }
      } finally {
        index.close();
      }
    });

    await t.step("the view's per-class page and API show the same figures", async () => {
      // A copy of the run whose run.json has no per-class results: the view computes them.
      const bare = join(runs, "bare");
      await Deno.mkdir(bare);
      await Deno.copyFile(join(dir, "decisions.jsonl"), join(bare, "decisions.jsonl"));
      const { classes: _, ...summary } = run.summary!;
      await Deno.writeTextFile(
        join(bare, "run.json"),
        JSON.stringify({ ...run, id: `${run.id}-bare`, summary }),
      );
      const view = await startView({ port: 0, dbPath: db, runsDir: runs });
      try {
        for (const id of [run.id, `${run.id}-bare`]) {
          const api = await (await fetch(`${view.url}/api/runs/${id}/classes`)).json();
          for (const [q, e] of Object.entries(want)) {
            assert.deepEqual(api.classes[q].confusion, e.confusion, `${id} API ${q}`);
          }
          // The bare copy's are computed from the decisions with the run's seed: the same.
          assert.deepEqual(api.classes, classes);
          const runPage = await (await fetch(`${view.url}/runs/${id}`)).text();
          assert.ok(runPage.includes(`href="/runs/${id}/classes"`), "the run page links to it");
          for (const lane of [undefined, lanes[0]!]) {
            const res = await fetch(
              `${view.url}/runs/${id}/classes${lane ? `?lane=${encodeURIComponent(lane)}` : ""}`,
            );
            assert.equal(res.status, 200);
            const doc = dom(await res.text());
            const shown = lane === undefined ? records : records.filter((r) => r.workflow === lane);
            for (const q of Object.keys(OPTIONS)) {
              const e = expected(q, shown);
              const table = doc.querySelector(`table.confusion[data-question="${q}"]`)!;
              OPTIONS[q]!.forEach((gold, i) => {
                [...OPTIONS[q]!, "error"].forEach((predicted, j) => {
                  const cell = table.querySelector(
                    `td[data-gold="${gold}"][data-predicted="${predicted}"]`,
                  );
                  assert.equal(
                    cell?.textContent,
                    String(e.confusion[i]![j]),
                    `${q} ${gold}→${predicted}`,
                  );
                });
              });
              const per = doc.querySelector(`table.per-class[data-question="${q}"]`)!;
              for (const r of e.perClass) {
                const f1 = per.querySelector(`tr[data-label="${r.label}"] [data-field="f1"]`);
                const value = f1?.getAttribute("data-value") ?? "";
                close(value === "" ? null : Number(value), r.f1, `view ${q} ${r.label} F1`);
              }
            }
          }
        }
        const unknown = await fetch(`${view.url}/runs/${run.id}/classes?lane=nowhere`);
        assert.equal(unknown.status, 404);
        await unknown.body?.cancel();
      } finally {
        await view.close();
      }
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
