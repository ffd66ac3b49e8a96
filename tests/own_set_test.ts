// A user's own question set with blank labels, benchmarked end to end: `deno task bench` on
// examples/tickets (the embedded reference server's uniform predictor) into a temp folder and a
// temp index. The accuracy, the decision / labelled / unlabelled counts and each question type's,
// lane's and question's n and labelled n are recomputed here from decisions.jsonl alone (no
// decibench scoring code), and must be the same in the terminal output, report.md, report.html,
// run.json, the index, the view's pages and JSON API, the CSV export and what the notebooks read.
// An unlabelled decision is neither right nor wrong anywhere.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parse as parseCsv } from "csv-parse/sync";
import { parseHTML } from "linkedom";
import { openRun, readDecisions } from "../lib/record/mod.ts";
import { startView } from "../lib/view/mod.ts";
import { ROOT, runScript } from "./bench_cli_helpers.ts";

const TICKETS = join(ROOT, "examples", "tickets");

/** Counts of one group (a question type, a lane, a lane/question, or the run). */
interface Counts {
  n: number;
  labelled: number;
  correct: number;
  /** Labelled decisions that were answered (what the confidence charts draw). */
  answeredLabelled: number;
}

function empty(): Counts {
  return { n: 0, labelled: 0, correct: 0, answeredLabelled: 0 };
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
    for (const g of groups) g.n++;
    if (d.gold === null) {
      e.unlabelledByQuestion.set(d.question, (e.unlabelledByQuestion.get(d.question) ?? 0) + 1);
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

/** The rows of the Markdown table under a `## heading`. */
function markdownTable(md: string, heading: RegExp): string[][] {
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
  assert.deepEqual(header?.slice(0, 4), ["group", "n", "labelled", "accuracy"]);
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

Deno.test("an own question set with blank labels: the same counts and accuracy on every surface", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-own-set-" });
  const runs = join(tmp, "runs");
  const dir = join(runs, "tickets");
  const db = join(tmp, "index.db");
  try {
    const bench = await runScript("bench.ts", [
      join(TICKETS, "workflow.yaml"),
      "--out",
      dir,
      "--db",
      db,
    ]);
    assert.equal(bench.code, 0, bench.stderr);
    const lines = bench.lines;
    const e = recompute(await Deno.readTextFile(join(dir, "decisions.jsonl")));
    const unlabelled = e.all.n - e.all.labelled;
    const accuracy = e.all.correct / e.all.labelled;
    const run = JSON.parse(await Deno.readTextFile(join(dir, "run.json")));

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
    });

    await t.step("decisions.jsonl: correct null and no KL or Brier without gold", async () => {
      const text = await Deno.readTextFile(join(dir, "decisions.jsonl"));
      for (const line of text.split("\n")) {
        if (!line.trim()) continue;
        const d = JSON.parse(line);
        const at = `${d.case}/${d.question}`;
        if (d.gold === null) {
          assert.equal(d.correct, null, `${at}: correct of an unlabelled decision`);
          assert.equal(d.gold_probabilities, null, at);
          assert.ok(!("kl" in d) && !("brier" in d), `${at} has a KL or Brier field`);
        } else {
          const right = d.error === null && d.predicted !== null && top(d.predicted) === d.gold;
          assert.equal(d.correct, right, `${at}: correct`);
        }
      }
    });

    await t.step("run.json", () => {
      assert.equal(run.summary.decisions, e.all.n);
      assert.equal(run.summary.labelled, e.all.labelled);
      assert.ok(Math.abs(run.summary.metrics.accuracy - accuracy) < 1e-12);
      const reliability = run.summary.reliability.reduce(
        (s: number, r: { n: number }) => s + r.n,
        0,
      );
      assert.equal(reliability, e.all.answeredLabelled);
    });

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
      assert.equal(mistakes.length, e.all.labelled - e.all.correct);
      const opened = await openRun(dir);
      let n = 0;
      let nulls = 0;
      for await (const d of opened.decisions()) {
        n++;
        if (d.correct === null) nulls++;
      }
      assert.deepEqual([n, nulls], [e.all.n, unlabelled]);
    });

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
          assert.equal(await total("outcome=wrong"), e.all.labelled - e.all.correct);
          assert.equal(await total("outcome=unlabelled"), unlabelled);
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
