/**
 * `deno task serve` as a user runs it: a subprocess that prints its URL, serves System One, and
 * exits cleanly on SIGTERM; bad flags exit 2 with a message.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SCRIPT = "scripts/serve.ts";

interface Running {
  child: Deno.ChildProcess;
  url: string;
  firstLine: string;
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT, ...args],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { done, value } = await lines.read();
    if (done) break;
    buffered += value;
  }
  const firstLine = buffered.split("\n")[0] ?? "";
  const url = /listening on (http:\/\/\S+)$/.exec(firstLine)?.[1];
  const stderrText = new Response(child.stderr).text();
  if (url === undefined) {
    child.kill("SIGKILL");
    await child.status;
    lines.releaseLock();
    throw new Error(`serve printed no URL: ${JSON.stringify(buffered)} ${await stderrText}`);
  }
  return {
    child,
    url,
    firstLine,
    async stop() {
      child.kill("SIGTERM");
      let rest = buffered.slice(buffered.indexOf("\n") + 1);
      for (;;) {
        const { done, value } = await lines.read();
        if (done) break;
        rest += value;
      }
      const status = await child.status;
      return { code: status.code, stdout: rest, stderr: await stderrText };
    },
  };
}

async function run(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT, ...args],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const request = JSON.stringify({
  state: "a refund request",
  questions: { ok: { type: "noul", instructions: "Refund it?" } },
});

Deno.test("`deno task serve` prints its URL, answers, and exits 0 on SIGTERM", async () => {
  const server = await serve(["--port", "0", "--predictor", "uniform"]);
  assert.match(
    server.firstLine,
    /^decibench reference server \(predictor uniform\) listening on http:\/\/127\.0\.0\.1:\d+$/,
  );
  const health = await fetch(`${server.url}/health`);
  assert.deepEqual(await health.json(), { status: "ok" });
  const reply = await fetch(`${server.url}/v1/systemone`, { method: "POST", body: request });
  assert.equal(reply.status, 200);
  assert.deepEqual((await reply.json()).answers, { ok: { type: "noul", noul: 0.5 } });
  const { code, stderr } = await server.stop();
  assert.equal(code, 0);
  assert.equal(stderr, "");
});

Deno.test("`deno task serve --faults` injects the faults it prints", async () => {
  const server = await serve(["--port", "0", "--faults", "http503=1", "--seed", "5"]);
  assert.match(server.firstLine, /\(predictor uniform, faults http503=1, seed 5\)/);
  const reply = await fetch(`${server.url}/v1/systemone`, { method: "POST", body: request });
  assert.equal(reply.status, 503);
  await reply.body?.cancel();
  assert.equal((await server.stop()).code, 0);
});

Deno.test("`deno task serve --slots 3` prints its slots and reports them at /props", async () => {
  const server = await serve(["--port", "0", "--slots", "3"]);
  assert.match(server.firstLine, /\(predictor uniform, 3 slots\) listening on /);
  const props = await fetch(`${server.url}/props`);
  assert.equal((await props.json()).total_slots, 3);
  const { code, stderr } = await server.stop();
  assert.equal(code, 0);
  assert.equal(stderr, "");
});

Deno.test("`deno task serve --api-key-env` requires the key and never prints it", async () => {
  const key = "sk-serve-test-4711";
  const server = await serve(["--port", "0", "--api-key-env", "DECIBENCH_TEST_KEY"], {
    DECIBENCH_TEST_KEY: key,
  });
  const without = await fetch(`${server.url}/v1/systemone`, { method: "POST", body: request });
  assert.equal(without.status, 401);
  assert.equal((await without.json()).error.type, "authentication_error");
  const withKey = await fetch(`${server.url}/v1/systemone`, {
    method: "POST",
    body: request,
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(withKey.status, 200);
  await withKey.body?.cancel();
  const { code, stdout, stderr } = await server.stop();
  assert.equal(code, 0);
  assert.ok(!server.firstLine.includes(key) && !stdout.includes(key) && !stderr.includes(key));
});

Deno.test("`deno task serve` refuses bad arguments with exit 2 and a message", async (t) => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["an unknown flag", ["--bogus"], {}, /Cannot use "--bogus": no such option/],
    ["a bad port", ["--port", "http"], {}, /Cannot use --port "http": expected a whole number/],
    ["a bad seed", ["--seed=-1"], {}, /Cannot use --seed "-1"/],
    ["a bad fault", ["--faults", "http500=2"], {}, /Cannot parse fault "http500=2"/],
    [
      "zero slots",
      ["--slots", "0"],
      {},
      /Cannot use --slots "0": expected a whole number in 1-4096/,
    ],
    ["an unknown predictor", ["--predictor", "psychic"], {}, /Cannot create predictor "psychic"/],
    [
      "an unset key variable",
      ["--api-key-env", "DECIBENCH_UNSET_KEY"],
      {},
      /environment variable DECIBENCH_UNSET_KEY is not set/,
    ],
    [
      "an empty key variable",
      ["--api-key-env", "DECIBENCH_EMPTY_KEY"],
      { DECIBENCH_EMPTY_KEY: "" },
      /environment variable DECIBENCH_EMPTY_KEY is empty/,
    ],
  ];
  for (const [name, args, env, message] of cases) {
    await t.step(name, async () => {
      const { code, stdout, stderr } = await run(args, env);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, "");
      assert.match(stderr, message);
    });
  }
});

Deno.test("`deno task serve --help` lists the options and predictors", async () => {
  const { code, stdout } = await run(["--help"]);
  assert.equal(code, 0);
  for (
    const flag of [
      "--port",
      "--predictor",
      "--faults",
      "--seed",
      "--latency-ms",
      "--slots",
      "--api-key-env",
    ]
  ) {
    assert.ok(stdout.includes(flag), flag);
  }
  assert.match(stdout, /fitted, judge, oracle, prior, synthetic, uniform/);
});
