/**
 * The report worker (`RunReportWorker`), as `deno task bench` uses it: a run of 100 cases or more
 * starts it after its first answer and hands it every answered case, whose bootstrap sums it
 * adds up while the run goes on; the summary and the report files are byte for byte those of a
 * run that writes its reports itself; a worker that fails leaves the run to write them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { summarize } from "../lib/metrics/mod.ts";
import {
  plannedCases,
  reportBreakdowns,
  RunReportWorker,
  writeReports,
} from "../lib/report/mod.ts";
import { loadWorkflow, runBenchmark, type RunOptions } from "../lib/workflow/mod.ts";

/** Report files with the run id and timestamps masked (they differ between any two runs). */
async function reportFiles(dir: string, id: string): Promise<string[]> {
  const mask = (text: string) =>
    text.replaceAll(id, "RUN").replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TIME")
      .replace(/p50 [\d.]+ ms, p95 [\d.]+ ms/g, "LATENCY")
      .replace(/latency p50 [^<|\n]*/g, "LATENCY");
  return await Promise.all(
    ["report.md", "report.html"].map(async (f) => mask(await Deno.readTextFile(join(dir, f)))),
  );
}

/** The worker drew `beside`'s report.html, and both report files are those of `alone`. */
async function assertSameReports(
  alone: { dir: string; id: string },
  beside: { dir: string; id: string },
  worker: RunReportWorker,
): Promise<void> {
  const [a, b] = [
    await reportFiles(alone.dir, alone.id),
    await reportFiles(beside.dir, beside.id),
  ];
  assert.deepEqual(worker.written, [join(beside.dir, "report.html")], "drawn in the worker");
  assert.equal(b[0], a[0], "report.md");
  assert.equal(b[1], a[1], "report.html");
}

Deno.test("a run with a report worker writes the same report.md and report.html as one without", async () => {
  await using server = await startReferenceServer({ predictor: "fitted" });
  const workflow = await loadWorkflow("workflows/reference.ts");
  const root = await Deno.makeTempDir();
  const common = { baseUrl: server.url, limit: 120, dbPath: null, parallel: 4 } as const;
  const alone = await runBenchmark(workflow, { ...common, outDir: join(root, "alone") });
  using worker = new RunReportWorker();
  const beside = await runBenchmark(workflow, {
    ...common,
    outDir: join(root, "beside"),
    reportWorker: worker,
  });
  assert.ok(worker.started, "120 cases to ask: the run starts the worker");
  // Every case reached the worker while the run went on; the breakdowns it read from the sums
  // are still the same as the run's own.
  assert.equal(worker.fed, 120);
  const rows = (r: typeof alone) =>
    [...r.report.byType, ...r.report.byWorkflow, ...r.report.byQuestion].map((row) => ({
      ...row,
      latency: null, // differs between any two runs
    }));
  assert.deepEqual(rows(beside), rows(alone));
  // The summary's intervals, bootstrapped in the worker from the sums it fed, are the run's own.
  assert.deepEqual(beside.summary.intervals, alone.summary.intervals);
  assert.deepEqual({ ...beside.summary, latency: null }, { ...alone.summary, latency: null });
  await assertSameReports(alone, beside, worker);

  // A worker job that fails: writeReports draws the page itself.
  const again = join(root, "again");
  await Deno.mkdir(again);
  await writeReports({
    dir: again,
    run: beside.run,
    records: beside.records,
    dataset: beside.dataset,
    report: beside.report,
    html: () => Promise.reject(new Error("the worker stopped")),
  });
  for (const file of ["report.md", "report.html"]) {
    assert.equal(
      await Deno.readTextFile(join(again, file)),
      await Deno.readTextFile(join(beside.dir, file)),
      file,
    );
  }
  await Deno.remove(root, { recursive: true });
});

Deno.test("the report worker warms up on a run's first answers and draws the same report.html, with the same intervals", async () => {
  // 30 ms per answer, two at a time: the renderer is loaded well before half the cases are sent.
  await using server = await startReferenceServer({ predictor: "fitted", latencyMs: 30 });
  const workflow = await loadWorkflow("workflows/reference.ts");
  const root = await Deno.makeTempDir();
  const common = { baseUrl: server.url, limit: 120, dbPath: null, parallel: 2 } as const;
  using worker = new RunReportWorker();
  const beside = await runBenchmark(workflow, {
    ...common,
    outDir: join(root, "beside"),
    reportWorker: worker,
  });
  assert.equal(worker.warmed, true);
  // Half the cases in, the other 60 take about 900 ms at 15 ms a case: time for the sample
  // measures' warm-up.
  assert.equal(worker.warmedIntervals, true);
  const alone = await runBenchmark(workflow, { ...common, outDir: join(root, "alone") });
  assert.deepEqual(beside.summary.intervals, alone.summary.intervals);
  await assertSameReports(alone, beside, worker);
  await Deno.remove(root, { recursive: true });
});

