/**
 * The one import order between the folders of `lib/` (ARCHITECTURE.md): every import under
 * `lib/` is read, and a folder may import only folders before it, and only through their `mod.ts`.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { filesUnder } from "./bench_cli_helpers.ts";

/** The folders of `lib/` in import order; a folder may import those before it. */
export const IMPORT_ORDER: readonly string[] = [
  "dataset",
  "client",
  "metrics",
  "model",
  "server",
  "record",
  "report",
  "workflow",
  "export",
  "view",
  "live",
  "audit",
  "cli",
];

/** Folders that share a rank: they may not import each other. */
const PEERS: readonly (readonly string[])[] = [["live", "audit", "cli"]];

/** One import that breaks the rule, with the reason. */
export interface ImportProblem {
  /** The importing file, relative to the project. */
  file: string;
  /** The import specifier as written. */
  specifier: string;
  /** Why it is refused. */
  reason: string;
}

function rank(folder: string): number {
  const peer = PEERS.find((group) => group.includes(folder));
  return IMPORT_ORDER.indexOf(peer ? peer[0] as string : folder);
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * Checks the imports of one file under `lib/` (test files may reach into a folder they test).
 *
 * @param file The file's path relative to the project root, e.g. `lib/report/html.ts`.
 * @param text Its source.
 * @returns The imports that break the order or bypass a folder's `mod.ts`.
 */
export function importProblems(file: string, text: string): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const from = file.split("/")[1] as string;
  if (!IMPORT_ORDER.includes(from)) return problems;
  const isTest = /_test\.ts$/.test(file);
  for (const m of text.matchAll(IMPORT)) {
    const specifier = (m[1] ?? m[2]) as string;
    if (!specifier.startsWith(".")) continue;
    const target = normalize(join(dirname(file), specifier));
    const parts = target.split("/");
    if (parts[0] !== "lib" || parts.length < 3) continue; // lib/*.ts is shared by every folder
    const to = parts[1] as string;
    if (to === from) continue;
    if (!IMPORT_ORDER.includes(to)) {
      problems.push({ file, specifier, reason: `"${to}" is not a folder of the import order` });
      continue;
    }
    if (rank(to) >= rank(from)) {
      problems.push({
        file,
        specifier,
        reason: `"${from}" may not import "${to}" (order: ${IMPORT_ORDER.join(" → ")})`,
      });
    } else if (!isTest && target !== `lib/${to}/mod.ts`) {
      problems.push({
        file,
        specifier,
        reason: `bypasses "lib/${to}/mod.ts": import what "${to}" offers from its mod.ts`,
      });
    }
  }
  return problems;
}

Deno.test("every import under lib/ follows the one import order, through each folder's mod.ts", async () => {
  const root = join(import.meta.dirname as string, "..");
  const files = [...await filesUnder(join(root, "lib"))].filter(([f]) => f.endsWith(".ts"));
  assert.ok(files.length > 100, "lib/ was read");
  const problems: string[] = [];
  for (const [path, text] of files) {
    const file = relative(root, path);
    for (const p of importProblems(file, text)) {
      problems.push(`${p.file}: import "${p.specifier}": ${p.reason}`);
    }
  }
  assert.deepEqual(problems, [], `\n${problems.join("\n")}`);
});

Deno.test("the import-order check refuses a backward import and one that bypasses mod.ts", async (t) => {
  await t.step("a folder importing a later one", () => {
    const [p] = importProblems(
      "lib/metrics/x.ts",
      'import { runBenchmark } from "../workflow/mod.ts";',
    );
    assert.match(p?.reason ?? "", /"metrics" may not import "workflow"/);
  });
  await t.step("a folder importing a peer", () => {
    const [p] = importProblems(
      "lib/live/x.ts",
      'import type { AuditRecord } from "../audit/mod.ts";',
    );
    assert.match(p?.reason ?? "", /"live" may not import "audit"/);
  });
  await t.step("an import around mod.ts", () => {
    const [p] = importProblems(
      "lib/report/x.ts",
      'import { summarize } from "../metrics/summary.ts";',
    );
    assert.match(p?.reason ?? "", /bypasses "lib\/metrics\/mod.ts"/);
  });
  await t.step("a dynamic import, and multi-line import lists", () => {
    assert.equal(importProblems("lib/dataset/x.ts", 'await import("../server/mod.ts");').length, 1);
    assert.equal(
      importProblems("lib/client/x.ts", 'import {\n  a,\n  b,\n} from "../record/mod.ts";').length,
      1,
    );
  });
  await t.step("allowed: an earlier folder's mod.ts, shared lib/ files, the folder itself", () => {
    assert.deepEqual(
      importProblems(
        "lib/report/x.ts",
        'import { summarize } from "../metrics/mod.ts";\nimport { TOOL_NAME } from "../version.ts";\nimport { a } from "./tables.ts";',
      ),
      [],
    );
  });
});
