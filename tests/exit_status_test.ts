// End-to-end: commands whose work failed exit non-zero with a message — audits against a dead,
// wrong or failing judge, an empty transcript file, `live --probes N` with every probe failed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { freePort, runScript } from "./bench_cli_helpers.ts";

async function auditJson(dir: string): Promise<{ status: string; stopped?: string | null }> {
  return JSON.parse(await Deno.readTextFile(join(dir, "audit.json")));
}

async function auditLines(dir: string): Promise<number> {
  return (await Deno.readTextFile(join(dir, "audit.jsonl"))).split("\n").filter((l) => l).length;
}

Deno.test("audit against a dead judge stops after 3 calls without an answer and exits 1", async () => {
  const out = await Deno.makeTempDir();
  const r = await runScript("audit.ts", [
    "workflows/audit.ts",
    "--base-url",
    `http://127.0.0.1:${freePort()}`,
    "--out",
    out,
  ]);
  assert.equal(r.code, 1, r.stderr);
  const message = r.stderr.split("\n").filter((l) => l.startsWith("decibench:"));
  assert.equal(message.length, 1, r.stderr);
  assert.match(message[0]!, /Cannot reach the judge "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone"/);
  assert.match(message[0]!, /3 calls in a row/);
  assert.match(message[0]!, new RegExp(`--resume "${out}"`));
  assert.equal(await auditLines(out), 3, "stopped instead of failing all 17");
  const meta = await auditJson(out);
  assert.equal(meta.status, "incomplete");
  assert.match(String(meta.stopped), /Cannot reach the judge/);
  assert.match(await Deno.readTextFile(join(out, "audit.md")), /Stopped early: Cannot reach/);
});

Deno.test("audit against a web page stops after 3 answers and says what came back", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response("<!doctype html><title>Router login</title>", {
      headers: { "content-type": "text/html" },
    });
  });
  try {
    const out = await Deno.makeTempDir();
    const r = await runScript("audit.ts", [
      "workflows/audit.ts",
      "--base-url",
      `http://127.0.0.1:${server.addr.port}`,
      "--out",
      out,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /Cannot audit with "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone": its first 3 answers are not System One replies \(HTTP 200, content type "text\/html", body starts "<!doctype html><title>Router login<\/title>"\)/,
    );
    assert.equal(requests, 3);
    assert.equal((await auditJson(out)).status, "incomplete");
  } finally {
    await server.shutdown();
  }
});

Deno.test("audit whose judge answers malformed ends incomplete, exits 1 and names kind and example", async () => {
  await using judge = await startReferenceServer({
    predictor: "judge",
    faults: "missing_option=1",
  });
  const out = await Deno.makeTempDir();
  const r = await runScript("audit.ts", [
    "workflows/audit.ts",
    "--base-url",
    judge.url,
    "--out",
    out,
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(await auditLines(out), 17, "a judge that answers is asked about every item");
  assert.match(
    r.stderr,
    /^decibench: audit incomplete: 15 of 17 audits unavailable from the judge \(malformed 15\), e\.g\. Cannot accept the answers: .*; check the judge, then finish it with --resume ".*"$/m,
  );
  assert.equal((await auditJson(out)).status, "incomplete");
});

Deno.test("audit of an empty transcript file is refused with a message", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "empty.jsonl"), "\n");
  const r = await runScript("audit.ts", [
    "workflows/audit.ts",
    "--transcripts",
    join(dir, "empty.jsonl"),
    "--out",
    join(dir, "out"),
  ]);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /Cannot read transcripts ".*empty\.jsonl": the file holds no conversation/,
  );
  await assert.rejects(Deno.stat(join(dir, "out")), Deno.errors.NotFound);
});

Deno.test("audit with no item carrying a verdict for the set's checks is refused", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    join(dir, "t.jsonl"),
    JSON.stringify({
      id: "t1",
      messages: [{ role: "assistant", content: "Hello" }],
      verdicts: {},
    }) + "\n",
  );
  const r = await runScript("audit.ts", [
    "workflows/audit.ts",
    "--transcripts",
    join(dir, "t.jsonl"),
    "--out",
    join(dir, "out"),
  ]);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /nothing to audit: no item of ".*t\.jsonl" has a verdict for a check of set "recommended"/,
  );
});

Deno.test("live --probes N with every probe failed exits 1 with a message", async () => {
  const r = await runScript("live.ts", [
    "--base-url",
    `http://127.0.0.1:${freePort()}`,
    "--probes",
    "3",
    "--interval",
    "0",
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.lines.length, 3, "one line per probe");
  assert.match(
    r.stderr,
    /^decibench: Cannot monitor "http:\/\/127\.0\.0\.1:\d+\/v1\/systemone": none of the 3 probes got an answer \(last: network: .*Connection refused/m,
  );
});
