/**
 * `deno task live` in a real pseudo-terminal (tmux) against the reference server: the panels and
 * their figures, Ctrl+R, Ctrl+C, an unreachable server, a faulty server, and a server without
 * `/v1/systemone`.
 */
import assert from "node:assert/strict";
import { probesShown, startServe, Tmux } from "./live_helpers.ts";

const ENTER_ALT = "\x1b[?1049h";
const LEAVE_ALT = "\x1b[?1049l";
const CREDIT = "data: Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)";

async function assertRestored(tmux: Tmux): Promise<void> {
  assert.equal(await tmux.display("#{alternate_on}"), "0", "left the alternate screen");
  assert.equal(await tmux.display("#{cursor_flag}"), "1", "cursor visible again");
  const stty = await Deno.readTextFile(tmux.sttyFile);
  assert.match(stty, /(^|\s)icanon(\s|$)/, `canonical mode restored: ${stty}`);
  assert.match(stty, /(^|\s)echo(\s|$)/, `echo restored: ${stty}`);
  const raw = await tmux.raw();
  assert.ok(raw.lastIndexOf(LEAVE_ALT) > raw.lastIndexOf(ENTER_ALT), "left after entering");
}

Deno.test({
  name:
    "`deno task live` shows every panel with figures, Ctrl+R resets, Ctrl+C exits 0 and restores the terminal",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startServe(["--predictor", "uniform"]);
    let tmux: Tmux | null = null;
    try {
      tmux = await Tmux.start(["--base-url", server.url, "--interval", "0.1"]);
      const t = tmux;
      // A frame can be caught half written, so wait for a whole one, then check it line by line.
      const panels = [
        /decibench live · workflow reference · model decibench-reference · every 0\.1 s/,
        /── now · [a-z_]+_\d{6} · \d\/5 match gold · latency [\d.]+ ms · [\d,]+ input tokens/,
        / {2}state \{/,
        /[✓✗] \S+ +(noul|choice|score) +\d+%/,
        /── quality · last \d+ decisions/,
        /accuracy +\d+\.\d% {2}[▁▂▃▄▅▆▇█]+/,
        /ECE +\d\.\d{3} {2}[▁▂▃▄▅▆▇█ ]+/,
        /Brier +\d\.\d{3} {2}mean confidence \d+\.\d%/,
        /session +\d+\.\d% {2}of \d+ decisions/,
        /confident mistakes \(wrong at ≥ 90%\) {2}\d+/,
        /── confidence · last \d+ answered decisions/,
        /0\.9–1\.0 /,
        /── by question type · session accuracy/,
        /noul +.*of \d+/,
        /── server · http:\/\/127\.0\.0\.1:\d+\/v1\/systemone/,
        /latency p50 [\d.]+ ms · p95 [\d.]+ ms/,
        /input tokens sent [\d,]+ in \d+ probes/,
        /requests\/s \d+\.\d\d · input tokens\/s [\d,]+/,
        /busy slots [\d.]+ · processing \d · queued \d/,
        /Ctrl\+R reset · Ctrl\+C quit · data: Typed Decisions \(LocalLLaMA\/typed-decisions, revision e039ebf, Apache-2\.0\)/,
      ];
      const screen = await t.waitForScreen(
        "eight probes with every panel and server rates",
        (s) => (probesShown(s) ?? 0) >= 8 && panels.every((re) => re.test(s)),
      );
      for (const expected of panels) assert.match(screen, expected);
      for (const line of screen.split("\n")) assert.ok([...line].length <= 120, line);
      assert.equal(
        await t.display("#{alternate_on}"),
        "1",
        "full screen uses the alternate screen",
      );
      assert.equal(await t.display("#{cursor_flag}"), "0", "cursor hidden");

      await t.run(["resize-window", "-t", t.session, "-x", "90", "-y", "22"]);
      const narrow = await t.waitForScreen(
        "the view redrawn for 90×22",
        (s) =>
          !s.includes("── confidence") && /panels? hidden: enlarge the terminal/.test(s) &&
          s.includes(CREDIT) && /^Ctrl\+R reset · Ctrl\+C quit$/m.test(s),
      );
      const rows = narrow.split("\n");
      for (const line of rows) assert.ok([...line].length <= 90, line);
      assert.match(narrow, /── now · /);
      assert.match(narrow, /── quality · /);
      assert.ok(rows.some((l) => l.startsWith("Ctrl+R reset · Ctrl+C quit")), "keys stay");
      assert.ok(
        rows.some((l) => l === CREDIT),
        "the credit stays whole",
      );
      await t.run(["resize-window", "-t", t.session, "-x", "120", "-y", "40"]);
      await t.waitForScreen("the view back at 120×40", (s) => s.includes("── confidence"));

      const before = probesShown(await t.capture()) ?? 0;
      await t.send("C-r");
      const reset = await t.waitForScreen(
        "the session to restart",
        (s) =>
          (probesShown(s) ?? Infinity) < Math.min(before, 4) &&
          /session +(\d+\.\d%|n\/a) {2}of (0|5|10|15) decisions/.test(s),
      );
      assert.match(reset, /session +(\d+\.\d%|n\/a) {2}of (0|5|10|15) decisions/);

      await t.send("C-c");
      assert.equal(await t.waitForExit(), "EXIT=0");
      await assertRestored(t);
    } finally {
      await tmux?.kill();
      await server.stop();
    }
  },
});

