// End-to-end: the view against hostile input. Run as `deno task view` with read access to the
// test's folder only, it answers 404 to every path that tries to leave the runs folder (`..`,
// `%2e%2e`, a NUL, an absolute path, a symbolic link) and never reads outside it; a state holding
// `<script>` or HTML is shown as text in a real browser, never run; runs on different dataset
// revisions are not compared.
import assert from "node:assert/strict";
import { join } from "node:path";
import { readDecisions } from "../lib/record/mod.ts";
import { freePort, ROOT } from "./bench_cli_helpers.ts";
import { type Browser, launchChromium } from "./browser_helpers.ts";
import { benchRun, HOSTILE_TEXT, hostileDataset, rawGet } from "./view_helpers.ts";

// deno-lint-ignore no-explicit-any
type InPage = any; // the page's own globals, typed loosely in callbacks

const SECRET = "TOPSECRET-do-not-serve";

Deno.test("the view serves only the runs folder and shows hostile states as text", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-view-hostile-" });
  const runs = join(tmp, "runs");
  let browser: Browser | null = null;
  let child: Deno.ChildProcess | null = null;
  try {
    const dataset = await hostileDataset(join(tmp, "dataset"));
    const env = { DECIBENCH_DATASET_DIR: dataset.dir };
    const hostile = await benchRun(runs, "hostile", { env });
    const normal = await benchRun(runs, "normal", { limit: 40 });
    // Bait outside the runs folder: a secret file, and a run reached only through a symlink.
    await Deno.writeTextFile(join(tmp, "secret.txt"), SECRET);
    const outside = join(tmp, "outside", "linked-run");
    await Deno.mkdir(outside, { recursive: true });
    const linked = JSON.parse(await Deno.readTextFile(join(normal.dir, "run.json")));
    await Deno.writeTextFile(
      join(outside, "run.json"),
      JSON.stringify({
        ...linked,
        id: "linked-run",
        summary: { ...linked.summary, secret: SECRET },
      }),
    );
    await Deno.symlink(outside, join(runs, "linked"));

    // The view as a user starts it, allowed to read the test's folder and nothing else.
    const port = freePort();
    child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        `--allow-read=${runs},${dataset.dir}`,
        `--allow-net=127.0.0.1:${port}`,
        "--allow-env=DECIBENCH_DATASET_DIR",
        "scripts/view.ts",
        "--port",
        String(port),
        "--db",
        join(runs, "decibench.db"),
        "--runs",
        runs,
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const stderr = new Response(child.stderr).text();
    let printed = "";
    while (!printed.includes("\n")) {
      const { value, done } = await stdout.read();
      if (done) assert.fail(`view exited before listening: ${await stderr}`);
      printed += value;
    }
    const base = /(http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] as string;
    assert.ok(base, printed);
    void (async () => {
      while (!(await stdout.read()).done) { /* keep draining */ }
    })();

    await t.step("paths that leave the runs folder get 404 and read nothing", async () => {
      const id = normal.run.id;
      const targets = [
        "/runs/..",
        "/runs/../secret.txt",
        "/runs/%2e%2e",
        "/runs/%2e%2e%2fsecret.txt",
        "/runs/%2E%2E/%2E%2E/secret.txt",
        "/runs/..%2f..%2fsecret.txt",
        "/runs/%00",
        "/runs/x%00y",
        `/runs/${id}%00`,
        `/runs/${id}/report.html%00.txt`,
        "/runs/%2Fetc%2Fpasswd",
        "/runs//etc/passwd",
        `/runs/${encodeURIComponent(join(tmp, "secret.txt"))}`,
        "//etc/passwd",
        "/../../../etc/passwd",
        "/runs/C:%5Csecret.txt",
        `/runs/${id}/..%2f..%2f..%2fsecret.txt/report.html`,
        `/runs/${id}/decisions/..%2F..%2Fsecret.txt/x`,
        "/assets/..%2f..%2fdeno.json",
        "/assets/%2e%2e/%2e%2e/deno.json",
        "/assets/view.css%00",
        "/api/runs/%2e%2e",
        "/api/runs/..%2F..%2Fsecret.txt",
        `/api/runs/${id}/decisions/%2e%2e/%2e%2e`,
        "/api/compare/%2e%2e/%2e%2e",
        "/runs/linked-run",
        "/api/runs/linked-run",
      ];
      for (const target of targets) {
        const response = await rawGet(base, target);
        assert.equal(response.status, 404, `${target}: ${response.status}`);
        assert.ok(!response.body.includes(SECRET), `${target} served the secret`);
        assert.doesNotMatch(response.body, /root:x:0:0|"imports"/, `${target} served a file`);
      }
      const listed = await (await fetch(`${base}/api/runs`)).json();
      assert.deepEqual(
        listed.runs.map((r: { id: string }) => r.id).sort(),
        [hostile.run.id, normal.run.id].sort(),
        "the run behind a symbolic link is not listed",
      );
    });

    await t.step("runs on different dataset revisions are not compared", async () => {
      const response = await fetch(`${base}/api/compare/${hostile.run.id}/${normal.run.id}`);
      assert.equal(response.status, 409);
      const { error } = await response.json();
      assert.match(error, /different datasets or revisions/);
      assert.match(error, /000000000000/);
      assert.match(error, /e039ebffcc28/);
      const page = await fetch(`${base}/compare/${hostile.run.id}/${normal.run.id}`);
      assert.equal(page.status, 409);
      assert.match(await page.text(), /Cannot compare runs/);
    });

    await t.step("a state with <script> and HTML is shown as text, never run", async () => {
      browser = await launchChromium(tmp);
      const page = await browser.newPage();
      page.setDefaultTimeout(30_000);
      const caseId = dataset.cases[0] as string;
      const decisions = await readDecisions(join(hostile.dir, "decisions.jsonl"));
      const question = decisions.find((r) => r.case === caseId)?.question;
      assert.ok(question, `the hostile case ${caseId} was asked`);
      const pages = [
        `/runs/${hostile.run.id}/decisions/${caseId}/${question}`,
        `/runs/${hostile.run.id}/decisions?q=pwned&per_page=50`,
      ];
      for (const path of pages) {
        await page.goto(`${base}${path}`);
        await page.waitForSelector("main");
        // Open every decision shown, so every state is in the rendered page.
        await page.$$eval("details", (els: InPage[]) => els.forEach((d) => (d.open = true)));
        const found = await page.evaluate(() => {
          const g = globalThis as InPage;
          return {
            pwned: g.__pwned ?? null,
            scripts: [...g.document.scripts].map((s: InPage) => s.getAttribute("src")),
            images: g.document.querySelectorAll("main img").length,
            handlers: g.document.querySelectorAll("[onerror], [onload]").length,
            states: [...g.document.querySelectorAll("pre.state")].map((p: InPage) => p.textContent),
          };
        });
        assert.equal(found.pwned, null, `${path}: the state's script ran`);
        assert.deepEqual(found.scripts, ["/assets/view.js"], path);
        assert.equal(found.images, 0, path);
        assert.equal(found.handlers, 0, path);
        assert.ok(found.states.length > 0, `${path}: no state shown`);
        for (const state of found.states) {
          for (const text of HOSTILE_TEXT) {
            assert.ok(
              state.includes(JSON.stringify(text).slice(1, -1)),
              `${path}: ${text} not shown`,
            );
          }
        }
      }
      const count = await page.$eval(
        "#match-count",
        (el: InPage) => Number(el.getAttribute("data-total")),
      );
      assert.equal(count, dataset.cases.length * 5, "the text filter finds the four hostile cases");
    });

    const problems = await (async () => {
      child.kill("SIGTERM");
      await child.status;
      return await stderr;
    })();
    child = null;
    assert.doesNotMatch(problems, /Requires read access|PermissionDenied|NotCapable/, problems);
  } finally {
    await (browser as Browser | null)?.close();
    if (child) {
      child.kill("SIGTERM");
      await child.status;
    }
    await Deno.remove(tmp, { recursive: true });
  }
});
