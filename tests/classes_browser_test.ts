// End-to-end in headless Chromium: from a tickets run's page, the keyboard reaches the per-class
// page; its matrices are drawn (screenshot checked), whole at 1280 px, with no serious or
// critical axe-core violation; a lane's button opens that lane's figures; report.html's per-class
// tables are drawn whole, none over another.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunJson } from "../lib/record/mod.ts";
import { startView, type ViewServer } from "../lib/view/mod.ts";
import { ROOT, runScript } from "./bench_cli_helpers.ts";
import {
  assertAccessible,
  type Browser,
  launchChromium,
  pressAndWait,
  screenshotDrawn,
  tabTo,
} from "./browser_helpers.ts";

/** Where the screenshots are kept after the test (ignored by git). */
const SHOTS = join(ROOT, ".scratch", "view-screenshots");

Deno.test("the per-class page is reached, drawn and accessible in headless Chromium with the keyboard alone", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-classes-browser-" });
  let view: ViewServer | null = null;
  let browser: Browser | null = null;
  try {
    await Deno.mkdir(SHOTS, { recursive: true });
    const runs = join(tmp, "runs");
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
    const db = join(runs, "decibench.db");
    const bench = await runScript("bench.ts", [
      workflow,
      "--out",
      dir,
      "--db",
      db,
      "--limit",
      "400",
    ]);
    assert.ok(bench.code === 0 || bench.code === 1, bench.stderr);
    const run = JSON.parse(await Deno.readTextFile(join(dir, "run.json"))) as RunJson;
    view = await startView({ port: 0, dbPath: db, runsDir: runs });
    browser = await launchChromium(tmp);
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${view.url}/runs/${run.id}`);
    await tabTo(page, `a[href="/runs/${run.id}/classes"]`);
    await pressAndWait(page, "Enter");
    assert.equal(new URL(page.url()).pathname, `/runs/${run.id}/classes`);
    const cells = await page.$$eval(
      'table.confusion[data-question="urgent"] td[data-gold="true"]:not([data-predicted="error"])',
      (els) => els.map((el) => Number(el.textContent)),
    );
    const urgent = run.summary!.classes!.urgent!;
    assert.deepEqual(cells, urgent.confusion[0]!.slice(0, urgent.labels.length));
    await screenshotDrawn(page, join(SHOTS, "classes.png"));
    // At 1280 px every matrix (five classes, the error column and support for topic) and
    // per-class table is shown whole, none cut off in a scrolling box beside the other.
    const clipped = await page.$$eval(
      "table.confusion, table.per-class",
      (tables) =>
        tables.filter((t) => {
          const box = t.parentElement!;
          return box.scrollWidth > box.clientWidth + 1;
        }).map((t) => `${t.className} ${t.getAttribute("data-question")}`),
    );
    assert.deepEqual(clipped, [], "tables cut off at 1280 px");
    assert.ok(
      await page.$('table.confusion[data-question="topic"] td[data-predicted="error"]'),
      "the run has errors: topic's matrix has its error column",
    );
    await assertAccessible(page, "per-class page");
    const lane = Object.keys(urgent.lanes)[0]!;
    await tabTo(page, `a.button[href$="?lane=${encodeURIComponent(lane)}"]`);
    await pressAndWait(page, "Enter");
    assert.equal(new URL(page.url()).searchParams.get("lane"), lane);
    const laneCells = await page.$$eval(
      'table.confusion[data-question="urgent"] td[data-gold="true"]:not([data-predicted="error"])',
      (els) => els.map((el) => Number(el.textContent)),
    );
    assert.deepEqual(laneCells, urgent.lanes[lane]!.confusion[0]!.slice(0, urgent.labels.length));
    await assertAccessible(page, `per-class page of lane ${lane}`);

    // report.html at 1280 px: each matrix and its per-class table side by side, neither drawn
    // over the other nor spilling out of its box.
    await page.goto(`file://${join(dir, "report.html")}`);
    const boxes = await page.$$eval(
      "h2#per-class ~ * figure",
      (figures) =>
        figures.filter((f) => f.querySelector("table")).map((f) => {
          const r = f.getBoundingClientRect();
          const table = f.querySelector("table")!.getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, table: table.right };
        }),
    );
    assert.ok(boxes.length >= 6, `${boxes.length} per-class figures in report.html`);
    for (const [i, a] of boxes.entries()) {
      assert.ok(a.table <= a.right + 1, `report.html figure ${i}: its table spills out`);
      for (const b of boxes.slice(i + 1)) {
        const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top ||
          b.bottom <= a.top;
        assert.ok(apart, `report.html figures overlap: ${JSON.stringify([a, b])}`);
      }
    }
  } finally {
    await browser?.close();
    await view?.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
