/**
 * `deno task bench` progress: in a real 40-column pseudo-terminal (tmux) the bar stays on one
 * line, shows rate and ETA, and redraws at most about ten times a second; without a terminal a
 * plain line every tenth of the run.
 */
import assert from "node:assert/strict";
import { runScript } from "./bench_cli_helpers.ts";
import { Tmux } from "./live_helpers.ts";

// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;

Deno.test({
  name: "bench in a 40-column terminal draws its progress on one line with rate and ETA",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    // The embedded reference server, slowed down so the run lasts a few seconds.
    const workflow = `${dir}/slow.ts`;
    await Deno.writeTextFile(
      workflow,
      `export default {
  name: "slow",
  endpoint: { reference: { predictor: "uniform", latencyMs: 15 }, model: "m" },
  parallel: 2,
};
`,
    );
    let tmux: Tmux | null = null;
    try {
      tmux = await Tmux.start([workflow, "--out", `${dir}/run`, "--no-db"], {
        script: "bench.ts",
        width: 40,
        height: 24,
      });
      const t = tmux;
      const mid = await t.waitForScreen(
        "a progress line with rate and ETA",
        (s) => / \d+(\.\d)?\/s/.test(s) && /ETA \d/.test(s),
      );
      const barLine = mid.split("\n").find((l) => /ETA \d/.test(l)) ?? "";
      assert.match(barLine, /\d+\/400/);
      assert.ok([...barLine].length < 40, barLine);
      assert.equal(await t.waitForExit(60_000), "EXIT=0");

      const lines = await t.history();
      const reportAt = lines.findIndex((l) => l.startsWith("decibench · slow"));
      assert.ok(reportAt > 0, lines.join("\n"));
      // Before the report: the start line (wrapped at 40 columns) and nothing the bar left behind.
      const before = lines.slice(0, reportAt).filter((l) => l.trim() !== "");
      assert.ok(before.length <= 3, before.join("\n"));
      assert.ok(!before.some((l) => /\d+\/400/.test(l)), "no progress line left on screen");

      const raw = await t.raw();
      const redraws = raw.split("\r\x1b[2K").slice(1).map((s) => s.replace(ESCAPES, ""));
      const drawn = redraws.map((s) => s.split("\n")[0] ?? "").filter((s) => /\d+\/400/.test(s));
      assert.ok(drawn.length >= 3, `the bar was drawn ${drawn.length} times`);
      for (const line of drawn) assert.ok([...line].length < 40, `too wide: ${line}`);
      const run = JSON.parse(await Deno.readTextFile(`${dir}/run/run.json`));
      const seconds = run.sessions[0].duration_ms / 1000;
      assert.ok(
        drawn.length <= Math.ceil(seconds * 10) + 2,
        `${drawn.length} redraws in ${seconds.toFixed(1)} s`,
      );
      console.log(
        `40-column pty: a 400-case run printed ${lines.length} lines ` +
          `(${before.length} before the report; ${drawn.length} redraws in ${
            seconds.toFixed(1)
          } s)`,
      );
    } finally {
      await tmux?.kill();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("bench without a terminal logs one progress line per tenth of the run", async () => {
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", ["--out", out, "--no-db"]);
  assert.equal(r.code, 0, r.stderr);
  const progress = r.stderr.split("\n").filter((l) => l.startsWith("progress "));
  assert.equal(progress.length, 10, r.stderr);
  assert.match(progress[0]!, /^progress 40\/400 cases \(10%\)/);
  assert.match(progress.at(-1)!, /^progress 400\/400 cases \(100%\)/);
  assert.ok(!r.stderr.includes("\x1b"), "no escape sequences in a log");
  await Deno.remove(out, { recursive: true });
});
