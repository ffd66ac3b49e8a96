// A user's own question set with blank labels, benchmarked end to end once: `deno task bench` on
// examples/tickets (a choice, a yes/no and a score question, four lanes, ~630 blank labels)
// against the embedded oracle with seeded noise and malformed replies, so the confusion matrices
// are not diagonal and some labelled decisions are errors, into a temp folder and a temp index.
// The accuracy, the decision / labelled / unlabelled / error counts, each question type's, lane's
// and question's n and labelled n, and the per-class figures (confusion matrix, precision, recall,
// F1, support, macro-F1, majority baseline, AUROC) are recomputed here from decisions.jsonl alone
// (no decibench scoring code), and must be the same in the terminal output, report.md,
// report.html, run.json, the index, the view's pages and JSON API, the CSV export, and the
// explore_run and per_lane notebooks executed by Jupyter on the run. An unlabelled decision is
// neither right nor wrong anywhere.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parse as parseCsv } from "csv-parse/sync";
import { parseHTML } from "linkedom";
import type { ClassResults } from "../lib/metrics/mod.ts";
import { type DecisionRecord, openRun, readDecisions, type RunJson } from "../lib/record/mod.ts";
import { startView } from "../lib/view/mod.ts";
import { ROOT, runScript } from "./bench_cli_helpers.ts";
import {
  assertJupyter,
  executeRunNotebook,
  notebookErrors,
  type NotebookOutput,
  notebookText,
} from "./notebook_helpers.ts";

const TICKETS = join(ROOT, "examples", "tickets");
const OPTIONS: Record<string, string[]> = {
  topic: ["billing", "shipping", "returns", "account", "other"],
  urgent: ["true", "false"],
  severity: ["0", "1", "2", "3"],
};
const LEVEL_NAMES = ["None", "Low", "High", "Critical"];

/** Counts of one group (a question type, a lane, a lane/question, or the run). */
interface Counts {
  n: number;
  labelled: number;
  correct: number;
  /** Labelled decisions that were answered (what the confidence charts draw). */
  answeredLabelled: number;
  /** Decisions that failed (labelled or not). */
  errors: number;
  /** Unlabelled decisions that were answered. */
  answeredUnlabelled: number;
}

function empty(): Counts {
  return { n: 0, labelled: 0, correct: 0, answeredLabelled: 0, errors: 0, answeredUnlabelled: 0 };
}

/** The top answer: the highest probability, the key listed first on a tie. */
function top(predicted: Record<string, number>): string | null {
  let best: string | null = null;
  let p = -Infinity;
  for (const [k, v] of Object.entries(predicted)) {
    if (v > p) {
      best = k;
      p = v;
    }
  }
  return best;
}

/** The figures recomputed from decisions.jsonl's text. */
interface Expected {
  all: Counts;
  byType: Map<string, Counts>;
  byLane: Map<string, Counts>;
  byQuestion: Map<string, Counts>;
  unlabelledByQuestion: Map<string, number>;
}

function add(map: Map<string, Counts>, key: string): Counts {
  let c = map.get(key);
  if (c === undefined) map.set(key, c = empty());
  return c;
}

function recompute(text: string): Expected {
  const e: Expected = {
    all: empty(),
    byType: new Map(),
    byLane: new Map(),
    byQuestion: new Map(),
    unlabelledByQuestion: new Map(),
  };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const d = JSON.parse(line);
    const groups = [
      e.all,
      add(e.byType, d.type),
      add(e.byLane, d.workflow),
      add(e.byQuestion, `${d.workflow}/${d.question}`),
    ];
    for (const g of groups) {
      g.n++;
      if (d.error !== null) g.errors++;
    }
    if (d.gold === null) {
      e.unlabelledByQuestion.set(d.question, (e.unlabelledByQuestion.get(d.question) ?? 0) + 1);
      if (d.error === null) { for (const g of groups) g.answeredUnlabelled++; }
      continue;
    }
    const right = d.error === null && d.predicted !== null && top(d.predicted) === d.gold;
    for (const g of groups) {
      g.labelled++;
      if (right) g.correct++;
      if (d.error === null && d.confidence !== null) g.answeredLabelled++;
    }
  }
  return e;
}

function pct(c: Counts): string {
  return `${(c.correct / c.labelled * 100).toFixed(1)}%`;
}

/** `[group, n, labelled, accuracy]` of each group, in the map's keys' sorted order. */
function expectedRows(map: Map<string, Counts>): string[][] {
  return [...map].map(([k, c]) => [k, String(c.n), String(c.labelled), pct(c)]).sort(byKey);
}

function byKey(a: string[], b: string[]): number {
  return (a[0] ?? "") < (b[0] ?? "") ? -1 : 1;
}

/** The first four cells (group, n, labelled, accuracy) of table rows, sorted by group. */
function firstFour(rows: string[][]): string[][] {
  return rows.map((r) => r.slice(0, 4)).sort(byKey);
}

/** The rows of the terminal table under a heading line. */
function terminalTable(lines: readonly string[], heading: RegExp): string[][] {
  const at = lines.findIndex((l) => heading.test(l));
  assert.ok(at >= 0, `no "${heading}" in the terminal output`);
  assert.deepEqual(lines[at + 1]?.trim().split(/\s{2,}/).slice(0, 4), [
    "group",
    "n",
    "labelled",
    "accuracy",
  ]);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 3)) {
    if (!line.trim()) break;
    rows.push(line.trim().split(/\s{2,}/));
  }
  return rows;
}

