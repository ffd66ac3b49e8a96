// README.md and docs/ against the code: the fields, columns, events, flags, key variables, shapes
// and path rules the pages list are the ones the code has, every page opens with an example, and
// every link lands on a file and heading that exist.
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { DecisionRecordSchema } from "../lib/record/schemas.ts";
import { openIndex } from "../lib/record/mod.ts";
import { loadWorkflow } from "../lib/workflow/mod.ts";
import { events, filesUnder, freePort, ROOT, runScript } from "./bench_cli_helpers.ts";

const README = await Deno.readTextFile(join(ROOT, "README.md"));

/** Every page under docs/, by file name. */
const DOCS = new Map<string, string>();
for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
  if (entry.isFile && entry.name.endsWith(".md")) {
    DOCS.set(entry.name, await Deno.readTextFile(join(ROOT, "docs", entry.name)));
  }
}

/** One page of docs/. */
function page(name: string): string {
  const text = DOCS.get(name);
  assert.ok(text !== undefined, `docs/${name} exists`);
  return text;
}

/** The paragraph (or list item) of a page that starts with `start`. */
function paragraph(text: string, start: string): string {
  const at = text.indexOf(start);
  assert.ok(at >= 0, `the page has "${start}"`);
  const end = text.slice(at).search(/\n\s*\n|\n- /);
  return text.slice(at, end < 0 ? undefined : at + end);
}

