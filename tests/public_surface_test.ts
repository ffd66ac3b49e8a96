// The public surface (ARCHITECTURE.md): a narrow root, folder entry points that list what they
// offer, and documentation complete over every entry of deno.json's exports.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./bench_cli_helpers.ts";

const MAX_ROOT_NAMES = 60;

async function deno(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, env: { NO_COLOR: "1" } })
    .output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test(`the root mod.ts exports at most ${MAX_ROOT_NAMES} names`, async () => {
  const r = await deno(["doc", "--json", "mod.ts"]);
  assert.equal(r.code, 0, r.stderr);
  const nodes = JSON.parse(r.stdout).nodes as Record<string, { symbols: { name: string }[] }>;
  const names = Object.values(nodes).flatMap((m) => m.symbols.map((s) => s.name));
  assert.ok(names.length > 20, `read the exports (${names.length})`);
  assert.ok(
    names.length <= MAX_ROOT_NAMES,
    `${names.length} names: move what a workflow, notebook or script does not need to its folder's mod.ts`,
  );
});

Deno.test("no folder mod.ts re-exports a whole file with export *", async () => {
  for await (const folder of Deno.readDir(join(ROOT, "lib"))) {
    if (!folder.isDirectory) continue;
    const file = join(ROOT, "lib", folder.name, "mod.ts");
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch {
      continue;
    }
    assert.doesNotMatch(text, /^export \*/m, `lib/${folder.name}/mod.ts: list its exports`);
  }
});

Deno.test("deno doc --lint is clean over every entry of deno.json's exports", async () => {
  const entries = Object.values(
    JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).exports as Record<string, string>,
  );
  assert.ok(entries.includes("./mod.ts") && entries.includes("./cli.ts"));
  const r = await deno(["doc", "--lint", ...entries]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
});
