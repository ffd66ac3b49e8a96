// The `decibench` command: `cli.ts` dispatches to the commands the tasks run, and installed with
// `deno install` it runs from a folder outside the clone, writing runs there.
import assert from "node:assert/strict";
import { join } from "node:path";
import { CLI_COMMANDS } from "../lib/cli/dispatch.ts";
import { ROOT } from "./bench_cli_helpers.ts";

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[], cwd: string): Promise<Output> {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", DECIBENCH_BUNDLE: "off" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

function cli(args: string[]): Promise<Output> {
  return run(Deno.execPath(), ["run", "-A", "cli.ts", ...args], ROOT);
}

Deno.test("`decibench --help` lists every command, and each command is the deno task of its name", async () => {
  const r = await cli(["--help"]);
  assert.equal(r.code, 0, r.stderr);
  for (const c of CLI_COMMANDS) assert.match(r.stdout, new RegExp(`^  ${c.name} +\\S`, "m"));
  const tasks = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks;
  for (const c of CLI_COMMANDS) {
    assert.equal(tasks[c.name], `deno run -A ${c.script}`, c.name);
  }
});

Deno.test("`decibench` refuses an unknown command with exit 2 and the command it most likely meant", async () => {
  const r = await cli(["benhc", "--limit", "3"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Cannot run "benhc": no such command; did you mean "bench"\?/);
  const none = await cli([]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Usage: decibench <command>/);
});

Deno.test("`decibench <command> --help` is the command's own help, naming it as decibench types it", async () => {
  const r = await cli(["compare", "--help"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Usage: decibench compare /);
});

const CSV = `id,lane,text,label
t1,billing,"{""msg"": ""refund please""}",yes
t2,billing,"{""msg"": ""where is my parcel""}",no
t3,shipping,"{""msg"": ""late delivery""}",no
t4,shipping,"{""msg"": ""charge me twice""}",yes
`;

const YAML = (schema: string) =>
  `$schema: ${schema}
name: tickets
endpoint:
  reference: { predictor: uniform }
dataset: { path: tickets.csv, id: id, state: text, lane: lane }
questions:
  refund:
    type: noul
    instructions: The customer asks for money back.
    gold: label
`;

const TS = `import { defineWorkflow } from "decibench/workflow";
export default defineWorkflow({
  name: "tickets-ts",
  endpoint: { reference: { predictor: "uniform" } },
  dataset: { path: "tickets.csv", id: "id", state: "text", lane: "lane" },
  questions: {
    refund: { type: "noul", instructions: "The customer asks for money back.", gold: "label" },
  },
});
`;

Deno.test("installed with deno install, `decibench bench` runs a YAML or TypeScript workflow from a folder outside the clone", async (t) => {
  const installRoot = await Deno.makeTempDir({ prefix: "decibench-root-" });
  const work = await Deno.makeTempDir({ prefix: "decibench-work-" });
  try {
    const installed = await run(Deno.execPath(), [
      "install",
      "-g",
      "-A",
      "-n",
      "decibench",
      "--root",
      installRoot,
      "--config",
      join(ROOT, "deno.json"),
      join(ROOT, "cli.ts"),
    ], work);
    assert.equal(installed.code, 0, installed.stderr);
    const decibench = join(
      installRoot,
      "bin",
      Deno.build.os === "windows" ? "decibench.cmd" : "decibench",
    );
    await Deno.writeTextFile(join(work, "tickets.csv"), CSV);
    await Deno.writeTextFile(
      join(work, "tickets.yaml"),
      YAML(join(ROOT, "schemas", "workflow.schema.json")),
    );

    await t.step("a YAML workflow over a CSV question set: the run lands in ./runs/", async () => {
      const r = await run(decibench, ["bench", "tickets.yaml", "--limit", "3"], work);
      assert.equal(r.code, 0, r.stderr);
      const runs = [...Deno.readDirSync(join(work, "runs"))].filter((e) => e.isDirectory);
      assert.equal(runs.length, 1);
      const record = JSON.parse(
        await Deno.readTextFile(join(work, "runs", runs[0]!.name, "run.json")),
      );
      assert.equal(record.status, "completed");
      assert.equal(record.spec.cases, 3);
      assert.ok(Deno.statSync(join(work, "runs", "decibench.db")).isFile, "the index in ./runs");
    });

    await t.step("a TypeScript workflow importing decibench/workflow", async () => {
      await Deno.writeTextFile(join(work, "tickets.ts"), TS);
      const r = await run(decibench, ["bench", "tickets.ts", "--limit", "1", "--dry-run"], work);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/systemone$/m);
      assert.match(r.stdout, /"refund"/);
    });

    await t.step("the built-in reference workflow, found in the package", async () => {
      const r = await run(decibench, ["bench", "--limit", "2", "--dry-run"], work);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /dry run: 2 requests printed/);
    });

    await t.step(
      "a YAML workflow with a bad field: exit 2, naming file, line and field",
      async () => {
        await Deno.writeTextFile(
          join(work, "bad.yaml"),
          "name: bad\nendpoint:\n  reference: { predictor: uniform }\n  timeoutMs: -5\n",
        );
        const r = await run(decibench, ["bench", "bad.yaml"], work);
        assert.equal(r.code, 2, r.stderr);
        assert.match(
          r.stderr,
          /Cannot load workflow "bad\.yaml": field "endpoint\.timeoutMs" \(line 4\)/,
        );
      },
    );
  } finally {
    await Deno.remove(installRoot, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});
