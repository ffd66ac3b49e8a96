// End-to-end: `deno task view` over real `deno task bench` runs (two in the index, one only in its
// run directory, one written by the version 1 record format). Every page and every API answer
// shows the numbers of run.json (and of report.md for the breakdowns); the explorer's counts and
// pages equal what decisions.jsonl holds; the comparison equals `deno task compare --json`.
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadDataset } from "../lib/dataset/mod.ts";
import { COLUMN_METRICS, METRIC_REGISTRY } from "../lib/metrics/mod.ts";
import { type DecisionRecord, readDecisions, type RunJson } from "../lib/record/mod.ts";
import { metricText } from "../lib/report/mod.ts";
import { startView, type ViewServer } from "../lib/view/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";
import { benchRun, dom, type MadeRun, metricCells, rawGet, tableRows } from "./view_helpers.ts";

interface Fixture {
  tmp: string;
  runs: string;
  full: MadeRun;
  prior: MadeRun;
  loose: MadeRun;
  old: MadeRun;
  view: ViewServer;
}

/** A run.json as the version 1 format wrote it (metrics at the top of the summary, no nll). */
async function writeVersion1(from: MadeRun, dir: string): Promise<MadeRun> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.copyFile(join(from.dir, "decisions.jsonl"), join(dir, "decisions.jsonl"));
  const { metrics, intervals, ...rest } = from.run.summary as NonNullable<RunJson["summary"]>;
  const { nll: _, ...keptIntervals } = intervals as Record<string, unknown>;
  const { nll: __, ...kept } = metrics as Record<string, unknown>;
  const v1 = {
    ...from.run,
    version: 1,
    id: `${from.run.id}-v1`,
    started_at: "2026-01-01T00:00:00.000Z",
    summary: { ...rest, ...kept, intervals: keptIntervals },
  };
  await Deno.writeTextFile(join(dir, "run.json"), JSON.stringify(v1, null, 2));
  return { dir, run: v1 as unknown as RunJson };
}

async function setUp(): Promise<Fixture> {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-view-api-" });
  const runs = join(tmp, "runs");
  const full = await benchRun(runs, "fitted-full");
  // The prior predictor behind a faulty server, with one threshold it fails and one it passes.
  const prior = await benchRun(runs, "prior-100", {
    predictor: "prior",
    limit: 100,
    reference: { faults: "http500=0.1" },
    retries: 0,
    thresholds: [
      { metric: "accuracy", op: ">=", limit: 0.9 },
      { metric: "kl", op: "<=", limit: 1 },
    ],
  });
  const loose = await benchRun(runs, "fitted-40-no-db", { limit: 40, db: null });
  const old = await writeVersion1(loose, join(runs, "old-format"));
  const view = await startView({ port: 0, dbPath: join(runs, "decibench.db"), runsDir: runs });
  return { tmp, runs, full, prior, loose, old, view };
}

/** A parsed JSON answer, read field by field by the assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

async function getJson(view: ViewServer, path: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${view.url}${path}`);
  return { status: response.status, body: await response.json() };
}

async function getHtml(view: ViewServer, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${view.url}${path}`);
  return { status: response.status, text: await response.text() };
}

function metricsOf(run: RunJson): Record<string, number | null> {
  const s = run.summary as Json;
  return s.metrics ?? s; // the version 1 fixture keeps them at the top
}

/** Rows of the Markdown table under `## <section>` in report.md. */
function markdownRows(md: string, section: string): string[][] {
  const start = md.indexOf(`\n## ${section}\n`);
  const lines = md.slice(start + 1).split("\n");
  const header = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split("|").map((c) => c.trim()));
  }
  return rows;
}

