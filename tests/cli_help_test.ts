// One argument layer for every command: `--help` lists every option, a near miss is answered
// with the option meant, and a negative or non-numeric value is named.
import assert from "node:assert/strict";
import { runScript } from "./bench_cli_helpers.ts";

const OPTIONS: Record<string, string[]> = {
  "bench.ts": [
    "--base-url URL",
    "--model M",
    "--parallel N",
    "--limit N",
    "--out DIR",
    "--resume DIR",
    "--db PATH",
    "--no-db",
    "--dry-run",
    "--json",
  ],
  "compare.ts": ["--out PATH", "--seed N", "--json"],
  "live.ts": [
    "--base-url URL",
    "--interval SECONDS",
    "--metrics-url URL|off",
    "--seed N",
    "--probes N",
  ],
  "audit.ts": [
    "--base-url URL",
    "--model M",
    "--out DIR",
    "--set SET",
    "--resume DIR",
    "--transcripts FILE",
    "--json",
  ],
  "sweep.ts": ["--labels FILE", "--seed N", "--curve", "--markdown", "--json"],
  "serve.ts": ["--port N", "--hostname H", "--predictor NAME", "--faults SPEC", "--seed N"],
  "view.ts": ["--port N", "--hostname H", "--db PATH", "--runs DIR", "--open"],
  "export.ts": [
    "--format FORMAT",
    "--out PATH",
    "--trained-on-train yes|no",
    "--model-id DEVELOPER/MODEL",
    "--source-url URL",
  ],
  "train.ts": ["--check", "--dir PATH"],
  "perf.ts": ["--quick", "--rounds N", "--only SECTION,…", "--sizes 10k,100k,…", "--keep DIR"],
  "policy.ts": ["--question NAME", "--alpha A", "--delta D", "--out FILE"],
  "cache.ts": ["--older-than AGE", "--cache-dir DIR", "--json"],
  "vendor.ts": [
    "--from PATH",
    "--train-from PATH",
    "--out DIR",
    "--new-revision",
    "--revision REV",
  ],
};

Deno.test("every command's `--help` lists each of its options and exit statuses where it has them", async (t) => {
  for (const [script, options] of Object.entries(OPTIONS)) {
    await t.step(script, async () => {
      const r = await runScript(script, ["--help"]);
      assert.equal(r.code, 0, r.stderr);
      const text = r.lines.join("\n");
      assert.match(text, /^Usage: deno task \w+/);
      for (const option of options) assert.ok(text.includes(option), `${script}: ${option}`);
      assert.ok(text.includes("-h, --help"));
    });
  }
});

Deno.test("a mistyped flag is answered with the option meant, in every command", async (t) => {
  const table: [string, string[], RegExp][] = [
    [
      "bench.ts",
      ["--paralel", "4"],
      /Cannot use "--paralel": no such option; did you mean --parallel\?/,
    ],
    ["bench.ts", ["--dryrun"], /did you mean --dry-run\?/],
    ["compare.ts", ["a", "b", "--sed", "1"], /did you mean --seed\?/],
    ["live.ts", ["--probe", "3"], /did you mean --probes\?/],
    ["audit.ts", ["workflows/audit.ts", "--transcript", "x"], /did you mean --transcripts\?/],
    ["sweep.ts", ["--label", "x"], /did you mean --labels\?/],
    ["serve.ts", ["--predicter", "oracle"], /did you mean --predictor\?/],
    ["bench.ts", ["--zzz"], /Cannot use "--zzz": no such option; run deno task bench --help/],
  ];
  for (const [script, args, pattern] of table) {
    await t.step(`${script} ${args.join(" ")}`, async () => {
      const r = await runScript(script, args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /To specify a positional argument/);
    });
  }
});

Deno.test("negative, non-numeric and missing values are named", async (t) => {
  const table: [string, string[], RegExp][] = [
    [
      "bench.ts",
      ["--parallel", "-1"],
      /Cannot use --parallel "-1": it is negative; give a whole number ≥ 1/,
    ],
    [
      "bench.ts",
      ["--limit", "ten"],
      /Cannot use --limit "ten": it is not a number; give a whole number ≥ 1/,
    ],
    ["bench.ts", ["--limit", "2.5"], /Cannot use --limit "2\.5": it is not a whole number/],
    [
      "bench.ts",
      ["--parallel", "0"],
      /Cannot use --parallel "0": it is too small; give a whole number ≥ 1/,
    ],
    ["bench.ts", ["--model"], /Cannot use --model: it needs a value/],
    ["bench.ts", ["--base-url", "--json"], /Cannot use --base-url: it needs a value/],
    ["bench.ts", ["--json=yes"], /Cannot use "--json=yes": --json takes no value/],
    [
      "live.ts",
      ["--interval", "-0.5"],
      /Cannot use --interval "-0\.5": it is negative; give a number ≥ 0/,
    ],
    ["compare.ts", ["a", "b", "--seed", "-3"], /Cannot use --seed "-3": it is negative/],
  ];
  for (const [script, args, pattern] of table) {
    await t.step(`${script} ${args.join(" ")}`, async () => {
      const r = await runScript(script, args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /ambiguous/);
    });
  }
});

Deno.test("`deno task sweep` says what it needs, and refuses an id repeated in a lane of --labels", async (t) => {
  await t.step("no arguments", async () => {
    const r = await runScript("sweep.ts", []);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /Cannot sweep: give a run directory \(deno task sweep runs\/<run-id>\) or a labels file \(deno task sweep --labels FILE\)/,
    );
  });
  await t.step("a repeated id", async () => {
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      await Deno.writeTextFile(
        file,
        [
          { id: "a", lane: "refund", p_yes: 0.9, label: true },
          { id: "b", lane: "refund", p_yes: 0.2, label: false },
          { id: "a", lane: "other", p_yes: 0.4, label: false },
          { id: "a", lane: "refund", p_yes: 0.1, label: false },
        ].map((l) => JSON.stringify(l)).join("\n") + "\n",
      );
      const r = await runScript("sweep.ts", ["--labels", file]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /line 4 repeats id "a" of lane "refund" \(first on line 1\)/);
    } finally {
      await Deno.remove(file);
    }
  });
});
