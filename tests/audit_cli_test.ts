import assert from "node:assert/strict";
import { join } from "node:path";

async function run(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("deno task audit runs workflows/audit.ts and writes audit.md, audit.jsonl, audit.json", async () => {
  const out = await Deno.makeTempDir();
  const { code, stdout } = await run("scripts/audit.ts", ["workflows/audit.ts", "--out", out]);
  assert.equal(code, 0);
  assert.match(stdout, /disagree\s+\d+/);
  assert.match(stdout, /syn-refund-injection\s+disagree/);
  for (const name of ["audit.md", "audit.jsonl", "audit.json"]) await Deno.stat(join(out, name));
  const lines = (await Deno.readTextFile(join(out, "audit.jsonl"))).trim().split("\n");
  assert.equal(lines.length, 17, "the recommended set: 17 of the 20 synthetic audits");
  // Resume: every judged verdict is a saved audit, nothing else is re-asked.
  const again = await run("scripts/audit.ts", ["workflows/audit.ts", "--resume", out]);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /\[saved audit\]/);
  assert.doesNotMatch(again.stderr, /asking/);
});

Deno.test("deno task audit refuses bad usage and credentialed judge URLs without echoing them", async (t) => {
  await t.step("bad --set", async () => {
    const { code, stderr } = await run("scripts/audit.ts", ["workflows/audit.ts", "--set", "most"]);
    assert.equal(code, 2);
    assert.match(stderr, /Cannot use --set "most": give recommended or all/);
  });
  await t.step("no workflow", async () => {
    assert.equal((await run("scripts/audit.ts", [])).code, 2);
  });
  await t.step("credentials in --base-url", async () => {
    const { code, stderr } = await run("scripts/audit.ts", [
      "workflows/audit.ts",
      "--base-url",
      "http://judge:hunter2-secret@127.0.0.1:9",
      "--out",
      await Deno.makeTempDir(),
    ]);
    assert.equal(code, 2);
    assert.match(stderr, /Cannot use the judge URL: it embeds credentials/);
    assert.doesNotMatch(stderr, /hunter2/);
  });
});

Deno.test("deno task sweep prints the chosen bar, held-out rates and the curve", async (t) => {
  const dir = await Deno.makeTempDir();
  await t.step("from a labels file", async () => {
    const labels = join(dir, "labels.jsonl");
    const lines = Array.from(
      { length: 60 },
      (_, i) =>
        JSON.stringify({
          id: `i${i}`,
          lane: i % 2 ? "odd" : "even",
          p_yes: (i % 20) / 20,
          label: i % 20 >= 12,
        }),
    );
    await Deno.writeTextFile(labels, lines.join("\n") + "\n");
    const { code, stdout } = await run("scripts/sweep.ts", ["--labels", labels, "--seed", "3"]);
    assert.equal(code, 0);
    assert.match(stdout, /^even\s+15\/15\s+\d\.\d\d/m);
    assert.match(stdout, /^\(overall\)\s+30\/30/m);
    assert.match(stdout, /FP ≤ \(95%\)/);
    assert.match(stdout, /curve: odd/);
    assert.match(stdout, /◀/);
  });
  await t.step("from a run directory", async () => {
    const run_ = join(dir, "run");
    await Deno.mkdir(run_);
    const record = (c: string, p: number, gold: string) =>
      JSON.stringify({
        case: c,
        workflow: "w",
        question: "q",
        type: "noul",
        predicted: { true: p, false: 1 - p },
        gold,
        error: null,
      });
    await Deno.writeTextFile(
      join(run_, "decisions.jsonl"),
      [record("a", 0.9, "true"), record("b", 0.2, "false"), record("c", 0.6, "true")].join("\n"),
    );
    const { code, stdout } = await run("scripts/sweep.ts", [run_, "--json"]);
    assert.equal(code, 0);
    const sweep = JSON.parse(stdout);
    assert.equal(sweep.lanes[0].lane, "w/q");
    assert.equal(sweep.lanes[0].curve.length, 101);
  });
  await t.step("usage", async () => {
    assert.equal((await run("scripts/sweep.ts", [])).code, 2);
    const missing = await run("scripts/sweep.ts", [join(dir, "nope")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no decisions\.jsonl/);
  });
});