/** The rows of the Markdown table under a heading (its count column headed `n`, or as given). */
function markdownTable(md: string, heading: RegExp, count = "n"): string[][] {
  const lines = md.split("\n");
  const at = lines.findIndex((l) => heading.test(l));
  assert.ok(at >= 0, `no "${heading}" in report.md`);
  const rows: string[][] = [];
  let header: string[] | null = null;
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith("|")) {
      if (header) break;
      continue;
    }
    const cells = line.slice(1, -1).split("|").map((c) => c.trim());
    if (header === null) header = cells;
    else if (!/^-+:?$/.test(cells[0] ?? "")) rows.push(cells);
  }
  assert.deepEqual(header?.slice(0, 4), ["group", count, "labelled", "accuracy"]);
  return rows;
}

// deno-lint-ignore no-explicit-any
type Dom = any;

function dom(html: string): Dom {
  return (parseHTML(html) as unknown as { document: Dom }).document;
}

function cellRows(table: Dom): string[][] {
  return [...table.querySelectorAll("tbody tr")].map((tr: Dom) =>
    [...tr.querySelectorAll("th, td")].map((c: Dom) =>
      (c.textContent ?? "").replace(/\s+/g, " ").trim()
    )
  );
}

/** The table right after the `<h3>` (report.html) whose text matches. */
function htmlTableAfter(doc: Dom, heading: RegExp): string[][] {
  const h = [...doc.querySelectorAll("h2, h3")].find((el: Dom) => heading.test(el.textContent));
  assert.ok(h, `no "${heading}" heading in report.html`);
  let el = h.nextElementSibling;
  while (el && el.tagName !== "TABLE") el = el.nextElementSibling;
  assert.ok(el, `no table after "${heading}"`);
  const header = [...el.querySelectorAll("thead th")].map((c: Dom) => c.textContent.trim());
  if (header[1] === "n") {
    assert.deepEqual(header.slice(0, 4), ["group", "n", "labelled", "accuracy"]);
  }
  return cellRows(el);
}

/** The sum of a reliability chart's `n=` labels (its bins' decisions). */
function reliabilityN(svg: string): number {
  let n = 0;
  for (const m of svg.matchAll(/<title>[^<]*?: n=(\d+),/g)) n += Number(m[1]);
  return n;
}

