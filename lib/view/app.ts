/**
 * The view's routes (hono): the pages (`/`, `/runs/<id>`, `/runs/<id>/decisions`, one decision,
 * `/compare/<a>/<b>`), the same data as JSON under `/api/`, and the two assets. Only GET and
 * HEAD; a run id, case or question is looked up among the runs the catalog found, never joined
 * into a path, so `..`, `%2e%2e`, a NUL or an absolute path finds nothing and gets 404.
 *
 * @module
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { Hono } from "hono";
import type { Context } from "hono";
import { type Case, RECORDED_LOOKUP_ROWS } from "../dataset/mod.ts";
import { countOf, intervalOf, metricOf, SUMMARY_METRICS } from "../export/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import { loadRunReport, type RunComparison } from "../report/mod.ts";
import { VIEW_CSS, VIEW_JS } from "./assets.ts";
import type { CatalogRun, RunCatalog, RunProgress } from "./catalog.ts";
import { type Flip, flips as flipsOf, incomparable, pairedRuns } from "./compare.ts";
import {
  CONFIDENT_MISTAKE,
  countDecisions,
  errorGroups,
  type Facets,
  facets as facetsOf,
  findDecision,
  mayHoldLegacyGold,
  parseQuery,
  queryDecisions,
  whereOf,
} from "./explorer.ts";
import { type Html, html, notice, page } from "./_layout.ts";
import { compareHref, comparePage, type FlipPage, refusedPage } from "./page_compare.ts";
import { classesPage, runClassResults } from "./page_classes.ts";
import { decisionPage } from "./page_decision.ts";
import { explorerPage } from "./page_explorer.ts";
import { runPage } from "./page_run.ts";
import { datasetLabel, parseRunsQuery, runsPage, selectRuns } from "./page_runs.ts";
import { type RunPageReport, runPageReport, runPageReportOf } from "./run_report.ts";
import type { StateSource } from "./states.ts";

/** What the routes read from. */
export interface ViewContext {
  /** The runs. */
  catalog: RunCatalog;
  /** The states of the cases. */
  states: StateSource;
}

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const FLIPS_PER_PAGE = 25;

function progressJson(p: RunProgress) {
  return {
    id: p.id,
    status: p.status,
    cases_done: p.casesDone,
    cases: p.cases,
    decisions: p.decisions,
  };
}

function runJson(entry: CatalogRun, progress?: RunProgress) {
  const { run } = entry;
  const metrics: Record<string, { value: number | null; interval: [number, number] | null }> = {};
  for (const m of SUMMARY_METRICS) {
    metrics[m.name] = {
      value: metricOf(run.summary, m.name),
      interval: intervalOf(run.summary, m.name),
    };
  }
  return {
    id: entry.id,
    status: run.status,
    workflow: run.spec.workflow,
    dataset: datasetLabel(run.spec),
    endpoint: run.spec.endpoint,
    engine: run.spec.engine,
    model: run.spec.model,
    model_reported: run.model_reported,
    fingerprint: run.spec.fingerprint,
    started_at: run.started_at,
    finished_at: run.finished_at,
    cases: run.spec.cases,
    decisions: countOf(run.summary, "decisions"),
    labelled: countOf(run.summary, "labelled"),
    metrics,
    indexed: entry.indexed,
    source: entry.source,
    ...(progress ? { progress: progressJson(progress) } : {}),
  };
}

/**
 * A run page's report: read from the report model the run wrote when it ended (`report.json`),
 * else — a run still going, or one written before runs kept their report model — computed by
 * streaming its decisions once through the metrics accumulator.
 */
async function computeRunReport(catalog: RunCatalog, entry: CatalogRun): Promise<RunPageReport> {
  const saved = entry.dir === null || entry.run.status === "running"
    ? null
    : await loadRunReport(entry.dir).catch(() => null);
  return saved !== null && saved.run.id === entry.id
    ? runPageReportOf(saved)
    : await runPageReport(entry.run, catalog.decisions(entry));
}

/**
 * Builds the view's hono app.
 *
 * @param context The catalog and the state source.
 * @returns The app; its `fetch` serves requests.
 */