Deno.test("`deno task view` shows the numbers of run.json on every page and in its API", async (t) => {
  const f = await setUp();
  try {
    const made = [f.full, f.prior, f.loose, f.old];

    await t.step("/api/runs lists every run with run.json's values and intervals", async () => {
      const { status, body } = await getJson(f.view, "/api/runs");
      assert.equal(status, 200);
      assert.equal(body.runs.length, 4);
      for (const m of made) {
        const row = body.runs.find((r: { id: string }) => r.id === m.run.id);
        assert.ok(row, `run ${m.run.id} listed`);
        assert.equal(row.status, m.run.status);
        assert.equal(row.decisions, m.run.summary?.decisions);
        const values = metricsOf(m.run);
        const intervals = (m.run.summary as Json).intervals;
        for (const metric of METRIC_REGISTRY) {
          assert.equal(row.metrics[metric.name].value, values[metric.name] ?? null, metric.name);
          assert.deepEqual(row.metrics[metric.name].interval, intervals[metric.name] ?? null);
        }
      }
      const source = (id: string) => body.runs.find((r: { id: string }) => r.id === id).source;
      assert.equal(source(f.full.run.id), "index");
      assert.equal(source(f.loose.run.id), "file", "a --no-db run is read from its directory");
    });

    await t.step(
      "/ shows each value as the reports print it; nll is n/a for a version 1 run",
      async () => {
        const { status, text } = await getHtml(f.view, "/");
        assert.equal(status, 200);
        const doc = dom(text);
        for (const m of made) {
          const row = [...doc.querySelectorAll("tr[data-run]")]
            .find((r) => r.getAttribute("data-run") === m.run.id);
          assert.ok(row, `row for ${m.run.id}`);
          const cells = metricCells(row);
          const values = metricsOf(m.run);
          for (const metric of COLUMN_METRICS) {
            const cell = cells.find((c) => c.metric === metric.name);
            const value = values[metric.name] ?? null;
            assert.equal(cell?.value, value === null ? "" : String(value), metric.name);
            assert.equal(cell?.text, metricText(metric, value), metric.name);
          }
        }
        const oldRow = [...doc.querySelectorAll("tr[data-run]")]
          .find((r) => r.getAttribute("data-run") === f.old.run.id);
        assert.equal(metricCells(oldRow!).find((c) => c.metric === "nll")?.text, "n/a");
      },
    );

    await t.step("/ sorts by accuracy and filters by a search", async () => {
      const sorted = dom((await getHtml(f.view, "/?sort=accuracy&order=desc")).text);
      const ids = [...sorted.querySelectorAll("tr[data-run]")].map((r) =>
        r.getAttribute("data-run")
      );
      const expected = [...made].sort((a, b) =>
        (metricsOf(b.run).accuracy as number) - (metricsOf(a.run).accuracy as number) ||
        b.run.started_at.localeCompare(a.run.started_at)
      ).map((m) => m.run.id);
      assert.deepEqual(ids, expected);
      const searched = dom((await getHtml(f.view, "/?q=prior")).text);
      assert.deepEqual(
        [...searched.querySelectorAll("tr[data-run]")].map((r) => r.getAttribute("data-run")),
        [f.prior.run.id],
      );
    });

    await t.step("/runs/<id> cards equal run.json; its tables equal report.md", async () => {
      const { status, text } = await getHtml(f.view, `/runs/${f.full.run.id}`);
      assert.equal(status, 200);
      const doc = dom(text);
      const cards = metricCells(doc);
      const values = metricsOf(f.full.run);
      for (const metric of METRIC_REGISTRY) {
        const card = cards.find((c) => c.metric === metric.name);
        assert.equal(card?.value, String(values[metric.name]), metric.name);
        assert.equal(card?.text, metricText(metric, values[metric.name] ?? null), metric.name);
      }
      assert.equal(cards.find((c) => c.metric === "decisions")?.value, "2000");
      const md = await Deno.readTextFile(join(f.full.dir, "report.md"));
      assert.deepEqual(tableRows(doc, "by-workflow"), markdownRows(md, "By workflow"));
      assert.deepEqual(tableRows(doc, "by-question"), markdownRows(md, "By question"));
      assert.deepEqual(tableRows(doc, "by-type"), markdownRows(md, "By question type"));
      assert.ok((text.match(/<svg\b/g) ?? []).length >= 6, "the report's charts are on the page");
      assert.match(
        text,
        /<figure><svg[^>]*>[\s\S]*?<\/svg><figcaption id="chart-risk-coverage">Risk–coverage/,
        "the risk–coverage curve is drawn",
      );
      assert.doesNotMatch(text, /<(script|link)\b[^>]*\b(src|href)="(https?:)?\/\//i, "no CDN");
    });

    const records = await readDecisions(join(f.full.dir, "decisions.jsonl"));
    const { cases } = await loadDataset();
    const stateText = new Map(cases.map((c) => [c.id, JSON.stringify(c.state).toLowerCase()]));
    const filters: [string, (r: DecisionRecord) => boolean][] = [
      ["outcome=wrong&min_conf=0.9", (r) => !r.error && !r.correct && r.confidence! >= 0.9],
      ["outcome=wrong&min_conf=0.75", (r) => !r.error && !r.correct && r.confidence! >= 0.75],
      ["type=noul&outcome=correct", (r) => r.type === "noul" && r.correct === true],
      [
        "workflow=customer_service&question=category",
        (r) => r.workflow === "customer_service" && r.question === "category",
      ],
      [
        "min_conf=0.4&max_conf=0.5",
        (r) => r.confidence !== null && r.confidence >= 0.4 && r.confidence <= 0.5,
      ],
      [
        "q=refund",
        (r) => (stateText.get(r.case) ?? "").includes("refund") || r.case.includes("refund"),
      ],
      ["outcome=error", (r) => r.error !== null],
      ["", () => true],
    ];

    await t.step(
      "thresholds show pass and fail; errors by kind count decisions.jsonl's",
      async () => {
        const doc = dom((await getHtml(f.view, `/runs/${f.prior.run.id}`)).text);
        assert.deepEqual(
          tableRows(doc, "thresholds"),
          f.prior.run.thresholds.map((th) => [
            th.metric,
            `${th.op} ${th.limit}`,
            th.value === null ? "n/a" : th.value.toFixed(3),
            th.pass ? "pass" : "fail",
          ]),
        );
        assert.deepEqual(f.prior.run.thresholds.map((th) => th.pass), [false, true]);
        const failed = (await readDecisions(join(f.prior.dir, "decisions.jsonl"))).filter((r) =>
          r.error
        );
        assert.ok(failed.length > 0, "the faults failed some decisions");
        const api = await getJson(f.view, `/api/runs/${f.prior.run.id}/errors`);
        assert.deepEqual(api.body.errors, [{
          kind: "unavailable",
          count: failed.length,
          examples: failed.slice(0, 3).map((r) => ({
            case: r.case,
            question: r.question,
            message: r.error!.message,
          })),
        }]);
        assert.deepEqual(tableRows(doc, "errors")[0]?.slice(0, 2), [
          "unavailable",
          String(failed.length),
        ]);
      },
    );

    await t.step("the explorer's counts and pages equal decisions.jsonl", async (t) => {
      for (const [query, keep] of filters) {
        await t.step(query || "(no filter)", async () => {
          const matching = records.filter(keep);
          const api = await getJson(
            f.view,
            `/api/runs/${f.full.run.id}/decisions?${query}&per_page=50`,
          );
          assert.equal(api.status, 200);
          assert.equal(api.body.total, matching.length);
          assert.deepEqual(api.body.decisions, matching.slice(0, 50));
          if (matching.length > 50) {
            const second = await getJson(
              f.view,
              `/api/runs/${f.full.run.id}/decisions?${query}&per_page=50&page=2`,
            );
            assert.deepEqual(second.body.decisions, matching.slice(50, 100));
          }
          const page = dom(
            (await getHtml(f.view, `/runs/${f.full.run.id}/decisions?${query}`)).text,
          );
          assert.equal(
            page.getElementById("match-count")?.getAttribute("data-total"),
            String(matching.length),
          );
        });
      }
      const mistakes = records.filter(filters[0]![1]).length;
      const runPage = dom((await getHtml(f.view, `/runs/${f.full.run.id}`)).text);
      assert.equal(
        metricCells(runPage).find((c) => c.metric === "confident_mistakes")?.value,
        String(mistakes),
      );
    });

    await t.step("a filter value out of range is refused, naming it", async () => {
      const api = await getJson(f.view, `/api/runs/${f.full.run.id}/decisions?min_conf=2`);
      assert.equal(api.status, 400);
      assert.match(api.body.error, /min_conf "2" is not a number in \[0, 1\]/);
      const page = await getHtml(f.view, `/runs/${f.full.run.id}/decisions?outcome=maybe`);
      assert.equal(page.status, 400);
      assert.match(
        page.text,
        /outcome &quot;maybe&quot; is not one of correct, wrong, unlabelled, error/,
      );
    });

    await t.step("one decision comes back whole, with its state", async () => {
      const r = records[7]!;
      const api = await getJson(
        f.view,
        `/api/runs/${f.full.run.id}/decisions/${r.case}/${r.question}`,
      );
      assert.equal(api.status, 200);
      assert.deepEqual(api.body.decision, r);
      assert.deepEqual(api.body.state, cases.find((c) => c.id === r.case)?.state);
      const page = await getHtml(
        f.view,
        `/runs/${f.full.run.id}/decisions/${r.case}/${r.question}`,
      );
      assert.equal(page.status, 200);
      assert.match(page.text, /<pre class="state"/);
    });

    await t.step("the comparison equals `deno task compare --json`", async () => {
      const cli = await runScript("compare.ts", [f.full.dir, f.prior.dir, "--json"]);
      assert.equal(cli.code, 0, cli.stderr);
      const expected = JSON.parse(cli.lines.at(-1) as string);
      const api = await getJson(f.view, `/api/compare/${f.full.run.id}/${f.prior.run.id}`);
      assert.equal(api.status, 200);
      const paired = api.body.comparison.paired;
      for (
        const key of [
          "shared",
          "difference",
          "interval",
          "mcnemar",
          "pValue",
          "byWorkflow",
          "byQuestion",
        ]
      ) {
        assert.deepEqual(paired[key], expected.paired[key], key);
      }
      assert.deepEqual(api.body.comparison.differences, expected.differences);
      const [a, b] = [records, await readDecisions(join(f.prior.dir, "decisions.jsonl"))];
      const inB = new Map(b.map((r) => [`${r.case}/${r.question}`, r]));
      const flipped = a.filter((r) => {
        const other = inB.get(`${r.case}/${r.question}`);
        return other !== undefined && other.correct !== r.correct;
      });
      assert.equal(api.body.flips.total, flipped.length);
      assert.equal(flipped.length, paired.mcnemar.onlyA + paired.mcnemar.onlyB);
      const page = dom((await getHtml(f.view, `/compare/${f.full.run.id}/${f.prior.run.id}`)).text);
      const diff = metricCells(page).find((c) => c.metric === "difference");
      assert.equal(diff?.value, String(expected.paired.difference));
      assert.equal(
        page.getElementById("flip-count")?.getAttribute("data-total"),
        String(flipped.length),
      );
    });

    await t.step("the same run on both sides, or a missing run, is refused", async () => {
      const same = await getJson(f.view, `/api/compare/${f.full.run.id}/${f.full.run.id}`);
      assert.equal(same.status, 409);
      assert.match(same.body.error, /both sides are run/);
      const gone = await getJson(f.view, `/api/compare/${f.full.run.id}/no-such-run`);
      assert.equal(gone.status, 404);
      const ticked = await fetch(`${f.view.url}/compare?run=${f.full.run.id}`, {
        redirect: "manual",
      });
      assert.equal(ticked.status, 400);
      await ticked.body?.cancel();
      const two = await fetch(`${f.view.url}/compare?run=a&run=b`, { redirect: "manual" });
      assert.equal(two.status, 303);
      assert.equal(two.headers.get("location"), "/compare/a/b");
      await two.body?.cancel();
    });

    await t.step(
      "only reads: POST gets 405, a foreign Host 421; pages carry a strict CSP",
      async () => {
        const post = await fetch(`${f.view.url}/`, { method: "POST", body: "x" });
        assert.equal(post.status, 405);
        await post.body?.cancel();
        const foreign = await rawGet(f.view.url, "/api/runs", "evil.example");
        assert.equal(foreign.status, 421);
        assert.doesNotMatch(foreign.body, /fitted/);
        assert.equal((await rawGet(f.view.url, "/api/runs", "localhost")).status, 200);
        const home = await fetch(`${f.view.url}/`);
        assert.match(home.headers.get("content-security-policy") ?? "", /script-src 'self'/);
        await home.body?.cancel();
      },
    );
  } finally {
    await f.view.close();
    await Deno.remove(f.tmp, { recursive: true });
  }
});
