/**
 * What `deno task bench` loads before its first request: its static import graph holds no
 * charting or Parquet library (report.html's Observable Plot and linkedom load on demand), and a
 * workflow file that imports `defineWorkflow` loads nothing else of the toolkit.
 */
import assert from "node:assert/strict";
import { ROOT } from "./bench_cli_helpers.ts";

interface InfoModule {
  specifier: string;
  dependencies?: { specifier: string; isDynamic?: boolean; code?: { specifier?: string } }[];
}

/** The modules `path` loads statically (type-only and dynamic imports left out). */
async function staticGraph(path: string): Promise<Set<string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", path],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  const modules = new Map<string, InfoModule>(
    (info.modules as InfoModule[]).map((m) => [m.specifier, m]),
  );
  const redirects: Record<string, string> = info.redirects ?? {};
  const seen = new Set<string>();
  const visit = (specifier: string): void => {
    const resolved = redirects[specifier] ?? specifier;
    if (seen.has(resolved)) return;
    seen.add(resolved);
    for (const dep of modules.get(resolved)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (target !== undefined && dep.isDynamic !== true) visit(target);
    }
  };
  for (const root of info.roots as string[]) visit(root);
  return seen;
}

function npmPackages(graph: Set<string>): string[] {
  return [...graph].filter((s) => s.startsWith("npm:")).map((s) =>
    s.replace(/^npm:\/?/, "").replace(/@[^@/]+$/, "")
  ).sort();
}

Deno.test("`deno task bench` loads no charting or Parquet library before its first request", async () => {
  const graph = await staticGraph("scripts/bench.ts");
  assert.deepEqual(npmPackages(graph), ["zod"]);
  assert.ok(![...graph].some((s) => s.endsWith("/lib/report/html.ts")), "html.ts is loaded lazily");
  assert.ok(
    ![...graph].some((s) => s.endsWith("/lib/server/mod.ts")),
    "the server is loaded lazily",
  );
  // Deno's node:fs takes ~25 ms to load; Deno's own file API does the same work.
  const builtins = [...graph].filter((s) => s.startsWith("node:")).sort();
  assert.deepEqual(builtins, ["node:path", "node:sqlite", "node:url", "node:util"]);
});

Deno.test("a shipped workflow file loads `defineWorkflow` and nothing else of the toolkit", async (t) => {
  for await (const entry of Deno.readDir(`${ROOT}workflows`)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    await t.step(entry.name, async () => {
      const graph = await staticGraph(`workflows/${entry.name}`);
      const local = [...graph].map((s) => s.replace(/^file:\/\/.*?\/(workflows|lib)\//, "$1/"));
      assert.deepEqual(local.sort(), ["lib/workflow/define.ts", `workflows/${entry.name}`]);
    });
  }
});