interface ClassExpected {
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
function expectedClasses(question: string, decisions: readonly DecisionRecord[]): ClassExpected {
  const labels = OPTIONS[question]!;
  const labelled = decisions.filter((d) => d.question === question && d.gold !== null);
  const confusion = labels.map((gold) =>
    [...labels, "error"].map((predicted) =>
      labelled.filter((d) =>
        d.gold === gold && (d.error === null ? answerOf(d) === predicted : predicted === "error")
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
  const out: ClassExpected = {
    n,
    confusion,
    perClass,
    macroF1: f1s.length ? f1s.reduce((a, b) => a + b, 0) / f1s.length : null,
    majorityBaseline: n ? Math.max(...perClass.map((r) => r.support)) / n : null,
    accuracy: labelled.filter((d) => d.error === null && answerOf(d) === d.gold).length / n,
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

function pctOf(v: number | null): string {
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

/** The top answer of an answered decision, from its predicted distribution. */
function answerOf(d: DecisionRecord): string | null {
  return d.predicted === null ? null : top(d.predicted as Record<string, number>);
}

/** Per-class figures of a CSV export's rows (gold, answer and error_kind cells), by definition. */
function csvConfusion(rows: readonly Record<string, string>[], question: string): number[][] {
  const labels = OPTIONS[question]!;
  const labelled = rows.filter((r) => r.question === question && r.gold !== "");
  return labels.map((gold) =>
    [...labels, "error"].map((predicted) =>
      labelled.filter((r) =>
        r.gold === gold && (r.error_kind === "" ? r.answer === predicted : predicted === "error")
      ).length
    )
  );
}

/** The Markdown a notebook showed, joined. */
function notebookMarkdown(outputs: readonly NotebookOutput[]): string {
  return outputs.map((o) =>
    notebookText(o.data?.["text/plain"]) + "\n" + notebookText(o.data?.["text/markdown"])
  ).join("\n");
}

Deno.test("an own question set with blank labels: the same counts, accuracy and per-class figures on every surface", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-own-set-" });
  const runs = join(tmp, "runs");
  const dir = join(runs, "tickets");
  const db = join(tmp, "index.db");
  try {
    // The example's workflow against the oracle with 5% malformed replies (seeded): errors in
    // every question and a confusion matrix that is not diagonal.
    const workflow = join(tmp, "tickets.yaml");
    const example = await Deno.readTextFile(join(TICKETS, "workflow.yaml"));
    await Deno.writeTextFile(
      workflow,
      example
        .replace(/^\$schema:.*$/m, "")
        .replace("path: tickets.csv", `path: ${join(TICKETS, "tickets.csv")}`)
        .replace(
          /reference: \{[^}]*\}/,
          'reference: { predictor: oracle, faults: "jitter=0.5,malformed=0.05", seed: 3 }',
        ),
    );
    const bench = await runScript("bench.ts", [workflow, "--out", dir, "--db", db]);
    // Exit 1: the errored cases leave the run incomplete.
    assert.ok(bench.code === 0 || bench.code === 1, bench.stderr);
    const lines = bench.lines;
    const text = await Deno.readTextFile(join(dir, "decisions.jsonl"));
    const e = recompute(text);
    const records = text.trim().split("\n").map((line) => JSON.parse(line) as DecisionRecord);
    const unlabelled = e.all.n - e.all.labelled;
    const accuracy = e.all.correct / e.all.labelled;
    const run = JSON.parse(await Deno.readTextFile(join(dir, "run.json"))) as RunJson & {
      // deno-lint-ignore no-explicit-any
      spec: any;
      // deno-lint-ignore no-explicit-any
      summary: any;
    };
    const classes = run.summary.classes as ClassResults;
    const lanes = [...new Set(records.map((r) => r.workflow))];
    // The two notebooks execute under Jupyter, one after the other, while the other surfaces are
    // checked.
    await assertJupyter();
    const env = { DECIBENCH_RUN_DIR: dir };
    const explore = executeRunNotebook("explore_run", env, [
      /answered and labelled/,
      /\*\*Question:\*\*/,
      /\{"malformed":\d+\}/,
    ]);
    const perLane = explore.catch(() => {}).then(() =>
      executeRunNotebook("per_lane", env, [
        /### By lane/,
        /### By question/,
        /### severity \(score\)/,
      ])
    );
    // Handled here too, so that a failure is reported by its step, not as an unhandled rejection.
    perLane.catch(() => {});
    const want = Object.fromEntries(
      Object.keys(OPTIONS).map((q) => [q, expectedClasses(q, records)]),
    ) as Record<string, ClassExpected>;

    await t.step("the source file's blank cells are the unlabelled decisions", () => {
      const rows = parseCsv(Deno.readTextFileSync(join(TICKETS, "tickets.csv")), {
        columns: true,
      }) as Record<string, string>[];
      for (const q of ["topic", "urgent", "severity"]) {
        const blank = rows.filter((r) => (r[q] ?? "").trim() === "").length;
        assert.ok(blank > 0, `${q} has blank labels`);
        assert.equal(e.unlabelledByQuestion.get(q), blank, q);
        assert.equal(run.spec.question_set.labelled[q], rows.length - blank, q);
      }
      assert.equal(e.all.n, 3 * rows.length);
      assert.ok(unlabelled > 500 && e.all.labelled > 8000, `${unlabelled} unlabelled`);
      assert.ok(e.all.errors > 0 && e.all.answeredUnlabelled > 0, "errors and answered unlabelled");
    });

    await t.step("decisions.jsonl: correct null and no KL or Brier without gold", () => {
      for (const d of records) {
        const at = `${d.case}/${d.question}`;
        if (d.gold === null) {
          assert.equal(d.correct, null, `${at}: correct of an unlabelled decision`);
          assert.equal(d.gold_probabilities, null, at);
          assert.ok(!("kl" in d) && !("brier" in d), `${at} has a KL or Brier field`);
        } else {
          const right = d.error === null && d.predicted !== null && answerOf(d) === d.gold;
          assert.equal(d.correct, right, `${at}: correct`);
        }
        if (d.error === null) assert.equal(d.answer, answerOf(d), `${at}: answer`);
      }
    });

    await t.step("run.json: counts and accuracy", () => {
      assert.equal(run.summary.decisions, e.all.n);
      assert.equal(run.summary.labelled, e.all.labelled);
      assert.ok(Math.abs(run.summary.metrics.accuracy - accuracy) < 1e-12);
      const reliability = run.summary.reliability.reduce(
        (s: number, r: { n: number }) => s + r.n,
        0,
      );
      assert.equal(reliability, e.all.answeredLabelled);
    });

    await t.step("run.json: per-class results of every question, overall and per lane", () => {
      assert.deepEqual(Object.keys(classes).sort(), Object.keys(OPTIONS).sort());
      for (const [q, w] of Object.entries(want)) {
        const got = classes[q]!;
        assert.deepEqual(got.labels, OPTIONS[q]);
        assert.deepEqual(got.columns, [...OPTIONS[q]!, "error"]);
        assert.deepEqual(got.confusion, w.confusion, `${q} confusion`);
        assert.equal(got.n, w.n);
        got.perClass.forEach((r, i) => {
          const x = w.perClass[i]!;
          assert.equal(r.label, x.label);
          assert.equal(r.support, x.support);
          close(r.precision, x.precision, `${q} ${r.label} precision`);
          close(r.recall, x.recall, `${q} ${r.label} recall`);
          close(r.f1, x.f1, `${q} ${r.label} f1`);
        });
        close(got.macroF1, w.macroF1, `${q} macro-F1`);
        close(got.majorityBaseline, w.majorityBaseline, `${q} majority baseline`);
        // The diagonal over n is the question's accuracy over labelled decisions.
        const diagonal = got.confusion.reduce((a, row, i) => a + row[i]!, 0);
        close(diagonal / got.n, w.accuracy, `${q} accuracy`);
        const byQuestion = [...e.byQuestion].filter(([k]) => k.endsWith(`/${q}`));
        assert.equal(
          byQuestion.reduce((a, [, c]) => a + c.correct, 0),
          diagonal,
          `${q}: the diagonal is the question's correct decisions`,
        );
        // Lanes in the run's order (as the lane tables list them), the same for every question.
        assert.deepEqual(Object.keys(got.lanes), lanes, `${q}: lanes in the run's order`);
        for (const lane of lanes) {
          const l = expectedClasses(q, records.filter((r) => r.workflow === lane));
          assert.deepEqual(got.lanes[lane]!.confusion, l.confusion, `${q} ${lane} confusion`);
          close(got.lanes[lane]!.macroF1, l.macroF1, `${q} ${lane} macro-F1`);
          close(got.lanes[lane]!.majorityBaseline, l.majorityBaseline, `${q} ${lane} baseline`);
        }
      }
      assert.deepEqual(classes.severity!.levels?.map((t) => t.split(":")[0]), LEVEL_NAMES);
    });

    await t.step(
      "per class: unlabelled decisions are left out, errored ones are the error column",
      () => {
        for (const q of Object.keys(OPTIONS)) {
          const all = records.filter((r) => r.question === q);
          const blank = all.filter((r) => r.gold === null).length;
          assert.ok(blank > 0, `${q} has blank labels`);
          assert.equal(classes[q]!.n, all.length - blank);
          const errored = all.filter((r) => r.gold !== null && r.error !== null).length;
          assert.ok(errored > 0, `${q} has labelled errors`);
          assert.equal(classes[q]!.confusion.reduce((a, row) => a + row.at(-1)!, 0), errored);
        }
      },
    );

    await t.step(
      "per class: AUROC of urgent is the exact pairwise value within the 0.001 bins' ties",
      () => {
        const urgent = classes.urgent!;
        const w = want.urgent!;
        assert.ok(typeof urgent.auroc === "number");
        assert.ok(
          Math.abs(urgent.auroc - w.auroc!) <= w.aurocSlack! + 1e-12,
          `AUROC ${urgent.auroc} vs exact ${w.auroc} (slack ${w.aurocSlack})`,
        );
        const [lo, hi] = urgent.intervals!.auroc!;
        assert.ok(lo <= urgent.auroc && urgent.auroc <= hi && hi - lo > 0);
        assert.ok(typeof urgent.auprc === "number" && urgent.intervals!.auprc !== null);
        assert.equal(classes.topic!.auroc, undefined);
      },
    );

    await t.step("the terminal output", () => {
      const counts = `${e.all.n} decisions, ${e.all.labelled} labelled (${unlabelled} unlabelled)`;
      assert.ok(lines.some((l) => l.startsWith("decisions ") && l.includes(counts)), counts);
      assert.ok(
        lines.some((l) => l.startsWith(`accuracy    ${(accuracy * 100).toFixed(1)}% [`)),
        "headline accuracy",
      );
      assert.deepEqual(
        firstFour(terminalTable(lines, /^By question type$/)),
        expectedRows(e.byType),
      );
      assert.deepEqual(
        firstFour(terminalTable(lines, /^By (workflow|lane)/)),
        expectedRows(e.byLane),
      );
      // The progress line's accuracy is over labelled decisions too.
      const progress = bench.stderr.split("\n").filter((l) => l.startsWith("progress ")).at(-1) ??
        "";
      assert.match(progress, new RegExp(`accuracy ${(accuracy * 100).toFixed(1)}%`));
    });

    await t.step("the terminal: macro-F1 and the majority baseline per question", () => {
      const out = lines.join("\n");
      assert.match(
        out,
        /Per class \(confusion matrices, per-class and per-lane figures: report\.md\)/,
      );
      for (const [q, w] of Object.entries(want)) {
        const row = lines.find((l) => l.startsWith(`${q} `) && l.includes("%"));
        assert.ok(row, `terminal row of ${q}`);
        const cells = row.trim().split(/\s{2,}/);
        assert.deepEqual(
          cells.slice(0, 5),
          [q, classes[q]!.type, String(w.n), w.macroF1!.toFixed(3), pctOf(w.majorityBaseline)],
          row,
        );
      }
    });

    const md = await Deno.readTextFile(join(dir, "report.md"));
    await t.step("report.md: counts and headline", () => {
      assert.match(
        md,
        new RegExp(
          `\\| decisions \\| ${e.all.n} decisions, ${e.all.labelled} labelled \\(${unlabelled} unlabelled\\)`,
        ),
      );
      assert.match(md, new RegExp(`\\| accuracy \\| ${(accuracy * 100).toFixed(1)}% \\|`));
    });
    await t.step("report.md: n and labelled n by type, lane and question", () => {
      assert.deepEqual(
        firstFour(markdownTable(md, /^## By question type/)),
        expectedRows(e.byType),
      );
      assert.deepEqual(
        firstFour(markdownTable(md, /^## By (workflow|lane)/)),
        expectedRows(e.byLane),
      );
      assert.deepEqual(
        firstFour(markdownTable(md, /^## By question$/)),
        expectedRows(e.byQuestion),
      );
    });
    await t.step("report.md: selective prediction and scorer profile over labelled", () => {
      // The selective-prediction table keeps at most the answered, labelled decisions.
      const kept = anyMarkdownTable(md, /^### Selective prediction/).map((r) => Number(r[2]));
      assert.equal(Math.max(...kept), e.all.answeredLabelled);
      // The scorer profile's pooled accuracy is the headline's.
      const profile = anyMarkdownTable(md, /^### Scorer profile/);
      assert.equal(profile[0]?.[2], `${(accuracy * 100).toFixed(1)}%`);
    });

    const html = await Deno.readTextFile(join(dir, "report.html"));
    const doc = dom(html);
    await t.step("report.html: counts and headline", () => {
      const cards = [...doc.querySelectorAll(".card")].map((c: Dom) => c.textContent);
      assert.ok(
        cards.some((c: string) =>
          c.includes(String(e.all.n)) &&
          c.includes(`${e.all.labelled} labelled (${unlabelled} unlabelled)`)
        ),
        "decisions card",
      );
      const metrics = htmlTableAfter(doc, /^Metrics$/);
      assert.equal(
        metrics.find((r) => r[0] === "accuracy")?.[1],
        `${(accuracy * 100).toFixed(1)}%`,
      );
    });
    await t.step("report.html: n and labelled n by type, lane and question", () => {
      assert.deepEqual(
        firstFour(htmlTableAfter(doc, /^By question type$/)),
        expectedRows(e.byType),
      );
      assert.deepEqual(
        firstFour(htmlTableAfter(doc, /^By (workflow|lane)/)),
        expectedRows(e.byLane),
      );
      assert.deepEqual(firstFour(htmlTableAfter(doc, /^By question$/)), expectedRows(e.byQuestion));
    });
    await t.step("report.html: reliability diagram and confidence histogram over labelled", () => {
      assert.equal(reliabilityN(html), e.all.answeredLabelled);
      assert.match(
        html,
        new RegExp(`Confidence histogram of the ${e.all.answeredLabelled} answered, labelled`),
      );
      // What the histogram and the risk–coverage chart draw.
      const report = JSON.parse(Deno.readTextFileSync(join(dir, "report.json")));
      assert.equal(report.points.length, e.all.answeredLabelled);
      const wrong = report.points.filter((p: { correct: boolean }) => !p.correct).length;
      assert.equal(wrong, e.all.answeredLabelled - e.all.correct);
    });
    await t.step("report.html: selective prediction and scorer profile over labelled", () => {
      const kept = htmlTableAfter(doc, /^Selective prediction/).map((r) => Number(r[2]));
      assert.equal(Math.max(...kept), e.all.answeredLabelled);
      const profile = htmlTableAfter(doc, /^Scorer profile$/);
      assert.equal(profile[0]?.[2], `${(accuracy * 100).toFixed(1)}%`);
    });

    await t.step("the index (SQL)", () => {
      const sql = new DatabaseSync(db, { readOnly: true });
      try {
        const row = sql.prepare(
          `SELECT count(*) AS n, count(correct) AS labelled, sum(gold IS NULL) AS no_gold,
            sum(correct) AS correct, avg(correct) AS accuracy,
            sum(kl IS NOT NULL AND gold IS NULL) AS kl_unlabelled,
            sum(gold_probabilities IS NULL) AS no_gold_p
          FROM decisions WHERE run_id = ?`,
        ).get(run.id) as Record<string, number>;
        assert.equal(row.n, e.all.n);
        assert.equal(row.labelled, e.all.labelled);
        assert.equal(row.no_gold, unlabelled);
        assert.equal(row.no_gold_p, unlabelled);
        assert.equal(row.kl_unlabelled, 0);
        assert.equal(row.correct, e.all.correct);
        assert.ok(Math.abs(Number(row.accuracy) - accuracy) < 1e-12, "avg(correct)");
        const groups = (column: string) =>
          (sql.prepare(
            `SELECT ${column} AS k, count(*) AS n, count(correct) AS labelled,
              sum(correct) AS correct FROM decisions WHERE run_id = ? GROUP BY k`,
          ).all(run.id) as Record<string, number | string>[]).map((r) => [
            String(r.k),
            String(r.n),
            String(r.labelled),
            `${(Number(r.correct) / Number(r.labelled) * 100).toFixed(1)}%`,
          ]).sort(byKey);
        assert.deepEqual(groups("type"), expectedRows(e.byType));
        assert.deepEqual(groups("workflow"), expectedRows(e.byLane));
        assert.deepEqual(groups("workflow || '/' || question"), expectedRows(e.byQuestion));
        const indexed = sql.prepare("SELECT decisions, labelled, accuracy FROM runs WHERE id = ?")
          .get(run.id) as Record<string, number>;
        assert.equal(indexed.decisions, e.all.n);
        assert.equal(indexed.labelled, e.all.labelled);
        assert.ok(Math.abs(Number(indexed.accuracy) - accuracy) < 1e-12);
      } finally {
        sql.close();
      }
    });

    await t.step("report.md and report.html: the matrices and per-class tables", () => {
      for (const [q, w] of Object.entries(want)) {
        const type = classes[q]!.type;
        const matrix = tableAfter(md, `### ${q} (${type})`);
        assert.deepEqual(
          matrix,
          OPTIONS[q]!.map((label, i) => [
            heading(q, label),
            ...w.confusion[i]!.map(String),
            String(w.perClass[i]!.support),
          ]),
          `${q} matrix in report.md`,
        );
        const summary = `${w.n} labelled · macro-F1 ${w.macroF1!.toFixed(3)} · majority baseline ${
          pctOf(w.majorityBaseline)
        }`;
        assert.ok(md.includes(summary), summary);
        assert.ok(html.includes(summary), `report.html: ${summary}`);
        for (const r of w.perClass) {
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

    await t.step("the index's classes table: per-class rows, overall and per lane", () => {
      const index = new DatabaseSync(db, { readOnly: true });
      try {
        const rows = index.prepare(
          "SELECT question, lane, label, precision, recall, f1, support FROM classes WHERE run_id = ? ORDER BY rowid",
        ).all(run.id) as Record<string, string | number | null>[];
        for (const [q, w] of Object.entries(want)) {
          const overall = rows.filter((r) => r.question === q && r.lane === null);
          assert.deepEqual(overall.map((r) => r.label), OPTIONS[q]);
          overall.forEach((r, i) => {
            const x = w.perClass[i]!;
            assert.equal(r.support, x.support);
            close(r.precision as number | null, x.precision, `index ${q} precision`);
            close(r.recall as number | null, x.recall, `index ${q} recall`);
            close(r.f1 as number | null, x.f1, `index ${q} f1`);
          });
          for (const lane of lanes) {
            const l = expectedClasses(q, records.filter((r) => r.workflow === lane));
            const got = rows.filter((r) => r.question === q && r.lane === lane);
            assert.deepEqual(got.map((r) => r.support), l.perClass.map((r) => r.support));
          }
        }
      } finally {
        index.close();
      }
    });

    await t.step("the CSV export", async () => {
      const out = join(tmp, "decisions.csv");
      const exported = await runScript("export.ts", [dir, "--format", "csv", "--out", out]);
      assert.equal(exported.code, 0, exported.stderr);
      const rows = parseCsv(await Deno.readTextFile(out), { columns: true }) as Record<
        string,
        string
      >[];
      assert.equal(rows.length, e.all.n);
      const blank = rows.filter((r) => r.gold === "");
      assert.equal(blank.length, unlabelled);
      for (const r of blank) {
        assert.deepEqual(
          [r.correct, r.kl, r.brier, r.gold_probabilities],
          ["", "", "", ""],
          `${r.case}/${r.question}`,
        );
      }
      assert.ok(!rows.some((r) => Object.values(r).includes("null")), 'a literal "null" cell');
      assert.equal(rows.filter((r) => r.correct === "true").length, e.all.correct);
      assert.equal(rows.filter((r) => r.correct !== "").length, e.all.labelled);
      assert.equal(rows.filter((r) => r.error_kind !== "").length, e.all.errors);
      // The per-class figures follow from its gold, answer and error_kind cells.
      for (const [q, w] of Object.entries(want)) {
        assert.deepEqual(csvConfusion(rows, q), w.confusion, `${q} confusion from the CSV`);
      }
    });

    await t.step("what the notebooks read (readDecisions, openRun)", async () => {
      const read = await readDecisions(join(dir, "decisions.jsonl"));
      const labelled = read.filter((d) => d.gold !== null);
      assert.equal(read.length, e.all.n);
      assert.equal(labelled.length, e.all.labelled);
      assert.equal(labelled.filter((d) => d.correct).length, e.all.correct);
      assert.ok(read.filter((d) => d.gold === null).every((d) => d.correct === null));
      // explore_run's mistakes: answered, labelled and wrong.
      const mistakes = read.filter((d) => d.error === null && d.correct === false);
      assert.equal(mistakes.length, e.all.answeredLabelled - e.all.correct);
      const opened = await openRun(dir);
      let n = 0;
      let nulls = 0;
      for await (const d of opened.decisions()) {
        n++;
        if (d.correct === null) nulls++;
      }
      assert.deepEqual([n, nulls], [e.all.n, unlabelled]);
    });

    await t.step("notebooks/explore_run.ipynb executed by Jupyter: counts and states", async () => {
      const outputs = await explore;
      assert.deepEqual(notebookErrors(outputs), [], "explore_run wrote error output");
      const said = notebookMarkdown(outputs);
      const answered = e.all.n - e.all.errors;
      const mistakes = e.all.answeredLabelled - e.all.correct;
      assert.ok(
        said.includes(
          `${e.all.n} decisions: ${answered} answered, ${e.all.labelled} labelled, ` +
            `${e.all.answeredLabelled} answered and labelled; ${mistakes} mistakes`,
        ),
        said.slice(0, 2000),
      );
      // Its accuracy: the answered, labelled decisions that are no mistake, over labelled.
      assert.equal((e.all.answeredLabelled - mistakes) / e.all.labelled, accuracy);
      assert.ok(said.includes(`{"malformed":${e.all.errors}}`), "errors by kind");
      assert.doesNotMatch(said, /\*\*Question:\*\* \?/);
      assert.match(
        said,
        /\*\*Question:\*\* (Which team should handle|This ticket needs|How severe)/,
      );
      // A mistake's state, read from the recorded file (rows from the JSONL copy of the set).
      const rows = (await Deno.readTextFile(join(TICKETS, "tickets.jsonl"))).trim().split("\n")
        .map((l) => JSON.parse(l) as Record<string, string>);
      const first = rows.find((r) => said.includes(`### ${r.ticket_id} `));
      assert.ok(first, "a mistake's state is shown");
      assert.ok(said.includes(JSON.stringify(first.message)), "its state comes from the file");
    });

    await t.step(
      "notebooks/per_lane.ipynb executed by Jupyter: by lane, by question, per class",
      async () => {
        const outputs = await perLane;
        assert.deepEqual(notebookErrors(outputs), [], "per_lane wrote error output");
        const said = notebookMarkdown(outputs);
        assert.match(said, /### By lane/);
        const rows = (heading: RegExp) => firstFour(markdownTable(said, heading, "decisions"));
        assert.deepEqual(rows(/^### By lane$/), expectedRows(e.byLane));
        assert.deepEqual(rows(/^### By question$/), expectedRows(e.byQuestion));
        for (const [q, w] of Object.entries(want)) {
          const type = classes[q]!.type;
          const summary = `${w.n} labelled · accuracy ${pctOf(w.accuracy)} · macro-F1 ${
            w.macroF1!.toFixed(3)
          } · majority baseline ${pctOf(w.majorityBaseline)}`;
          assert.ok(said.includes(summary), `per_lane ${q}: ${summary}`);
          const after = said.slice(said.indexOf(`### ${q} (${type})`));
          assert.deepEqual(
            tableAfter(after, summary),
            OPTIONS[q]!.map((label, i) => [
              heading(q, label),
              ...w.confusion[i]!.map(String),
              String(w.perClass[i]!.support),
            ]),
            `${q} matrix in per_lane`,
          );
          for (const r of w.perClass) {
            const cells = [heading(q, r.label), r.precision, r.recall, r.f1].map((v) =>
              typeof v === "number" ? v.toFixed(3) : v
            );
            assert.ok(after.includes(`| ${cells.join(" | ")} | ${r.support} |`), `${q} ${r.label}`);
          }
        }
      },
    );

    // A copy of the run whose run.json has no per-class results: the view computes them.
    const bare = join(runs, "bare");
    await Deno.mkdir(bare);
    await Deno.copyFile(join(dir, "decisions.jsonl"), join(bare, "decisions.jsonl"));
    const { classes: _, ...summary } = run.summary;
    await Deno.writeTextFile(
      join(bare, "run.json"),
      JSON.stringify({ ...run, id: `${run.id}-bare`, summary }),
    );
    const view = await startView({ port: 0, dbPath: db, runsDir: runs });
    try {
      const get = async (path: string) => {
        const res = await fetch(`${view.url}${path}`);
        assert.equal(res.status, 200, path);
        return await res.text();
      };
      const id = encodeURIComponent(run.id);
      const page = await get(`/runs/${id}`);
      const doc = dom(page);
      await t.step("the view's run page: counts and headline", () => {
        const card = (metric: string) =>
          doc.querySelector(`[data-metric="${metric}"]`)?.getAttribute("data-value");
        assert.equal(card("decisions"), String(e.all.n));
        assert.ok(Math.abs(Number(card("accuracy")) - accuracy) < 1e-12);
        assert.equal(card("labelled"), String(e.all.labelled));
        assert.ok(page.includes(`${e.all.labelled} labelled (${unlabelled} unlabelled)`));
      });
      await t.step("the view's run page: n and labelled n by type, lane and question", () => {
        const table = (ids: string[]) => {
          const el = ids.map((i) => doc.getElementById(i)).find((x) => x);
          assert.ok(el, `no table ${ids.join(" or ")}`);
          return firstFour(cellRows(el));
        };
        assert.deepEqual(table(["by-type"]), expectedRows(e.byType));
        assert.deepEqual(table(["by-workflow", "by-lane"]), expectedRows(e.byLane));
        assert.deepEqual(table(["by-question"]), expectedRows(e.byQuestion));
      });
      await t.step("the view's run page: reliability diagram and histogram over labelled", () => {
        assert.equal(reliabilityN(page), e.all.answeredLabelled);
        assert.match(
          page,
          new RegExp(`Confidence histogram of the ${e.all.answeredLabelled} answered, labelled`),
        );
      });
      await t.step("the view's JSON API", async () => {
        const api = JSON.parse(await get(`/api/runs/${id}`));
        assert.equal(api.run.summary.decisions, e.all.n);
        assert.equal(api.run.summary.labelled, e.all.labelled);
        const listed = JSON.parse(await get("/api/runs")).runs.find((r: { id: string }) =>
          r.id === run.id
        );
        assert.deepEqual([listed.decisions, listed.labelled], [e.all.n, e.all.labelled]);
        const row = dom(await get("/")).querySelector(`tr[data-run="${run.id}"] td.decisions`);
        assert.equal(
          row.querySelector(".ci").getAttribute("data-labelled"),
          String(e.all.labelled),
        );
        assert.ok(row.textContent.startsWith(String(e.all.n)), "the runs list's decisions");
        assert.ok(Math.abs(listed.metrics.accuracy.value - accuracy) < 1e-12);
        const breakdowns = JSON.parse(await get(`/api/runs/${id}/breakdowns`));
        const apiRows = (
          rows: {
            key: string;
            decisions: number;
            labelled: number;
            metrics: { accuracy: number };
          }[],
        ) =>
          rows.map((r) => [
            r.key,
            String(r.decisions),
            String(r.labelled),
            `${(r.metrics.accuracy * 100).toFixed(1)}%`,
          ]).sort(byKey);
        assert.deepEqual(apiRows(breakdowns.by_type), expectedRows(e.byType));
        assert.deepEqual(apiRows(breakdowns.by_workflow), expectedRows(e.byLane));
        assert.deepEqual(apiRows(breakdowns.by_question), expectedRows(e.byQuestion));
      });
      await t.step("the view's decision pages: outcome and the state from the file", async () => {
        const rows = new Map(
          (await Deno.readTextFile(join(TICKETS, "tickets.jsonl"))).trim().split("\n").map((l) => {
            const r = JSON.parse(l) as Record<string, string>;
            return [r.ticket_id, { tier: r.tier, subject: r.subject, message: r.message }];
          }),
        );
        const outcome = (d: DecisionRecord) =>
          d.error !== null
            ? "error"
            : d.gold === null
            ? "unlabelled"
            : answerOf(d) === d.gold
            ? "correct"
            : "wrong";
        // The first decision of each outcome.
        const firsts = ["correct", "wrong", "unlabelled", "error"].map((o) =>
          records.find((d) => outcome(d) === o)!
        );
        for (const d of firsts) {
          const path = `/runs/${id}/decisions/${encodeURIComponent(d.case)}/${d.question}`;
          const doc = dom(await get(path));
          const facts = new Map(
            [...doc.querySelectorAll("dl.facts dt")].map((dt: Dom) => [
              dt.textContent.trim(),
              dt.nextElementSibling.textContent.trim(),
            ]),
          );
          assert.equal(facts.get("outcome"), outcome(d), path);
          assert.equal(facts.get("lane"), d.workflow, path);
          const state = JSON.parse(doc.querySelector("pre.state")?.textContent ?? "null");
          assert.deepEqual(state, rows.get(d.case), `${path}: the state from the file`);
        }
      });
      await t.step(
        "the view's explorer: wrong is real mistakes, unlabelled is offered",
        async () => {
          const total = async (query: string) => {
            const res = await fetch(`${view.url}/api/runs/${id}/decisions?${query}`);
            const body = await res.json();
            assert.equal(res.status, 200, `${query}: ${JSON.stringify(body)}`);
            return body.total as number;
          };
          assert.equal(await total(""), e.all.n);
          assert.equal(await total("outcome=correct"), e.all.correct);
          assert.equal(await total("outcome=wrong"), e.all.answeredLabelled - e.all.correct);
          assert.equal(await total("outcome=unlabelled"), e.all.answeredUnlabelled);
          assert.equal(await total("outcome=error"), e.all.errors);
          const explorer = await get(`/runs/${id}/decisions?outcome=unlabelled`);
          const options = [...dom(explorer).querySelectorAll("#outcome option")].map((o: Dom) =>
            o.getAttribute("value")
          );
          assert.ok(options.includes("unlabelled"), `outcome options ${options}`);
          const all = await get(`/runs/${id}/decisions?per_page=200`);
          for (const d of [...dom(all).querySelectorAll("details.decision")]) {
            const badge = d.querySelector(".badge").textContent.trim();
            const text = d.querySelector("summary").textContent;
            if (/no gold label|gold none/.test(text)) assert.equal(badge, "unlabelled", text);
          }
          assert.doesNotMatch(all, /gold none/);
        },
      );
      await t.step(
        "the view's per-class page and API (also computed for a run.json without them)",
        async () => {
          for (const id of [run.id, `${run.id}-bare`]) {
            const api = await (await fetch(`${view.url}/api/runs/${id}/classes`)).json();
            for (const [q, w] of Object.entries(want)) {
              assert.deepEqual(api.classes[q].confusion, w.confusion, `${id} API ${q}`);
            }
            // The bare copy's are computed from the decisions with the run's seed: the same.
            assert.deepEqual(api.classes, classes);
            const runPage = await (await fetch(`${view.url}/runs/${id}`)).text();
            assert.ok(runPage.includes(`href="/runs/${id}/classes"`), "the run page links to it");
            const page = dom(await (await fetch(`${view.url}/runs/${id}/classes`)).text());
            const buttons = [...page.querySelectorAll("p.quick a.button")].map((a: Dom) =>
              a.textContent.trim()
            );
            assert.deepEqual(buttons, ["all", ...lanes], "the lane buttons in the run's order");
            const overview = [...page.querySelectorAll("#classes-overview tbody tr")].map((
              tr: Dom,
            ) => [...tr.querySelectorAll("th, td")].map((c: Dom) => c.textContent.trim()));
            assert.deepEqual(
              overview.map((r: string[]) => `${r[0]} ${r[2]}`),
              Object.keys(OPTIONS).flatMap((q) => ["all", ...lanes].map((l) => `${q} ${l}`)),
              "the overview lists every question's lanes in the run's order",
            );
            for (const lane of [undefined, lanes[0]!]) {
              const res = await fetch(
                `${view.url}/runs/${id}/classes${lane ? `?lane=${encodeURIComponent(lane)}` : ""}`,
              );
              assert.equal(res.status, 200);
              const doc = dom(await res.text());
              const shown = lane === undefined
                ? records
                : records.filter((r) => r.workflow === lane);
              for (const q of Object.keys(OPTIONS)) {
                const x = expectedClasses(q, shown);
                const table = doc.querySelector(`table.confusion[data-question="${q}"]`);
                OPTIONS[q]!.forEach((gold, i) => {
                  [...OPTIONS[q]!, "error"].forEach((predicted, j) => {
                    const cell = table.querySelector(
                      `td[data-gold="${gold}"][data-predicted="${predicted}"]`,
                    );
                    assert.equal(
                      cell?.textContent,
                      String(x.confusion[i]![j]),
                      `${q} ${gold}→${predicted}`,
                    );
                  });
                });
                const per = doc.querySelector(`table.per-class[data-question="${q}"]`);
                for (const r of x.perClass) {
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
        },
      );
    } finally {
      await view.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

/** The rows of the first Markdown table after a heading, whatever its columns. */
function anyMarkdownTable(md: string, heading: RegExp): string[][] {
  const lines = md.split("\n");
  const at = lines.findIndex((l) => heading.test(l));
  assert.ok(at >= 0, `no "${heading}" in report.md`);
  const rows: string[][] = [];
  let header = false;
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith("|")) {
      if (header) break;
      continue;
    }
    const cells = line.slice(1, -1).split("|").map((c) => c.trim());
    if (!header) header = true;
    else if (!/^-+:?$/.test(cells[0] ?? "") && !/^-*:?-+:?$/.test(cells[0] ?? "")) rows.push(cells);
  }
  return rows;
}