/** Names written as code (`name`) in a piece of a page. */
function codeNames(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

Deno.test("README is short and gives the two set-up commands", () => {
  const lines = README.split("\n").length;
  assert.ok(
    lines <= 300,
    `README.md has ${lines} lines; keep it under 300 and move topics to docs/`,
  );
  assert.ok(README.includes("npx -y deno@2 task bench"));
  assert.ok(README.includes("npx -y deno@2 task test"));
  assert.match(README, /Apache License 2\.0: see \[LICENSE\]\(LICENSE\)/);
});

Deno.test("every docs page opens with an example", () => {
  for (const [name, text] of DOCS) {
    const blocks = text.split(/\n\s*\n/).map((b) => b.trim()).filter((b) => !b.startsWith("#"));
    assert.match(blocks[0] ?? "", /^```(sh|ts)\n/, `docs/${name} opens with prose, not an example`);
  }
});

/** GitHub's anchor for a heading. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
}

Deno.test("every relative link in README, ARCHITECTURE and docs/ lands on a file and heading", async () => {
  const pages: [string, string][] = [
    ["README.md", README],
    ["ARCHITECTURE.md", await Deno.readTextFile(join(ROOT, "ARCHITECTURE.md"))],
    ...[...DOCS].map(([name, text]): [string, string] => [`docs/${name}`, text]),
  ];
  const headings = new Map(
    pages.map(([path, text]) => [
      path,
      new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!))),
    ]),
  );
  for (const [path, text] of pages) {
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/.test(link)) continue;
      const [file, hash] = link.split("#") as [string, string | undefined];
      const target = file === "" ? path : join(path, "..", file);
      // LICENSE comes with the repository's licence files; every other target must exist here.
      if (target !== "LICENSE") {
        await Deno.stat(join(ROOT, target)).catch(() => assert.fail(`${path}: ${link} is missing`));
      }
      if (hash !== undefined) {
        assert.ok(headings.get(target)?.has(hash), `${path}: ${link} names no heading`);
      }
    }
  }
});

Deno.test("every `deno task` the pages name is a task of deno.json", async () => {
  const tasks = Object.keys(JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks);
  for (
    const [path, text] of [["README.md", README], ...[...DOCS].map(([n, t]) => [`docs/${n}`, t])]
  ) {
    for (const m of text!.matchAll(/deno task ([a-z][a-z-]*)/g)) {
      assert.ok(tasks.includes(m[1]!), `${path}: "deno task ${m[1]}" is not a task`);
    }
  }
});

/** The page that documents each command's flags. */
const FLAG_PAGES: Record<string, string> = {
  "bench.ts": "workflows.md",
  "compare.ts": "reports.md",
  "view.ts": "view.md",
  "export.ts": "exports.md",
  "gate.ts": "gate-and-sweep.md",
  "sweep.ts": "gate-and-sweep.md",
  "policy.ts": "policies.md",
  "audit.ts": "audits.md",
  "live.ts": "live.md",
  "serve.ts": "reference-server.md",
  "train.ts": "reference-server.md",
  "vendor.ts": "dataset.md",
  "cache.ts": "cache.md",
};

Deno.test("every flag a command's --help lists is documented on its page", async (t) => {
  for (const [script, name] of Object.entries(FLAG_PAGES)) {
    await t.step(script, async () => {
      const r = await runScript(script, ["--help"]);
      assert.equal(r.code, 0, r.stderr);
      const flags = r.lines.flatMap((l) => /^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)/.exec(l)?.[1] ?? [])
        .filter((f) => f !== "--help");
      assert.ok(flags.length > 0, `${script} --help lists no option`);
      const text = page(name);
      for (const flag of flags) {
        assert.match(text, new RegExp(`${flag}(?![a-z0-9-])`), `docs/${name} lacks ${flag}`);
      }
    });
  }
});

Deno.test("docs/runs.md lists every decisions.jsonl field", () => {
  const listed = codeNames(
    paragraph(page("runs.md"), "- `decisions.jsonl` — one line per decision"),
  );
  for (const field of Object.keys(DecisionRecordSchema.shape)) {
    assert.ok(listed.has(field), `decisions.jsonl field "${field}" is not in docs/runs.md`);
  }
});

Deno.test("docs/runs.md lists every column of the SQLite index's tables", () => {
  const listed = codeNames(paragraph(page("runs.md"), "Tables: `runs`"));
  const index = openIndex(":memory:");
  try {
    for (const table of ["runs", "decisions", "classes"]) {
      const columns = index.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      for (const { name } of columns) {
        assert.ok(listed.has(name), `column ${table}.${name} is not in docs/runs.md`);
      }
    }
  } finally {
    index.close();
  }
});

Deno.test("docs/workflows.md lists every --json event a run that stops early prints", async () => {
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
  // Stopped before any answer on a closed port: no run is kept, so no summary.
  assert.deepEqual([...names].sort(), ["case", "fatal", "start"]);
  const text = page("workflows.md");
  const line = text.split("\n").find((l) => l.includes("one JSON event per line")) ?? "";
  const listed = /\(([^)]*)\)/.exec(line)?.[1]?.split(/,\s*/) ?? [];
  for (const name of names) {
    assert.ok(listed.includes(name), `--json event "${name}": ${line}`);
    assert.ok(text.includes(`| \`${name}\``), `docs/workflows.md has no row for "${name}"`);
  }
});

