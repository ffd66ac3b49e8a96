// End-to-end in a real browser: `deno task view` over real bench runs, driven in headless Chromium
// (Debian's, through puppeteer-core) with the keyboard alone. A running run's progress moves on
// the runs page until it completes; the table sorts by accuracy; two ticked runs open their
// comparison and a flipped decision opens; the explorer filtered to wrong answers at ≥ 90%
// confidence shows the count decisions.jsonl holds. Each page is screenshotted at 1280×800 and
// checked to be drawn, and axe-core finds no serious or critical violation on it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { readDecisions } from "../lib/record/mod.ts";
import { startView, type ViewServer } from "../lib/view/mod.ts";
import { ROOT, spawnScript } from "./bench_cli_helpers.ts";
import {
  assertAccessible,
  type Browser,
  launchChromium,
  type Page,
  pressAndWait,
  screenshotDrawn,
  tabTo,
} from "./browser_helpers.ts";
import { benchRun } from "./view_helpers.ts";

/** Where the screenshots are kept after the test (ignored by git). */
const SHOTS = join(ROOT, ".scratch", "view-screenshots");

// deno-lint-ignore no-explicit-any
type InPage = any; // the page's own globals (document, elements), typed loosely in callbacks

async function text(page: Page, selector: string): Promise<string> {
  return await page.$eval(selector, (el: InPage) => (el.textContent ?? "").trim());
}

async function checkPage(page: Page, name: string): Promise<void> {
  await screenshotDrawn(page, join(SHOTS, `${name}.png`));
  await assertAccessible(page, name);
}

