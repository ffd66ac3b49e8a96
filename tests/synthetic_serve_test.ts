// The synthetic predictor embedded in a workflow and served standalone (`deno task serve
// --predictor synthetic --workflow FILE`) answer the same cases with the same distributions.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runScript } from "./bench_cli_helpers.ts";

async function decisions(dir: string): Promise<Map<string, unknown>> {
  const lines = (await Deno.readTextFile(join(dir, "decisions.jsonl"))).trim().split("\n");
  return new Map(lines.map((line) => {
    const d = JSON.parse(line);
    return [`${d.case}/${d.question}`, d.predicted];
  }));
}

Deno.test("the synthetic predictor answers the same embedded and standalone, and serve refuses it without a workflow", async () => {
  const dir = await Deno.makeTempDir();
  const rows = ["id,lane,text,ok"];
  for (let i = 0; i < 60; i++) {
    rows.push(`c${i},${i % 2 ? "a" : "b"},item ${i},${i % 3 ? "yes" : ""}`);
  }
  await Deno.writeTextFile(join(dir, "items.csv"), rows.join("\n") + "\n");
  const workflow = join(dir, "items.json");
  await Deno.writeTextFile(
    workflow,
    JSON.stringify({
      name: "items",
      endpoint: {
        baseUrl: "http://127.0.0.1:9",
        reference: { predictor: "synthetic", skill: 2, temperature: 0.5, seed: 3 },
      },
      dataset: { path: join(dir, "items.csv"), id: "id", state: ["text"], lane: "lane" },
      questions: { ok: { type: "noul", instructions: "Fine?", gold: "ok" } },
    }),
  );
  const embedded = await runScript("bench.ts", [workflow, "--out", join(dir, "e"), "--no-db"]);
  assert.equal(embedded.code, 0, embedded.stderr);

  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "scripts/serve.ts",
      "--port",
      "0",
      "--predictor",
      "synthetic",
      "--workflow",
      workflow,
      "--skill",
      "2",
      "--temperature",
      "0.5",
      "--seed",
      "3",
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    first += value;
  }
  const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
  try {
    assert.ok(url, `serve printed no URL: ${first}`);
    assert.match(first, /predictor synthetic/);
    const standalone = await runScript("bench.ts", [
      workflow,
      "--base-url",
      url,
      "--out",
      join(dir, "s"),
      "--no-db",
    ]);
    assert.equal(standalone.code, 0, standalone.stderr);
  } finally {
    server.kill("SIGTERM");
    await server.status;
    reader.releaseLock();
    await server.stderr.cancel();
  }
  const a = await decisions(join(dir, "e"));
  const b = await decisions(join(dir, "s"));
  assert.equal(a.size, 60);
  assert.deepEqual(b, a);

  const refused = await runScript("serve.ts", ["--predictor", "synthetic", "--port", "0"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--workflow FILE is required/);
  await Deno.remove(dir, { recursive: true });
});
