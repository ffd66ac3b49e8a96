// `deno task bench --resume DIR` on its own: the run directory records the workflow file, base URL,
// model, parallel and case selection, so the "finish it with …" hint is a command that works when
// pasted; `--dry-run` shows what the resume would send; a run that never got an answer (a wrong
// --base-url) may be finished against the right endpoint.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import {
  events,
  readRunJson,
  ROOT,
  runScript,
  spawnScript,
  writeWorkflow,
} from "./bench_cli_helpers.ts";

const CASES = 60;

/** The command after "finish it with: " on stderr. */
function hint(stderr: string): string {
  const match = /finish it with: (deno task bench --resume .*)$/m.exec(stderr);
  assert.ok(match, `no resume hint in: ${stderr}`);
  return match[1] as string;
}

async function shell(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("bash", {
    args: ["-c", command],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("the hint of a run started with --out, --base-url, --model, --limit, --parallel and --db finishes it when pasted", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-resume-alone-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 20 });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/my run`; // a space: the hint must quote it
    const db = `${tmp}/index.db`;
    const run = spawnScript("bench.ts", [
      workflow,
      "--base-url",
      server.url,
      "--model",
      "another-model",
      "--limit",
      String(CASES),
      "--parallel",
      "2",
      "--out",
      dir,
      "--db",
      db,
      "--json",
    ]);
    const lines: string[] = [];
    let cases = 0;
    for await (const line of run.lines) {
      lines.push(line);
      if (JSON.parse(line).event === "case" && ++cases === 10) run.child.kill("SIGINT");
    }
    assert.equal((await run.child.status).code, 130);
    const stderr = await run.stderr;
    assert.ok(events(lines).some((e) => e.event === "summary"));
    const command = hint(stderr);
    assert.ok(command.includes(`--db ${db}`), command);

    await t.step("the printed command finishes the run", async () => {
      const resumed = await shell(command);
      assert.equal(resumed.code, 0, resumed.stderr);
      const final = await readRunJson(dir);
      assert.equal(final.status, "completed");
      const spec = final.spec as { model: string; cases: number; parallel: number };
      assert.equal(spec.model, "another-model");
      assert.equal(spec.cases, CASES);
      assert.equal(spec.parallel, 2);
      assert.equal(server.stats().decisionRequests, CASES, "each case asked once in all");
      const decisions = (await Deno.readTextFile(`${dir}/decisions.jsonl`)).trim().split("\n");
      assert.equal(decisions.length, CASES * 5);
    });

    await t.step("a flag given again that differs is refused, naming the difference", async () => {
      const other = await runScript("bench.ts", ["--resume", dir, "--model", "third", "--no-db"]);
      assert.equal(other.code, 2);
      assert.match(other.stderr, /model: recorded "another-model", now "third"/);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a run with no answered case, started against a failing server, is finished with the right one", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-resume-endpoint-" });
  await using server = await startReferenceServer({ predictor: "oracle" });
  await using failing = await startReferenceServer({ predictor: "oracle", faults: "http500=1" });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const failed = await runScript("bench.ts", [
      workflow,
      "--base-url",
      failing.url,
      "--limit",
      "12",
      "--out",
      dir,
      "--no-db",
    ]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /Cannot get answers from/);
    const command = hint(failed.stderr);
    assert.equal(command, `deno task bench --resume ${dir} --no-db`);
    const resumed = await runScript("bench.ts", [
      "--resume",
      dir,
      "--base-url",
      server.url,
      "--no-db",
    ]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const final = await readRunJson(dir);
    assert.equal(final.status, "completed");
    assert.equal((final.spec as { endpoint: string }).endpoint, `${server.url}/v1/systemone`);
    assert.equal(server.stats().decisionRequests, 12);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`bench --resume DIR --dry-run` prints only the requests the resume would send, to the run's endpoint", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-resume-dry-" });
  // Every other answer malformed: those cases have no recorded answer and would be asked again.
  await using server = await startReferenceServer({
    predictor: "oracle",
    faults: "malformed=0.5",
    seed: 3,
  });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const first = await runScript("bench.ts", [
      workflow,
      "--base-url",
      server.url,
      "--model",
      "another-model",
      "--limit",
      "16",
      "--out",
      dir,
      "--no-db",
      "--json",
    ]);
    assert.equal(first.code, 1, first.stderr);
    const failed = new Set(
      events(first.lines).filter((e) => e.event === "case" && e.error !== null).map((e) => e.case),
    );
    assert.ok(failed.size > 0 && failed.size < 16, `${failed.size} failed cases`);
    const sent = server.stats().decisionRequests;
    const dry = await runScript("bench.ts", ["--resume", dir, "--dry-run", "--json"]);
    assert.equal(dry.code, 0, dry.stderr);
    const requests = events(dry.lines);
    assert.deepEqual(new Set(requests.map((r) => r.case)), failed);
    for (const r of requests) {
      assert.equal(r.url, `${server.url}/v1/systemone`);
      assert.equal(JSON.parse(r.body as string).model, "another-model");
    }
    assert.equal(server.stats().decisionRequests, sent, "a dry run sends nothing");
    // The first command repeated with --resume (its --out included) is accepted too.
    const repeated = await runScript("bench.ts", [
      workflow,
      "--base-url",
      server.url,
      "--model",
      "another-model",
      "--limit",
      "16",
      "--out",
      `${dir}/`,
      "--resume",
      dir,
      "--dry-run",
      "--json",
    ]);
    assert.equal(repeated.code, 0, repeated.stderr);
    assert.equal(events(repeated.lines).length, failed.size);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