Deno.test("docs/engines.md's preset table names each preset's key variable and whether it is required", async () => {
  const text = page("engines.md");
  for await (const entry of Deno.readDir(join(ROOT, "workflows"))) {
    if (!entry.name.endsWith(".ts") || entry.name === "audit.ts") continue;
    const workflow = await loadWorkflow(join(ROOT, "workflows", entry.name));
    const endpoints = workflow.endpoint ? [workflow.endpoint] : workflow.endpoints ?? [];
    const row = text.split("\n").find((l) => l.startsWith("| ") && l.includes(`\`${entry.name}\``));
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

Deno.test("docs/gate-and-sweep.md gives decisionGate's item shape as GateItem declares it", async () => {
  const source = await Deno.readTextFile(join(ROOT, "lib/audit/gate.ts"));
  const body = /export interface GateItem \{([\s\S]*?)\n\}/.exec(source)?.[1] ?? "";
  const fields = [...body.matchAll(/^ {2}(\w+)(\?)?:/gm)].map((m) => `${m[1]}${m[2] ?? ""}`);
  assert.deepEqual(fields, ["id", "state", "instructions", "criteria?"]);
  assert.ok(page("gate-and-sweep.md").includes(`\`{${fields.join(", ")}}\``), "the item shape");
});

Deno.test("sweep prints the curve at 0.1 steps, every bar with --curve, as docs/gate-and-sweep.md says", async () => {
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
  assert.match(page("gate-and-sweep.md"), /`--curve` prints every bar\s+in steps of 0\.01/);
});

Deno.test("docs/notebooks.md says how the notebooks pick the newest complete run, as their code does", async () => {
  const notebook = JSON.parse(await Deno.readTextFile(join(ROOT, "notebooks/per_lane.ipynb")));
  const code = notebook.cells.map((c: { source: string[] }) => c.source.join("")).join("\n");
  assert.match(
    code,
    /run\.status === "completed" && run\.spec\?\.split === "test" && run\.spec\?\.cases === 400/,
  );
  const text = paragraph(page("notebooks.md"), "Deno Jupyter notebooks in `notebooks/`")
    .replace(/\s+/g, " ");
  for (
    const rule of ["status `completed`", "the test split", "all 400 cases", "latest `started_at`"]
  ) {
    assert.ok(text.includes(rule), `docs/notebooks.md: ${rule}`);
  }
});

Deno.test("audit --transcripts is resolved from the working directory, as docs/audits.md says", async () => {
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
  const text = paragraph(page("audits.md"), "A workflow's `audits` field").replace(/\s+/g, " ");
  assert.match(
    text,
    /`--transcripts FILE` replaces it and is resolved relative to the current directory/,
  );
  assert.match(text, /resolved relative to the workflow file's folder/);
});

Deno.test("every docs page the code and tests name exists", async () => {
  for (const place of ["lib", "scripts", "tests"]) {
    for (const [file, text] of await filesUnder(join(ROOT, place))) {
      for (const m of text.matchAll(/\bdocs\/([a-z-]+\.md)\b/g)) {
        assert.ok(DOCS.has(m[1]!), `${file} names docs/${m[1]}, which does not exist`);
      }
    }
  }
});

Deno.test("ARCHITECTURE.md gives the import order and each folder's imports as the code has them", async () => {
  const text = await Deno.readTextFile(join(ROOT, "ARCHITECTURE.md"));
  const test = await Deno.readTextFile(join(ROOT, "tests/architecture_test.ts"));
  const order = [.../IMPORT_ORDER[^=]*=\s*\[([^\]]*)\]/.exec(test)![1]!.matchAll(/"(\w+)"/g)]
    .map((m) => m[1]!);
  const line = text.split("\n").find((l) => l.startsWith("dataset → ")) ?? "";
  assert.deepEqual(line.match(/\w+/g), order, `ARCHITECTURE.md's order line: ${line}`);
  const specifiers =
    /(?:^|\n)\s*(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
  for (const folder of order) {
    const imported = new Set<string>();
    for (const [file, source] of await filesUnder(join(ROOT, "lib", folder))) {
      if (!file.endsWith(".ts") || file.endsWith("_test.ts")) continue;
      for (const m of source.matchAll(specifiers)) {
        const specifier = (m[1] ?? m[2])!;
        if (!specifier.startsWith(".")) continue;
        const parts = relative(join(ROOT, "lib"), join(file, "..", specifier)).split("/");
        if (parts.length > 1 && parts[0] !== folder && order.includes(parts[0]!)) {
          imported.add(parts[0]!);
        }
      }
    }
    const said = paragraph(text, `**\`${folder}\`** owns`).replace(/\s+/g, " ");
    const imports = /Imports (.*)$/.exec(said)?.[1] ?? "";
    assert.ok(imports, `ARCHITECTURE.md says what "${folder}" imports`);
    const listed = new Set([...imports.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
    assert.deepEqual(
      [...listed].sort(),
      [...imported].sort(),
      `ARCHITECTURE.md: "${folder}" imports ${[...imported].sort().join(", ") || "no folder"}`,
    );
  }
});
