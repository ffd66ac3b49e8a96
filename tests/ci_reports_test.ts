// `bench --junit/--github` and `gate --junit/--github` end to end: real subprocesses on the
// tickets question set with the embedded reference server; the XML is read with an XML parser.
import assert from "node:assert/strict";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ROOT, runScript } from "./bench_cli_helpers.ts";

const TICKETS = join(ROOT, "examples/tickets/tickets.csv");

async function ticketsWorkflow(dir: string, thresholds: string): Promise<string> {
  const source = await Deno.readTextFile(join(ROOT, "examples/tickets/workflow.yaml"));
  const text = source
    .replace(/^\$schema:.*$/m, "")
    .replace(/path: tickets\.csv/, `path: ${JSON.stringify(TICKETS)}`)
    .replace(/^thresholds:[\s\S]*$/m, `thresholds:\n${thresholds}`);
  const path = join(dir, "tickets.yaml");
  await Deno.writeTextFile(path, `${text}cases: { limit: 300 }\nparallel: 4\n`);
  return path;
}

interface TestCase {
  "@_name": string;
  "@_classname": string;
  failure?: { "@_message": string };
}

function parseJUnit(xml: string) {
  assert.equal(XMLValidator.validate(xml), true);
  const doc = new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => name === "testsuite" || name === "testcase",
  }).parse(xml);
  const suites = doc.testsuites.testsuite as {
    "@_tests": string;
    "@_failures": string;
    testcase: TestCase[];
  }[];
  return { root: doc.testsuites, suites, cases: suites.flatMap((s) => s.testcase) };
}

Deno.test("bench --junit writes one test case per threshold, failures with value, bound and limit", async () => {
  const dir = await Deno.makeTempDir();
  const file = await ticketsWorkflow(
    dir,
    [
      `  - { metric: accuracy, op: ">=", limit: 0.1 }`,
      `  - { metric: accuracy, question: urgent, op: ">=", limit: 0.9, bound: lower }`,
      `  - { metric: accuracy, lane: chat, op: ">=", limit: 0.05, bound: lower }`,
      `  - { metric: brier, lane: email, question: topic, op: "<=", limit: 0.1 }`,
    ].join("\n") + "\n",
  );
  const junit = join(dir, "out", "junit.xml");
  await Deno.mkdir(join(dir, "out"));
  const summary = join(dir, "step_summary.md");
  await Deno.writeTextFile(summary, "earlier step\n");
  const r = await runScript(
    "bench.ts",
    [file, "--no-db", "--out", join(dir, "run"), "--junit", junit],
    { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
  );
  assert.equal(r.code, 1, r.stderr);
  const { root, suites, cases } = parseJUnit(await Deno.readTextFile(junit));
  assert.equal(root["@_tests"], "4");
  assert.equal(root["@_failures"], "2");
  assert.equal(suites.length, 1);
  assert.equal(cases.length, 4);
  const failed = cases.filter((c) => c.failure !== undefined);
  assert.deepEqual(failed.map((c) => c["@_name"]), [
    "accuracy >= 0.9 (lower bound, question urgent)",
    "brier <= 0.1 (lane email, question topic)",
  ]);
  assert.match(
    failed[0]!.failure!["@_message"],
    /^accuracy on question urgent: lower bound 0\.\d+ < limit 0\.9 \(estimate 0\.\d+\): failed$/,
  );
  assert.match(failed[1]!.failure!["@_message"], /estimate 0\.\d+ > limit 0\.1: failed$/);
  // GitHub output (on because GITHUB_ACTIONS=true): annotations on stdout, the summary appended.
  assert.equal(r.lines.filter((l) => l.startsWith("::error ")).length, 2);
  assert.equal(r.lines.filter((l) => l.startsWith("::notice ")).length, 2);
  const md = await Deno.readTextFile(summary);
  assert.ok(md.startsWith("earlier step\n### decibench bench tickets: completed"), md);
  assert.equal(md.split("\n").filter((l) => l.startsWith("| ❌ |")).length, 2);
  assert.match(md, /2 of 4 thresholds passed/);
});

Deno.test("gate --junit writes one test case per lane, a lane with undecided cases failing", async () => {
  const dir = await Deno.makeTempDir();
  const file = await ticketsWorkflow(dir, "  []\n");
  // Malformed answers on a seeded tenth of the requests leave cases undecided.
  const source = await Deno.readTextFile(file);
  await Deno.writeTextFile(
    file,
    source.replace(
      "reference: { predictor: uniform }",
      `reference: { predictor: uniform, faults: "malformed=0.1", seed: 3 }`,
    ),
  );
  const junit = join(dir, "gate.xml");
  const summary = join(dir, "summary.md");
  const r = await runScript("gate.ts", [
    file,
    "--question",
    "urgent",
    "--out",
    join(dir, "gate"),
    "--junit",
    junit,
    "--github",
  ], { GITHUB_STEP_SUMMARY: summary });
  assert.equal(r.code, 1, r.stderr);
  const { root, cases } = parseJUnit(await Deno.readTextFile(junit));
  const gate = JSON.parse(await Deno.readTextFile(join(dir, "gate", "gate.json")));
  assert.ok(gate.undecided > 0);
  assert.equal(cases.length, gate.lanes.length);
  assert.ok(cases.length >= 3);
  assert.ok(cases.every((c) => c["@_classname"] === "gate.lanes"));
  const undecided = gate.lanes.filter((l: { undecided: number }) => l.undecided > 0).length;
  assert.equal(Number(root["@_failures"]), undecided);
  const failure = cases.find((c) => c["@_name"] === "lane (overall)")?.failure?.["@_message"];
  assert.match(
    failure ?? "",
    new RegExp(
      `^lane \\(overall\\): 300 cases at the bar P\\(yes\\) >= 0\\.7: .*${gate.undecided} undecided \\(limit 0\\); agreement `,
    ),
  );
  assert.match(await Deno.readTextFile(summary), /### decibench gate tickets · question urgent/);
});
