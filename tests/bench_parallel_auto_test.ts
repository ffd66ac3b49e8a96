/**
 * `--parallel auto` as a user meets it: against `deno task serve --slots 3` the run chooses 3 and
 * says so; against a server without `/props` it falls back to 4 and says so; a workflow's own
 * `parallel` is kept. The choice is recorded in `run.json` as `spec.parallel`.
 */
import assert from "node:assert/strict";
import { readRunJson, ROOT, runScript, startServe } from "./bench_cli_helpers.ts";
import { startReferenceServer } from "../lib/server/mod.ts";

async function workflowFile(dir: string, parallel?: number): Promise<string> {
  const path = `${dir}/auto.ts`;
  const line = parallel === undefined ? "" : `\n  parallel: ${parallel},`;
  await Deno.writeTextFile(
    path,
    `import { defineWorkflow } from "${ROOT}lib/workflow/define.ts";
export default defineWorkflow({
  name: "auto",
  endpoint: { baseUrl: "http://127.0.0.1:9", model: "decider" },${line}
});
`,
  );
  return path;
}

async function bench(workflow: string, url: string, out: string, extra: string[] = []) {
  return await runScript("bench.ts", [
    workflow,
    "--base-url",
    url,
    "--limit",
    "6",
    "--no-db",
    "--out",
    out,
    ...extra,
  ]);
}

Deno.test("`bench` with no parallel against `serve --slots 3` chooses 3 and says so", async () => {
  const dir = await Deno.makeTempDir();
  const server = await startServe(["--port", "0", "--slots", "3"]);
  try {
    const result = await bench(await workflowFile(dir), server.url, `${dir}/run`);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(
      result.stderr.includes(`parallel auto: 3 (3 slots reported by ${server.url}/props)`),
      result.stderr,
    );
    const run = await readRunJson(`${dir}/run`);
    assert.equal((run.spec as { parallel: number }).parallel, 3);
  } finally {
    server.child.kill("SIGTERM");
    await server.child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`bench --parallel auto` against a server without /props falls back to 4 and says so", async () => {
  const dir = await Deno.makeTempDir();
  // A System One server that knows nothing but /v1/systemone: a proxy in front of the reference
  // server that answers 404 for every other path, as servers older than llama.cpp's /props do.
  await using upstream = await startReferenceServer();
  await using proxy = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path !== "/v1/systemone") return new Response("Not Found", { status: 404 });
    return fetch(`${upstream.url}${path}`, {
      method: "POST",
      headers: request.headers,
      body: request.body,
    });
  });
  const url = `http://127.0.0.1:${proxy.addr.port}`;
  try {
    const result = await bench(await workflowFile(dir, 2), url, `${dir}/run`, [
      "--parallel",
      "auto",
      "--json",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(
      result.stderr.includes(
        `parallel auto: 4, the fallback (${url}/props answered HTTP 404, /slots answered HTTP 404)`,
      ),
      result.stderr,
    );
    const event = result.lines.map((l) => JSON.parse(l)).find((e) => e.event === "parallel");
    assert.deepEqual(
      { parallel: event?.parallel, source: event?.source },
      { parallel: 4, source: "fallback" },
    );
    const run = await readRunJson(`${dir}/run`);
    assert.equal((run.spec as { parallel: number }).parallel, 4);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a workflow's own `parallel` is kept: no probe, no message", async () => {
  const dir = await Deno.makeTempDir();
  const server = await startServe(["--port", "0", "--slots", "3"]);
  try {
    const result = await bench(await workflowFile(dir, 2), server.url, `${dir}/run`);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stderr.includes("parallel auto"), result.stderr);
    const run = await readRunJson(`${dir}/run`);
    assert.equal((run.spec as { parallel: number }).parallel, 2);
  } finally {
    server.child.kill("SIGTERM");
    await server.child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