Deno.test("the view works in headless Chromium with the keyboard alone", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-view-browser-" });
  const runs = join(tmp, "runs");
  let view: ViewServer | null = null;
  let browser: Browser | null = null;
  let slow: ReturnType<typeof spawnScript> | null = null;
  try {
    await Deno.mkdir(SHOTS, { recursive: true });
    const fitted = await benchRun(runs, "fitted");
    const prior = await benchRun(runs, "prior", { predictor: "prior" });
    // A run that takes a few seconds (40 ms per case, one at a time): live progress.
    const workflow = join(runs, "slow.workflow.ts");
    await Deno.writeTextFile(
      workflow,
      `export default ${
        JSON.stringify({
          name: "slow",
          endpoint: {
            name: "slow",
            reference: { predictor: "fitted", latencyMs: 40 },
            model: "decibench-reference",
          },
          parallel: 1,
        })
      };\n`,
    );
    view = await startView({ port: 0, dbPath: join(runs, "decibench.db"), runsDir: runs });
    browser = await launchChromium(tmp);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.setDefaultTimeout(30_000);
    const base = view.url;
    const requested: string[] = [];
    page.on("request", (request) => void requested.push(request.url()));

    await t.step("a running run shows its progress moving, then its results", async () => {
      slow = spawnScript("bench.ts", [
        workflow,
        "--limit",
        "60",
        "--out",
        join(runs, "slow"),
        "--db",
        join(runs, "decibench.db"),
      ]);
      // Wait until the run directory says it is running, then open the page.
      for (let i = 0; i < 200; i++) {
        const status = await Deno.readTextFile(join(runs, "slow", "run.json"))
          .then((t) => JSON.parse(t).status, () => null);
        if (status === "running") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await page.goto(`${base}/`);
      await page.waitForSelector("[data-progress-run] .count");
      const first = Number((await text(page, "[data-progress-run] .count")).split(" ")[0]);
      await page.waitForFunction(
        (n: number) => {
          // deno-lint-ignore no-explicit-any
          const el = (globalThis as any).document.querySelector("[data-progress-run] .count");
          return el !== null && Number(el.textContent.split(" ")[0]) > n;
        },
        {},
        first,
      );
      await checkPage(page, "runs-live");
      // When the run ends the page reloads with it completed.
      await page.waitForFunction(() =>
        // deno-lint-ignore no-explicit-any
        (globalThis as any).document.querySelectorAll("[data-progress-run]").length === 0 &&
        // deno-lint-ignore no-explicit-any
        (globalThis as any).document.querySelectorAll("tr[data-run]").length === 3, {
        timeout: 60_000,
      });
      const status = await slow.child.status;
      assert.equal(status.code, 0, await slow.stderr);
      slow = null;
    });

    await t.step("the runs table sorts by accuracy from the keyboard", async () => {
      await page.goto(`${base}/`);
      await tabTo(page, 'a[data-sort="accuracy"]');
      await pressAndWait(page, "Enter");
      assert.equal(
        await page.$eval(
          'th:has(a[data-sort="accuracy"])',
          (el: InPage) => el.getAttribute("aria-sort"),
        ),
        "descending",
      );
      const values = await page.$$eval(
        'tr[data-run] td[data-metric="accuracy"]',
        (cells: InPage[]) => cells.map((c) => Number(c.getAttribute("data-value"))),
      );
      assert.equal(values.length, 3);
      assert.deepEqual(values, [...values].sort((a, b) => b - a));
      await checkPage(page, "runs-sorted");
    });

    await t.step("two runs ticked with the keyboard open their comparison", async () => {
      await page.goto(`${base}/`);
      assert.equal(await page.$eval("#compare-button", (b: InPage) => b.disabled), true);
      for (const id of [fitted.run.id, prior.run.id]) {
        await tabTo(page, `input[value="${id}"]`);
        await page.keyboard.press(" ");
      }
      assert.equal(await page.$eval("#compare-button", (b: InPage) => b.disabled), false);
      assert.equal(
        await page.$$eval('input[name="run"]:disabled', (els: InPage[]) => els.length),
        1,
        "a third run cannot be ticked",
      );
      assert.match(await text(page, "#compare-status"), /^Ready: compare /);
      await tabTo(page, "#compare-button");
      await pressAndWait(page, "Enter");
      assert.match(page.url(), /\/compare\/[^/]+\/[^/]+$/);
      await page.waitForSelector("#flips");
      const flips = Number(
        await page.$eval("#flip-count", (el: InPage) => el.getAttribute("data-total")),
      );
      assert.ok(flips > 0, "the fitted and prior runs disagree somewhere");
      await checkPage(page, "compare");
    });

    await t.step("a flipped decision opens with both distributions and the state", async () => {
      await tabTo(page, "details.flip > summary");
      await page.keyboard.press("Enter");
      await page.waitForSelector("details.flip[open] table.dist");
      const columns = await page.$$eval(
        "details.flip[open] table.dist thead th",
        (ths: InPage[]) => ths.map((th) => th.textContent.trim()),
      );
      assert.deepEqual(columns, ["option", "A", "B", "gold"]);
      assert.ok((await text(page, "details.flip[open] pre.state")).startsWith("{"));
      await checkPage(page, "compare-flip-open");
      await tabTo(page, "details.flip[open] a");
      await pressAndWait(page, "Enter");
      await page.waitForSelector("pre.state");
      await checkPage(page, "decision");
    });

    const records = await readDecisions(join(fitted.dir, "decisions.jsonl"));
    const wrongAt = (p: number) =>
      records.filter((r) => !r.error && !r.correct && (r.confidence ?? 0) >= p).length;

    await t.step(
      "the explorer filtered to wrong answers at ≥ 90% confidence counts as decisions.jsonl",
      async () => {
        await page.goto(`${base}/runs/${fitted.run.id}`);
        await checkPage(page, "run");
        await tabTo(page, "select#outcome");
        await page.keyboard.type("wrong");
        await tabTo(page, "input#min_conf");
        await page.keyboard.type("0.9");
        await pressAndWait(page, "Enter");
        await page.waitForSelector("#match-count");
        assert.match(page.url(), /outcome=wrong/);
        assert.match(page.url(), /min_conf=0\.9/);
        assert.equal(
          Number(await page.$eval("#match-count", (el: InPage) => el.getAttribute("data-total"))),
          wrongAt(0.9),
        );
        // The one-click filter gives the same count; a lower bar shows some to open.
        await tabTo(page, "#confident-mistakes");
        await pressAndWait(page, "Enter");
        assert.equal(
          Number(await page.$eval("#match-count", (el: InPage) => el.getAttribute("data-total"))),
          wrongAt(0.9),
        );
        await page.goto(`${base}/runs/${fitted.run.id}/decisions?outcome=wrong&min_conf=0.7`);
        const shown = Number(
          await page.$eval("#match-count", (el: InPage) => el.getAttribute("data-total")),
        );
        assert.equal(shown, wrongAt(0.7));
        assert.ok(shown > 0);
        await tabTo(page, "details.decision > summary");
        await page.keyboard.press("Enter");
        await page.waitForSelector("details.decision[open] pre.state");
        await checkPage(page, "explorer");
      },
    );

    await t.step("every request the pages made went to the view itself (no CDN)", () => {
      assert.ok(requested.length > 10);
      assert.deepEqual(requested.filter((u) => !u.startsWith(`${base}/`)), []);
      assert.ok(requested.includes(`${base}/assets/view.css`));
      assert.ok(
        requested.some((u) => u.startsWith(`${base}/api/runs/`) && u.endsWith("/progress")),
      );
    });

    await t.step("the skip link is the first stop and moves focus to the content", async () => {
      await page.goto(`${base}/`);
      await page.keyboard.press("Tab");
      assert.equal(
        await page.evaluate(() => (globalThis as InPage).document.activeElement.className),
        "skip",
      );
      await page.keyboard.press("Enter");
      assert.equal(
        await page.evaluate(() => (globalThis as InPage).document.activeElement.id),
        "main",
      );
    });
  } finally {
    await browser?.close();
    if (slow) {
      (slow as ReturnType<typeof spawnScript>).child.kill();
      await (slow as ReturnType<typeof spawnScript>).child.status;
    }
    await view?.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
