/**
 * `deno task live` without a terminal (stdout piped): one line per probe, the embedded default
 * workflow, a clean exit on SIGINT, and the refusals (no /v1/systemone, bad flags).
 */
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { ROOT } from "./live_helpers.ts";

async function live(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/live.ts", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

const LINE =
  /^#(\d+) [a-z_]+_\d{6} \| \d\/5 match gold · [\d.]+ ms · \d+ input tokens \| last \d+: accuracy \d+\.\d% ECE \d\.\d{3} Brier \d\.\d{3} \| session \d+\.\d% of \d+/;

Deno.test("`deno task live` without a terminal prints one plain line per probe", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const { code, stdout, stderr } = await live([
    "--base-url",
    server.url,
    "--probes",
    "4",
    "--interval",
    "0",
  ]);
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines.length, 4, stdout);
  lines.forEach((line, i) => {
    assert.match(line, LINE);
    assert.equal(LINE.exec(line)?.[1], String(i + 1));
  });
  assert.ok(!stdout.includes("\x1b"), "no escape sequences without a terminal");
  assert.match(lines[3] ?? "", /\| server \d+\.\d\d req\/s$/);
  assert.equal(server.stats().decisionRequests, 4);
});

Deno.test("`deno task live` cycles the cases in a fixed seeded order", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const ids = async (seed: string) => {
    const { code, stdout, stderr } = await live([
      "--base-url",
      server.url,
      "--probes",
      "3",
      "--interval",
      "0",
      "--seed",
      seed,
    ]);
    assert.equal(code, 0, stderr);
    return stdout.trimEnd().split("\n").map((l) => l.split(" ")[1]);
  };
  const first = await ids("1");
  assert.deepEqual(await ids("1"), first);
  assert.notDeepEqual(await ids("2"), first);
  assert.equal(new Set(first).size, 3);
});

Deno.test("`deno task live` with no workflow watches the embedded reference server", async () => {
  const { code, stdout, stderr } = await live(["--probes", "2", "--interval", "0"]);
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2);
  for (const line of lines) assert.match(line, LINE);
});

Deno.test("`deno task live` exits 0 on SIGINT without a terminal", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/live.ts", "--base-url", server.url, "--interval", "0.2"],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  child.kill("SIGINT");
  while (!(await reader.read()).done) { /* drain */ }
  const stderr = await new Response(child.stderr).text();
  const status = await child.status;
  assert.match(text, LINE);
  assert.equal(status.code, 0, stderr);
});

Deno.test("`deno task live` refuses a server without /v1/systemone with a message and exit 1", async () => {
  await using server = await startReferenceServer({ faults: "http404=1" });
  const { code, stdout, stderr } = await live(["--base-url", server.url, "--interval", "0"]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(
    stderr,
    /^decibench: Cannot monitor "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone": the server does not serve decision models \(HTTP 404\); .*check --base-url/,
  );
  assert.equal(server.stats().decisionRequests, 1, "one probe, then stop");
});

Deno.test("`deno task live` refuses bad flags with the usage and exit 2", async (t) => {
  const cases: [string, string[], RegExp][] = [
    ["a negative interval", ["--interval", "-1"], /Cannot use --interval "-1": it is negative/],
    ["an unknown flag", ["--bogus"], /Cannot use "--bogus": no such option/],
    [
      "a missing workflow file",
      ["workflows/nope.ts"],
      /Cannot load workflow "workflows\/nope\.ts"/,
    ],
    [
      "a metrics URL with credentials",
      ["--metrics-url", "http://u:p@127.0.0.1:1/metrics", "--probes", "1"],
      /Cannot use --metrics-url "http:\/\/127\.0\.0\.1:1\/metrics": .*embeds credentials/,
    ],
  ];
  for (const [name, args, expected] of cases) {
    await t.step(name, async () => {
      const { code, stderr } = await live(args);
      assert.match(stderr, expected);
      assert.equal(code, 2);
    });
  }
});
