// End-to-end: a run with failed decisions shows why, by kind with counts and an example message,
// in the terminal summary, report.md and report.html; a run where nothing was answered says so.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";

Deno.test("bench shows errors by kind with counts and an example in the terminal and both reports", async () => {
  const key = "sk-errors-test-0c4f2a";
  await using server = await startReferenceServer({
    predictor: "uniform",
    faults: "malformed=0.2,http500=0.5",
    seed: 3,
    apiKey: key,
  });
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--limit",
    "40",
    "--out",
    out,
    "--no-db",
  ], { LLAMA_API_KEY: key });
  assert.equal(r.code, 1, r.stderr);
  const stdout = r.lines.join("\n");
  assert.match(stdout, /^Errors by kind$/m);
  assert.match(stdout, /^kind +decisions +cases +example$/m);
  assert.match(
    stdout,
    /^malformed +\d+ +\d+ +Cannot accept the answers: reply: body is not valid JSON/m,
  );
  assert.match(
    stdout,
    /^unavailable +\d+ +\d+ +HTTP 500 from "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone"/m,
  );

  const md = await Deno.readTextFile(`${out}/report.md`);
  assert.match(md, /^## Errors by kind$/m);
  assert.match(md, /^\| kind \| decisions \| cases \| example \|$/m);
  assert.match(
    md,
    /^\| malformed \| \d+ \| \d+ \| Cannot accept the answers: reply: body is not valid JSON/m,
  );
  const html = await Deno.readTextFile(`${out}/report.html`);
  assert.match(html, /<h2>Errors by kind<\/h2>/);
  assert.match(
    html,
    /<td>unavailable<\/td><td class="n">\d+<\/td><td class="n">\d+<\/td><td>HTTP 500 from/,
  );
  for (const text of [stdout, r.stderr, md, html]) assert.ok(!text.includes(key));
});

Deno.test("a run where nothing was answered says why at the top of its reports, not with empty charts", async () => {
  await using failing = await startReferenceServer({ predictor: "uniform", faults: "http500=1" });
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    failing.url,
    "--limit",
    "4",
    "--out",
    out,
    "--no-db",
  ]);
  assert.equal(r.code, 1);
  const md = await Deno.readTextFile(`${out}/report.md`);
  const errorsAt = md.indexOf("## Errors by kind");
  assert.ok(errorsAt > 0 && errorsAt < md.indexOf("## Headline"), "errors come first");
  assert.match(
    md,
    /\| unavailable \| 20 \| 4 \| HTTP 500 from/,
  );
  assert.match(md, /No decision was answered/);
  const html = await Deno.readTextFile(`${out}/report.html`);
  assert.ok(html.indexOf("<h2>Errors by kind</h2>") < html.indexOf("<h2>Accuracy</h2>"));
  assert.match(html, /No decision was answered/);
  assert.equal((html.match(/<svg\b/g) ?? []).length, 0, "no empty charts");
});