export function createViewApp(context: ViewContext): Hono {
  const { catalog, states } = context;
  const app = new Hono();
  const reports = new Map<string, { version: string; report: RunPageReport }>();
  const comparisons = new Map<string, RunComparison>();

  const htmlPage = (c: Context, body: Html, status = 200) => {
    c.status(status as 200);
    return c.html(body);
  };
  const missing = (c: Context, what: string) =>
    c.req.path.startsWith("/api/") ? c.json({ error: `Cannot find ${what}` }, 404) : htmlPage(
      c,
      page(
        "Not found",
        html`${notice("error", `Cannot find ${what}`)}<p><a href="/">All runs</a></p>`,
      ),
      404,
    );

  const facetCache = new Map<string, { version: string; facets: Facets }>();
  const facetsCached = (entry: CatalogRun, db: DatabaseSync): Facets => {
    const cached = facetCache.get(entry.id);
    if (cached?.version === entry.version) return cached.facets;
    const facets = facetsOf(db, entry.id);
    facetCache.set(entry.id, { version: entry.version, facets });
    return facets;
  };
  const reportOf = async (entry: CatalogRun): Promise<RunPageReport> => {
    const cached = reports.get(entry.id);
    if (cached?.version === entry.version) return cached.report;
    const report = await computeRunReport(catalog, entry);
    reports.set(entry.id, { version: entry.version, report });
    return report;
  };
  const casesOf = async (entry: CatalogRun, records: readonly DecisionRecord[]) => {
    const cases = new Map<string, Case | null>();
    for (const r of records) {
      if (!cases.has(r.case)) {
        cases.set(r.case, await states.caseOf(entry.run.spec, r.case, { runDir: entry.dir }));
      }
    }
    return cases;
  };
  const progressAll = async (runs: readonly CatalogRun[]) => {
    const progress = new Map<string, RunProgress>();
    for (const r of runs) {
      if (r.run.status === "running") progress.set(r.id, await catalog.progress(r));
    }
    return progress;
  };

  app.use("*", async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
  });

  app.get(
    "/assets/view.css",
    (c) => c.body(VIEW_CSS, 200, { "content-type": "text/css; charset=utf-8" }),
  );
  app.get(
    "/assets/view.js",
    (c) => c.body(VIEW_JS, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );

  // Runs.
  app.get("/", async (c) => {
    const runs = await catalog.list();
    const query = parseRunsQuery(new URL(c.req.url).searchParams);
    return htmlPage(c, runsPage(runs, query, await progressAll(runs)));
  });
  app.get("/api/runs", async (c) => {
    const runs = await catalog.list();
    const shown = selectRuns(runs, parseRunsQuery(new URL(c.req.url).searchParams));
    const progress = await progressAll(shown);
    return c.json({
      runs: shown.map((r) => runJson(r, progress.get(r.id))),
    });
  });

  // One run.
  app.get("/runs/:id", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    const db = await catalog.db(entry);
    const mistakes = countDecisions(
      db,
      whereOf(
        entry.id,
        { outcome: "wrong", minConfidence: CONFIDENT_MISTAKE },
        null,
        mayHoldLegacyGold(db, entry.id),
      ),
    );
    const hasReport = entry.dir !== null &&
      await Deno.lstat(join(entry.dir, "report.html")).then((s) => s.isFile, () => false);
    return htmlPage(
      c,
      runPage({
        entry,
        report: await reportOf(entry),
        errors: errorGroups(db, entry.id),
        facets: facetsCached(entry, db),
        confidentMistakes: mistakes,
        progress: await catalog.progress(entry),
        hasReport,
      }),
    );
  });
  app.get("/runs/:id/report.html", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry?.dir) return missing(c, `a report.html for run "${c.req.param("id")}"`);
    const path = join(entry.dir, "report.html");
    const info = await Deno.lstat(path).catch(() => null);
    if (!info?.isFile) return missing(c, `a report.html for run "${entry.id}"`);
    return c.html(await Deno.readTextFile(path));
  });
  app.get("/api/runs/:id", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    return c.json({
      run: entry.run,
      indexed: entry.indexed,
      source: entry.source,
      progress: progressJson(await catalog.progress(entry)),
    });
  });
  app.get("/api/runs/:id/progress", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    return c.json(progressJson(await catalog.progress(entry)));
  });
  app.get("/api/runs/:id/breakdowns", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    const report = await reportOf(entry);
    return c.json({
      by_type: report.byType,
      by_workflow: report.byWorkflow,
      by_question: report.byQuestion,
    });
  });
  app.get("/api/runs/:id/errors", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    return c.json({ errors: errorGroups(await catalog.db(entry), entry.id) });
  });

  // Per-class results.
  app.get("/runs/:id/classes", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    const classes = await runClassResults(entry.run, catalog.decisions(entry));
    const lane = c.req.query("lane");
    if (lane !== undefined && !Object.values(classes).some((q) => lane in q.lanes)) {
      return missing(c, `lane "${lane}" in run "${entry.id}"`);
    }
    return htmlPage(c, classesPage({ entry, classes, lane }));
  });
  app.get("/api/runs/:id/classes", async (c) => {
    const entry = await catalog.get(c.req.param("id"));
    if (!entry) return missing(c, `run "${c.req.param("id")}"`);
    return c.json({ classes: await runClassResults(entry.run, catalog.decisions(entry)) });
  });

  // The explorer.
  const explore = async (c: Context) => {
    const entry = await catalog.get(c.req.param("id") ?? "");
    if (!entry) return null;
    const parsed = parseQuery(new URL(c.req.url).searchParams);
    const problems = [...parsed.problems];
    let textCases: string[] | null = null;
    if (parsed.filter.text !== undefined) {
      const runDir = { runDir: entry.dir };
      textCases = await states.casesMatching(entry.run.spec, parsed.filter.text, runDir);
      if (textCases === null) {
        const why = await states.problemOf(entry.run.spec, runDir);
        problems.push(
          `${
            why ?? "The states of this run are not at hand"
          }, so the text is matched against case ids only`,
        );
      }
    }
    const db = await catalog.db(entry);
    const where = whereOf(entry.id, parsed.filter, textCases, mayHoldLegacyGold(db, entry.id));
    const result = queryDecisions(db, where, parsed.page);
    return { entry, db, parsed, problems, result };
  };
  app.get("/runs/:id/decisions", async (c) => {
    const found = await explore(c);
    if (!found) return missing(c, `run "${c.req.param("id")}"`);
    const { entry, db, parsed, problems, result } = found;
    // A large file of the user's is not read for a page of the list (each lookup would read the
    // file): the state is on each decision's own page.
    const set = entry.run.spec.question_set;
    const large = set?.kind === "file" && set.rows > RECORDED_LOOKUP_ROWS;
    if (large) {
      problems.push(
        `The question set has ${set.rows} rows, more than the ${RECORDED_LOOKUP_ROWS} whose states the list shows: open a decision for its state`,
      );
    }
    return htmlPage(
      c,
      explorerPage({
        entry,
        facets: facetsCached(entry, db),
        filter: parsed.filter,
        order: parsed.page.order,
        result,
        cases: large ? new Map() : await casesOf(entry, result.decisions),
        problems,
      }),
      parsed.problems.length ? 400 : 200,
    );
  });
  app.get("/api/runs/:id/decisions", async (c) => {
    const found = await explore(c);
    if (!found) return missing(c, `run "${c.req.param("id")}"`);
    const { parsed, problems, result } = found;
    if (parsed.problems.length) {
      return c.json({ error: `Cannot filter decisions: ${problems.join("; ")}` }, 400);
    }
    return c.json({ ...result, per_page: result.perPage, notes: problems });
  });
  const oneDecision = async (c: Context) => {
    const entry = await catalog.get(c.req.param("id") ?? "");
    if (!entry) return null;
    const record = findDecision(
      await catalog.db(entry),
      entry.id,
      c.req.param("case") ?? "",
      c.req.param("question") ?? "",
    );
    if (!record) return null;
    const runDir = { runDir: entry.dir };
    const state = await states.caseOf(entry.run.spec, record.case, runDir);
    const missing = state === null ? await states.problemOf(entry.run.spec, runDir) : null;
    return { entry, record, state, missing };
  };
  app.get("/runs/:id/decisions/:case/:question", async (c) => {
    const found = await oneDecision(c);
    if (!found) return missing(c, "that decision");
    return htmlPage(
      c,
      decisionPage(found.entry, found.record, found.state, { missing: found.missing }),
    );
  });
  app.get("/api/runs/:id/decisions/:case/:question", async (c) => {
    const found = await oneDecision(c);
    if (!found) return missing(c, "that decision");
    return c.json({
      decision: found.record,
      state: found.state?.state ?? null,
      ...(found.missing !== null ? { state_note: found.missing } : {}),
    });
  });

  // Comparison.
  const compare = async (c: Context) => {
    const [a, b] = await Promise.all([
      catalog.get(c.req.param("a") ?? ""),
      catalog.get(c.req.param("b") ?? ""),
    ]);
    if (!a || !b) return { missing: !a ? c.req.param("a") : c.req.param("b") } as const;
    const reason = incomparable(a.run, b.run);
    if (reason) return { a, b, reason } as const;
    const [ra, rb] = await Promise.all([catalog.records(a), catalog.records(b)]);
    const key = `${a.id}\u0000${a.version}\u0000${b.id}\u0000${b.version}`;
    let comparison = comparisons.get(key);
    if (!comparison) {
      try {
        comparison = await pairedRuns({ run: a.run, records: ra }, { run: b.run, records: rb });
      } catch (error) {
        return {
          a,
          b,
          reason: (error as Error).message.replace(
            /^Cannot compare runs "[^"]*" and "[^"]*": /,
            "",
          ),
        } as const;
      }
      comparisons.clear(); // one comparison kept: they are cheap to redo
      comparisons.set(key, comparison);
    }
    const params = new URL(c.req.url).searchParams;
    const sideParam = params.get("side");
    const side = sideParam === "a" || sideParam === "b" ? sideParam : "";
    const all = flipsOf(ra, rb).filter((f) => side === "" || f.right === side);
    const perPage = FLIPS_PER_PAGE;
    const pages = Math.max(1, Math.ceil(all.length / perPage));
    const pageNo = Math.min(Math.max(1, Number(params.get("page")) || 1), pages);
    const flips: FlipPage = {
      total: all.length,
      page: pageNo,
      pages,
      perPage,
      side,
      flips: all.slice((pageNo - 1) * perPage, pageNo * perPage),
    };
    return { a, b, comparison, flips } as const;
  };
  app.get("/compare", (c) => {
    const ids = new URL(c.req.url).searchParams.getAll("run");
    if (ids.length !== 2) {
      return htmlPage(
        c,
        page(
          "Compare runs",
          html`${
            notice("error", `Cannot compare: tick exactly two runs (${ids.length} ticked)`)
          }<p><a href="/">Back to the runs</a></p>`,
        ),
        400,
      );
    }
    return c.redirect(compareHref(ids[0] as string, ids[1] as string), 303);
  });
  app.get("/compare/:a/:b", async (c) => {
    const result = await compare(c);
    if ("missing" in result) return missing(c, `run "${result.missing}"`);
    if ("reason" in result) return htmlPage(c, refusedPage(result.a, result.b, result.reason), 409);
    const cases = await casesOf(result.a, result.flips.flips.map((f: Flip) => f.a));
    return htmlPage(c, comparePage({ ...result, cases }));
  });
  app.get("/api/compare/:a/:b", async (c) => {
    const result = await compare(c);
    if ("missing" in result) return missing(c, `run "${result.missing}"`);
    if ("reason" in result) {
      return c.json({
        error: `Cannot compare runs "${result.a.id}" and "${result.b.id}": ${result.reason}`,
      }, 409);
    }
    return c.json({
      comparison: result.comparison,
      flips: { ...result.flips, per_page: result.flips.perPage },
    });
  });

  app.notFound((c) => missing(c, `"${c.req.path}"`));
  app.onError((error, c) => {
    const message = error instanceof Error ? error.message : String(error);
    return c.req.path.startsWith("/api/")
      ? c.json({ error: message }, 500)
      : htmlPage(c, page("Error", notice("error", message)), 500);
  });
  return app;
}
