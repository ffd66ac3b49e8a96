// `deno task policy` over a labelled run of the synthetic predictor, and `deno task gate --policy`
// on fresh cases: real subprocesses, the embedded reference server, files in a temp dir.
import assert from "node:assert/strict";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { runScript } from "./bench_cli_helpers.ts";

/** A question set CSV: lanes a and b, `ok` yes/no (every 9th blank), `topic` a choice, `note` unlabelled. */
function csv(prefix: string, n: number): string {
  const rows = ["id,lane,text,ok,topic"];
  for (let i = 0; i < n; i++) {
    const ok = i % 9 === 8 ? "" : (i * 7919) % 5 < 2 ? "yes" : "no";
    rows.push(
      `${prefix}${i},${i % 2 ? "a" : "b"},${prefix} item ${i},${ok},${["x", "y", "z"][i % 3]}`,
    );
  }
  return rows.join("\n") + "\n";
}

function workflow(path: string, instructions = "Is this item fine?"): string {
  return JSON.stringify({
    name: "items",
    endpoint: {
      baseUrl: "http://127.0.0.1:9",
      reference: { predictor: "synthetic", skill: 1, temperature: 0.5, seed: 1 },
    },
    dataset: { path, id: "id", state: ["text"], lane: "lane" },
    questions: {
      ok: { type: "noul", instructions, gold: "ok" },
      topic: { type: "choice", instructions: "Which?", criteria: ["x", "y", "z"], gold: "topic" },
      note: { type: "noul", instructions: "Noted?" },
    },
  });
}