Deno.test({
  name: '`deno task live` shows "model unreachable" when the server goes away and keeps probing',
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startServe(["--predictor", "uniform"]);
    let tmux: Tmux | null = null;
    try {
      tmux = await Tmux.start(["--base-url", server.url, "--interval", "0.1"]);
      const t = tmux;
      await t.waitForScreen("two answered probes", (s) => (probesShown(s) ?? 0) >= 2);
      await server.stop();
      const signs = [
        /⚠ model unreachable: \d+ probes in a row got no answer · probing continues/,
        /✗ network: Cannot reach "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone"/,
        /\/metrics unavailable: /,
        /failed probes \d+ of \d+/,
      ];
      const down = await t.waitForScreen(
        "the unreachable banner",
        (s) => signs.every((re) => re.test(s)),
      );
      for (const sign of signs) assert.match(down, sign);
      const failed = Number(/failed probes (\d+)/.exec(down)?.[1] ?? NaN);
      await t.waitForScreen(
        "more failed probes (probing continues)",
        (s) => Number(/failed probes (\d+)/.exec(s)?.[1] ?? 0) > failed + 2,
      );
      assert.equal(await t.exitLine(), null, "still running");
      await t.send("C-c");
      assert.equal(await t.waitForExit(), "EXIT=0");
      await assertRestored(t);
    } finally {
      await tmux?.kill();
      await server.stop();
    }
  },
});

Deno.test({
  name: "`deno task live` against a faulty server shows the errors and keeps running",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startServe([
      "--predictor",
      "uniform",
      "--faults",
      "http500=0.3,malformed=0.2",
      "--seed",
      "7",
    ]);
    let tmux: Tmux | null = null;
    try {
      tmux = await Tmux.start(["--base-url", server.url, "--interval", "0.05"]);
      const t = tmux;
      const seen = new Set<string>();
      await t.waitForScreen("both kinds of error and 30 probes", (s) => {
        for (const kind of ["unavailable", "malformed"]) {
          if (new RegExp(`✗ ${kind}: `).test(s)) seen.add(kind);
        }
        return seen.size === 2 && (probesShown(s) ?? 0) >= 30 &&
          /failed probes \d+ of \d+ · last /.test(s) &&
          s.includes("── quality · last 100 decisions");
      });
      const screen = await t.waitForScreen(
        "a whole frame with the failures",
        (s) => /failed probes \d+ of \d+ · last /.test(s) && s.includes("── quality · last 100"),
      );
      assert.match(screen, /failed probes \d+ of \d+ · last /);
      assert.match(screen, /── quality · last 100 decisions/);
      assert.equal(await t.exitLine(), null, "still running");
      await t.send("C-c");
      assert.equal(await t.waitForExit(), "EXIT=0");
      await assertRestored(t);
    } finally {
      await tmux?.kill();
      await server.stop();
    }
  },
});

Deno.test({
  name: "`deno task live` stops before the screen opens when the server has no /v1/systemone",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startServe(["--faults", "http404=1"]);
    let tmux: Tmux | null = null;
    try {
      tmux = await Tmux.start(["--base-url", server.url]);
      assert.equal(await tmux.waitForExit(), "EXIT=1");
      const screen = await tmux.capture();
      assert.match(
        screen,
        /decibench: Cannot monitor "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone": the server does not serve decision models \(HTTP 404/,
      );
      const raw = await tmux.raw();
      assert.ok(!raw.includes(ENTER_ALT), "the alternate screen was never opened");
      assert.ok(!raw.includes("── now"), "no panel was drawn");
      const stty = await Deno.readTextFile(tmux.sttyFile);
      assert.match(stty, /(^|\s)icanon(\s|$)/);
    } finally {
      await tmux?.kill();
      await server.stop();
    }
  },
});
