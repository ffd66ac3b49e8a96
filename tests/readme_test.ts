// The README against the code: the fields, columns, events, key variables, shapes, flags and path
// rules it lists are the ones the code has.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DecisionRecordSchema } from "../lib/record/schemas.ts";
import { openIndex } from "../lib/record/mod.ts";
import { loadWorkflow } from "../lib/workflow/mod.ts";
import { events, freePort, ROOT, runScript } from "./bench_cli_helpers.ts";

const README = await Deno.readTextFile(join(ROOT, "README.md"));

/** The paragraph (or list item) of the README that starts with `start`. */
function paragraph(start: string): string {
  const at = README.indexOf(start);
  assert.ok(at >= 0, `README has "${start}"`);
  const end = README.slice(at).search(/\n\s*\n|\n- /);
  return README.slice(at, end < 0 ? undefined : at + end);
}

/** Names written as code (`name`) in a piece of the README. */
function codeNames(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

Deno.test("README lists every decisions.jsonl field", () => {
  const listed = codeNames(paragraph("- `decisions.jsonl` — one line per decision"));
  for (const field of Object.keys(DecisionRecordSchema.shape)) {
    assert.ok(listed.has(field), `decisions.jsonl field "${field}" is not in the README`);
  }
});

Deno.test("README lists every column of the SQLite index's tables", () => {
  const listed = codeNames(paragraph("Tables: `runs`"));
  const index = openIndex(":memory:");
  try {
    for (const table of ["runs", "decisions"]) {
      const columns = index.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      for (const { name } of columns) {
        assert.ok(listed.has(name), `column ${table}.${name} is not in the README`);
      }
    }
  } finally {
    index.close();
  }
});

Deno.test("README's --json event list has every event a run that stops early prints", async () => {
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    `http://127.0.0.1:${freePort()}`,
    "--limit",
    "6",
    "--out",
    await Deno.makeTempDir(),
    "--no-db",
    "--json",
  ]);
  const names = new Set(events(r.lines).map((e) => e.event));
  assert.deepEqual([...names].sort(), ["case", "fatal", "start", "summary"]);
  const line = README.split("\n").find((l) => l.includes("one JSON event per line")) ?? "";
  const listed = /\(([^)]*)\)/.exec(line)?.[1]?.split(/,\s*/) ?? [];
  for (const name of names) assert.ok(listed.includes(name), `--json event "${name}": ${line}`);
});

Deno.test("README's preset table names each preset's key variable and whether it is required", async () => {
  for await (const entry of Deno.readDir(join(ROOT, "workflows"))) {
    if (!entry.name.endsWith(".ts") || entry.name === "audit.ts") continue;
    const workflow = await loadWorkflow(join(ROOT, "workflows", entry.name));
    const endpoints = workflow.endpoint ? [workflow.endpoint] : workflow.endpoints ?? [];
    const row = README.split("\n").find((l) =>
      l.startsWith("| ") && l.includes(`\`${entry.name}\``)
    );
    assert.ok(row, `no preset row for ${entry.name}`);
    for (const endpoint of endpoints) {
      if (endpoint.apiKeyEnv === undefined) {
        assert.match(row, /\| none +\|/, row);
        continue;
      }
      assert.ok(row.includes(`\`${endpoint.apiKeyEnv}\``), `${entry.name}: ${row}`);
      assert.equal(row.includes("refused before anything is sent"), endpoint.apiKeyRequired, row);
    }
  }
});

Deno.test("README gives decisionGate's item shape as GateItem declares it", async () => {
  const source = await Deno.readTextFile(join(ROOT, "lib/audit/gate.ts"));
  const body = /export interface GateItem \{([\s\S]*?)\n\}/.exec(source)?.[1] ?? "";
  const fields = [...body.matchAll(/^ {2}(\w+)(\?)?:/gm)].map((m) => `${m[1]}${m[2] ?? ""}`);
  assert.deepEqual(fields, ["id", "state", "instructions", "criteria?"]);
  assert.ok(README.includes(`\`{${fields.join(", ")}}\``), "README states the item shape");
});

Deno.test("sweep prints the curve at 0.1 steps, every bar with --curve, as README says", async () => {
  const dir = await Deno.makeTempDir();
  const labels = join(dir, "labels.jsonl");
  const lines = Array.from(
    { length: 40 },
    (_, i) =>
      JSON.stringify({ id: `i${i}`, lane: "one", p_yes: (i % 20) / 20, label: i % 20 >= 12 }),
  );
  await Deno.writeTextFile(labels, lines.join("\n") + "\n");
  const bars = async (args: string[]) => {
    const r = await runScript("sweep.ts", ["--labels", labels, ...args]);
    assert.equal(r.code, 0, r.stderr);
    const at = r.lines.findIndex((l) => l.startsWith("curve: one"));
    const rest = r.lines.slice(at + 1);
    const next = rest.findIndex((l) => l.startsWith("curve:"));
    return rest.slice(0, next < 0 ? undefined : next).filter((l) => /^\d\.\d\d/.test(l)).length;
  };
  assert.ok((await bars([])) <= 12);
  assert.equal(await bars(["--curve"]), 101);
  assert.match(README, /`--curve` prints every bar\s+in steps of 0\.01/);
});

Deno.test("README says how the notebooks pick the newest complete run, as their code does", async () => {
  const notebook = JSON.parse(await Deno.readTextFile(join(ROOT, "notebooks/per_lane.ipynb")));
  const code = notebook.cells.map((c: { source: string[] }) => c.source.join("")).join("\n");
  assert.match(
    code,
    /run\.status === "completed" && run\.spec\?\.split === "test" && run\.spec\?\.cases === 400/,
  );
  const text = paragraph("Deno Jupyter notebooks in `notebooks/`").replace(/\s+/g, " ");
  for (
    const rule of ["status `completed`", "the test split", "all 400 cases", "latest `started_at`"]
  ) {
    assert.ok(text.includes(rule), `README: ${rule}`);
  }
});

Deno.test("audit --transcripts is resolved from the working directory, as README says", async () => {
  const dir = await Deno.makeTempDir();
  const out = join(dir, "out");
  // A path relative to the repository root (the working directory), not to workflows/.
  const r = await runScript("audit.ts", [
    "workflows/audit.ts",
    "--transcripts",
    "workflows/fixtures/audit_transcripts.jsonl",
    "--out",
    out,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const meta = JSON.parse(await Deno.readTextFile(join(out, "audit.json")));
  assert.equal(meta.transcripts, "workflows/fixtures/audit_transcripts.jsonl");
  const text = paragraph("A workflow's `audits` field").replace(/\s+/g, " ");
  assert.match(
    text,
    /`--transcripts FILE` replaces it and is resolved relative to the current directory/,
  );
  assert.match(text, /resolved relative to the workflow file's folder/);
});