Deno.test("`deno task policy` chooses lane bars on a labelled run and `gate --policy` applies them to fresh cases", async (t) => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "items.csv"), csv("i", 1200));
  await Deno.writeTextFile(join(dir, "fresh.csv"), csv("f", 400));
  await Deno.writeTextFile(join(dir, "items.json"), workflow(join(dir, "items.csv")));
  await Deno.writeTextFile(join(dir, "fresh.json"), workflow(join(dir, "fresh.csv")));
  await Deno.writeTextFile(join(dir, "other.json"), workflow(join(dir, "fresh.csv"), "Urgent?"));
  const run = join(dir, "run");
  const bench = await runScript("bench.ts", [
    join(dir, "items.json"),
    "--out",
    run,
    "--no-db",
    "--json",
  ]);
  assert.equal(bench.code, 0, bench.stderr);
  const policyFile = join(dir, "policy.json");

  await t.step("writes policy.json with a bar per lane", async () => {
    const out = await runScript("policy.ts", [
      run,
      "--question",
      "ok",
      "--out",
      policyFile,
      "--seed",
      "2",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const policy = JSON.parse(await Deno.readTextFile(policyFile));
    assert.deepEqual(Object.keys(policy.lanes), ["a", "b"]);
    assert.equal(policy.objective, "false-pass");
    assert.equal(policy.calibration.method, "temperature");
    assert.ok(
      policy.calibration.heldout.ece.after.value < policy.calibration.heldout.ece.before.value,
    );
    assert.equal(policy.split.unlabelled, 133);
    assert.ok(policy.lanes.a.certified && policy.lanes.b.certified, JSON.stringify(policy.lanes));
    assert.match(out.lines.join("\n"), /Bonferroni over 2 lanes/);
  });

  await t.step("selective-risk on a choice question and cost on a yes/no question", async () => {
    const selective = await runScript("policy.ts", [
      run,
      "--question",
      "topic",
      "--objective",
      "selective-risk",
      "--alpha",
      "0.3",
      "--out",
      join(dir, "topic.json"),
    ]);
    assert.equal(selective.code, 0, selective.stderr);
    const topic = JSON.parse(await Deno.readTextFile(join(dir, "topic.json")));
    assert.deepEqual(topic.options, ["x", "y", "z"]);
    assert.equal(topic.objective, "selective-risk");
    for (const lane of Object.values(topic.lanes) as { heldout: { coverage: number } }[]) {
      assert.ok(lane.heldout.coverage >= 0 && lane.heldout.coverage <= 1);
    }
    await Deno.writeTextFile(
      join(dir, "costs.yaml"),
      '"true": { "true": 0, "false": 4, escalate: 1 }\n"false": { "true": 10, "false": 0, escalate: 1 }\n',
    );
    const cost = await runScript("policy.ts", [
      run,
      "--question",
      "ok",
      "--objective",
      "cost",
      "--costs",
      join(dir, "costs.yaml"),
      "--out",
      join(dir, "cost.json"),
    ]);
    assert.equal(cost.code, 0, cost.stderr);
    const policy = JSON.parse(await Deno.readTextFile(join(dir, "cost.json")));
    assert.deepEqual(policy.costs.false, { true: 10, false: 0, escalate: 1 });
    assert.equal(typeof policy.lanes.a.heldout.realisedCost.value, "number");
    assert.match(cost.lines.join("\n"), /No guarantee/);
  });

  await t.step("refuses bad input with one message and exit 2", async (s) => {
    await Deno.writeTextFile(
      join(dir, "costs.json"),
      JSON.stringify({ true: { true: 0, false: 1, escalate: 0.1 } }),
    );
    const cases: [string, string[], RegExp][] = [
      [
        "no labels for the question",
        ["--question", "note"],
        /question "note" has no labelled answers/,
      ],
      [
        "an unknown question",
        ["--question", "nope"],
        /no decision asks question "nope" \(questions: ok, topic, note\)/,
      ],
      [
        "alpha outside (0, 1)",
        ["--question", "ok", "--alpha", "1.5"],
        /Cannot use --alpha "1.5": give a number in \(0, 1\)/,
      ],
      ["delta outside (0, 1)", ["--question", "ok", "--delta", "0"], /Cannot use --delta "0"/],
      [
        "a cost matrix missing an option",
        ["--question", "ok", "--objective", "cost", "--costs", join(dir, "costs.json")],
        /gold option "false" has no row/,
      ],
      ["platt on a choice question", [
        "--question",
        "topic",
        "--objective",
        "selective-risk",
        "--calibrate",
        "platt",
      ], /fits yes\/no questions only/],
    ];
    for (const [name, args, message] of cases) {
      await s.step(name, async () => {
        const out = await runScript("policy.ts", [run, ...args, "--out", join(dir, "bad.json")]);
        assert.equal(out.code, 2, out.stderr);
        assert.match(out.stderr, message);
        assert.equal(
          out.stderr.trim().split("\n").filter((l) => l.startsWith("decibench:")).length,
          1,
        );
      });
    }
  });

  await t.step("gate --policy decides fresh cases and records both probabilities", async () => {
    const out = await runScript("gate.ts", [
      join(dir, "fresh.json"),
      "--policy",
      policyFile,
      "--out",
      join(dir, "gate"),
      "--json",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const lines = (await Deno.readTextFile(join(dir, "gate", "gate.jsonl"))).trim().split("\n").map(
      (l) => JSON.parse(l),
    );
    assert.equal(lines.length, 400);
    const sha = await crypto.subtle.digest("SHA-256", await Deno.readFile(policyFile));
    const hex = [...new Uint8Array(sha)].map((b) => b.toString(16).padStart(2, "0")).join("");
    for (const line of lines) {
      assert.ok(["pass", "fail", "escalate"].includes(line.verdict));
      assert.equal(line.policy_sha256, hex);
      assert.equal(typeof line.p_calibrated, "number");
      assert.notEqual(line.p_calibrated, line.p_yes, "temperature changes P(yes)");
    }
    const run = JSON.parse(await Deno.readTextFile(join(dir, "gate", "gate.json")));
    assert.equal(run.policy.new_cases, true);
    const check = out.lines.map((l) => JSON.parse(l)).find((e) => e.event === "policy_check");
    assert.deepEqual(check.broken, []);
  });

  await t.step("gate exits 1 naming the lane where the policy no longer holds", async () => {
    const policy = JSON.parse(await Deno.readTextFile(policyFile));
    policy.lanes.a.threshold = 0; // passes every case: half the gold "no" become false passes
    await Deno.writeTextFile(join(dir, "loose.json"), JSON.stringify(policy));
    const out = await runScript("gate.ts", [
      join(dir, "fresh.json"),
      "--policy",
      join(dir, "loose.json"),
      "--out",
      join(dir, "gate-loose"),
      "--junit",
      join(dir, "gate-loose.xml"),
    ]);
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /the policy no longer holds on lane a:/);
    assert.doesNotMatch(out.stderr, /lane b:/);
    // One JUnit test case per policy lane: a failed, b passed.
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
      await Deno.readTextFile(join(dir, "gate-loose.xml")),
    );
    const cases = ([xml.testsuites.testsuite.testcase].flat() as Record<string, unknown>[])
      .filter((c) => c.classname === "policy.lanes");
    assert.deepEqual(cases.map((c) => c.name), ["policy ok lane a", "policy ok lane b"]);
    assert.match(
      String((cases[0]?.failure as { message: string }).message),
      /false passes among gold "no" [\d.]+ \(\d+\/\d+\).*: no longer holds$/,
    );
    assert.equal(cases[1]?.failure, undefined);
    assert.equal(cases[1]?.skipped, undefined);
  });

  await t.step("gate refuses a policy for another question definition before asking", async () => {
    const out = await runScript("gate.ts", [
      join(dir, "other.json"),
      "--policy",
      policyFile,
      "--base-url",
      "http://127.0.0.1:9",
      "--out",
      join(dir, "gate-other"),
    ]);
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /question "ok" is defined differently here/);
    await assert.rejects(Deno.stat(join(dir, "gate-other")), Deno.errors.NotFound);
  });
  await Deno.remove(dir, { recursive: true });
});