Deno.test("the report worker times a run's pace from when the run sent its plan, not from when a busy worker took it", async () => {
  // A worker busy when the plan comes (loading, or behind on a fast run on a loaded machine)
  // takes the first answers in one burst: timed from its own start, the run looked too fast for
  // the sample measures' warm-up, and the warm-up test failed on a busy machine.
  await using server = await startReferenceServer({ predictor: "fitted" });
  const workflow = await loadWorkflow("workflows/reference.ts");
  const root = await Deno.makeTempDir();
  const run = await runBenchmark(workflow, {
    baseUrl: server.url,
    limit: 120,
    dbPath: null,
    outDir: root,
    reports: false,
  });
  using worker = new RunReportWorker();
  worker.start();
  // Busy for well over half a second first: the intervals of 60 copies of the run's decisions.
  const copies = Array.from(
    { length: 60 },
    (_, k) => run.records.map((r) => ({ ...r, case: `${r.case}#${k}` })),
  ).flat();
  const busy = worker.intervals(copies, 1, "another run");
  const cases = run.dataset.cases.filter((c) => run.records.some((r) => r.case === c.id));
  worker.plan(run.id, plannedCases(cases), run.run.spec.seed);
  // Half the run's cases handed over at once, while the worker is still busy.
  const half = new Set(cases.slice(0, 60).map((c) => c.id));
  worker.cases(run.id, run.records.filter((r) => half.has(r.case)));
  await busy;
  // Jobs run in turn: once a later one is done, the cases (and any warm-up) are taken.
  await worker.intervals(run.records.slice(0, 5), 1, "a third run");
  assert.equal(worker.fed, 60);
  // The other 60 cases, at the pace since the plan was sent, take well over half a second.
  assert.equal(worker.warmedIntervals, true);
  await Deno.remove(root, { recursive: true });
});

Deno.test("a short run leaves the report worker unstarted; a closed worker leaves the run to write its reports, a failed job to bootstrap its intervals or draw report.html", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const workflow = await loadWorkflow("workflows/reference.ts");
  const root = await Deno.makeTempDir();
  const run = (name: string, limit: number, options: RunOptions) =>
    runBenchmark(workflow, {
      baseUrl: server.url,
      limit,
      dbPath: null,
      outDir: join(root, name),
      ...options,
    });
  using short = new RunReportWorker();
  const result = await run("short", 20, { reportWorker: short });
  assert.equal(short.started, false, "20 cases: not worth the worker's start");
  assert.ok((await Deno.stat(join(result.dir, "report.html"))).size > 0);

  // A worker that stops mid-run (closed here, as a crash would): the run writes its reports.
  const failing = new RunReportWorker();
  const closed = await run("closed", 120, {
    reportWorker: failing,
    onEvent: (event) => {
      if (event.event === "case" && event.done === 60) failing.close();
    },
  });
  assert.equal(closed.status, "completed");
  // The intervals the worker would have bootstrapped are the run's own.
  assert.deepEqual(
    closed.summary.intervals,
    summarize(closed.records, { seed: closed.run.spec.seed }).intervals,
  );
  assert.ok(closed.summary.intervals.accuracy !== null && closed.summary.intervals.aurc !== null);
  assert.match(await Deno.readTextFile(join(closed.dir, "report.html")), /<svg/);

  // A worker whose intervals job fails at the end of the run: the run bootstraps them itself.
  class NoIntervals extends RunReportWorker {
    override intervals(): ReturnType<RunReportWorker["intervals"]> {
      return Promise.reject(new Error("the worker stopped"));
    }
  }
  using failingJob = new NoIntervals();
  const fallback = await run("fallback", 120, { reportWorker: failingJob });
  assert.ok(failingJob.started);
  assert.equal(fallback.status, "completed");
  assert.deepEqual(
    fallback.summary.intervals,
    summarize(fallback.records, { seed: fallback.run.spec.seed }).intervals,
  );
  // The worker, never handed the decisions, leaves the breakdowns to the run too.
  const { byType, byWorkflow, byQuestion } = fallback.report;
  assert.deepEqual(
    { byType, byWorkflow, byQuestion },
    reportBreakdowns(fallback.records, fallback.run.spec.seed),
  );
  assert.match(await Deno.readTextFile(join(fallback.dir, "report.md")), /## By question/);

  // A worker that fails to draw report.html (handed the page before the run writes its files):
  // the run draws it itself, once report.md is written.
  class NoPage extends RunReportWorker {
    override html(): Promise<void> {
      return Promise.reject(new Error("the worker stopped"));
    }
  }
  using failingPage = new NoPage();
  const drawn = await run("drawn", 120, { reportWorker: failingPage });
  assert.ok(failingPage.started);
  assert.equal(drawn.status, "completed");
  assert.deepEqual(failingPage.written, []);
  assert.match(await Deno.readTextFile(join(drawn.dir, "report.html")), /<svg/);
  assert.match(await Deno.readTextFile(join(drawn.dir, "report.md")), /## By question/);
  await Deno.remove(root, { recursive: true });
});
