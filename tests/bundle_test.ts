/**
 * The bundle `deno task bench` starts from (lib/cli/bundle.ts): which changes make it stale, that
 * a run from it writes what a run from the sources writes, that a run finding none rebuilds it in
 * the background, and what `DECIBENCH_BUNDLE` accepts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bundledName,
  type BundleManifest,
  CACHE_DIR,
  freshBundle,
  statInputs,
  unchanged,
} from "../lib/cli/bundle.ts";
import { buildBundle } from "../lib/cli/bundle_build.ts";
import {
  decisionsWithoutLatency,
  readRunJson,
  ROOT,
  runScript,
  summaryWithoutLatency,
} from "./bench_cli_helpers.ts";

Deno.test("a bundle is stale once an input changes size or time, or Deno changes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const root = new URL(`file://${dir}/`);
    await Deno.mkdir(join(dir, "lib"));
    await Deno.writeTextFile(join(dir, "lib/a.ts"), "export const a = 1;\n");
    await Deno.writeTextFile(join(dir, "b.ts"), "export const b = 2;\n");
    const manifest: BundleManifest = {
      deno: Deno.version.deno,
      dir: "bundle-x",
      inputs: statInputs(["lib/a.ts", "b.ts"], root),
    };
    assert.equal(unchanged(manifest, root), true);
    assert.equal(unchanged({ ...manifest, deno: "0.0.0" }, root), false, "another Deno");
    assert.equal(unchanged({ ...manifest, inputs: {} }, root), false, "no inputs");

    // Same size, another time.
    const later = new Date(Date.now() + 5_000);
    await Deno.utime(join(dir, "b.ts"), later, later);
    assert.equal(unchanged(manifest, root), false, "b.ts touched");
    const touched = { ...manifest, inputs: statInputs(["lib/a.ts", "b.ts"], root) };
    assert.equal(unchanged(touched, root), true);

    // Same time, another size.
    const { mtime } = await Deno.stat(join(dir, "lib/a.ts"));
    await Deno.writeTextFile(join(dir, "lib/a.ts"), "export const a = 10;\n");
    await Deno.utime(join(dir, "lib/a.ts"), mtime!, mtime!);
    assert.equal(unchanged(touched, root), false, "lib/a.ts rewritten");

    const both = { ...manifest, inputs: statInputs(["lib/a.ts", "b.ts"], root) };
    assert.equal(unchanged(both, root), true);
    await Deno.remove(join(dir, "b.ts"));
    assert.deepEqual(statInputs(["b.ts"], root), { "b.ts": [-1, -1] });
    assert.equal(unchanged(both, root), false, "b.ts removed");
    // Absent when built (deno.lock without a lock file): fresh while it stays absent.
    const absent = { ...manifest, inputs: statInputs(["b.ts"], root) };
    assert.equal(unchanged(absent, root), true);
    await Deno.writeTextFile(join(dir, "b.ts"), "");
    assert.equal(unchanged(absent, root), false, "b.ts created");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bundledName: the entry's file name, .js for .ts", () => {
  assert.equal(bundledName("scripts/_bench.ts"), "_bench.js");
  assert.equal(bundledName("lib/report/_run_worker.ts"), "_run_worker.js");
});

Deno.test("a run with no bundle rebuilds it in the background, and a run from it writes what the sources write", async () => {
  // No bundle: the run loads the sources and starts a detached rebuild.
  await Deno.remove(new URL("bundle.json", CACHE_DIR)).catch(() => {});
  await Deno.remove(new URL("bundle-failed.json", CACHE_DIR)).catch(() => {});
  await Deno.remove(new URL("bundle.lock", CACHE_DIR)).catch(() => {});
  // Required, but missing: exit 2, nothing run (a build takes over a second, so none lands first).
  const required = await runScript("bench.ts", ["--help"], { DECIBENCH_BUNDLE: "only" });
  assert.equal(required.code, 2);
  assert.match(
    required.stderr,
    /^decibench: DECIBENCH_BUNDLE=only, but the bundle in \S+\/\.cache\/ is missing or older than the sources; build it with deno task bundle\n$/,
  );
  assert.deepEqual(required.lines, []);
  const help = await runScript("bench.ts", ["--help"]);
  assert.equal(help.code, 0, help.stderr);
  // The rebuild outlives the run that started it (another test's run may have started it first).
  const deadline = Date.now() + 120_000;
  while (freshBundle("scripts/_bench.ts") === undefined) {
    assert.ok(Date.now() < deadline, "no bundle was built within 120 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const dir = await Deno.makeTempDir();
  try {
    const from: Record<string, string> = { bundle: "only", sources: "off" };
    for (const [name, mode] of Object.entries(from)) {
      const out = join(dir, name);
      const run = await runScript(
        "bench.ts",
        ["--limit", "100", "--no-db", "--out", out],
        { DECIBENCH_BUNDLE: mode },
      );
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      await Deno.stat(join(out, "report.html"));
    }
    const [bundled, sources] = [join(dir, "bundle"), join(dir, "sources")];
    assert.deepEqual(
      await decisionsWithoutLatency(bundled),
      await decisionsWithoutLatency(sources),
    );
    assert.deepEqual(
      summaryWithoutLatency(await readRunJson(bundled)),
      summaryWithoutLatency(await readRunJson(sources)),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a build removes the bundle folders replaced more than an hour ago, and keeps the others", async () => {
  const old = new URL("bundle-zz-replaced-long-ago/", CACHE_DIR);
  const recent = new URL("bundle-zz-replaced-just-now/", CACHE_DIR);
  try {
    for (const dir of [old, recent]) {
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(new URL("_bench.js", dir), "");
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await Deno.utime(old, twoHoursAgo, twoHoursAgo);
    const built = await buildBundle();
    assert.ok(built.inputs > 100, `${built.inputs} inputs`);
    assert.equal(freshBundle("scripts/_bench.ts")?.href, new URL("_bench.js", built.dir).href);
    await assert.rejects(Deno.stat(old), Deno.errors.NotFound);
    assert.ok((await Deno.stat(recent)).isDirectory);
  } finally {
    await Deno.remove(old, { recursive: true }).catch(() => {});
    await Deno.remove(recent, { recursive: true }).catch(() => {});
  }
});

Deno.test("DECIBENCH_BUNDLE other than auto, off or only is refused with exit 2", async () => {
  const run = await runScript("bench.ts", ["--help"], { DECIBENCH_BUNDLE: "yes" });
  assert.equal(run.code, 2);
  assert.match(
    run.stderr,
    /^decibench: Cannot use DECIBENCH_BUNDLE="yes": give auto, off or only, or leave it unset\n$/,
  );
});

Deno.test("a checkout whose path holds a space builds its bundle, in the background as a run exits", async () => {
  const copy = join(await Deno.makeTempDir(), "decibench checkout");
  try {
    // The checkout's files (those git would commit), copied to a path with a space.
    const listed = await new Deno.Command("git", {
      args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      cwd: ROOT,
      stdout: "piped",
    }).output();
    for (const file of new TextDecoder().decode(listed.stdout).split("\0").filter(Boolean)) {
      try {
        await Deno.mkdir(join(copy, file, ".."), { recursive: true });
        await Deno.copyFile(join(ROOT, file), join(copy, file));
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error; // deleted, not yet committed
      }
    }
    const bench = (env: Record<string, string>) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", join(copy, "scripts/bench.ts"), "--help"],
        cwd: copy,
        env: { NO_COLOR: "1", ...env },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const first = await bench({});
    assert.equal(first.code, 0, new TextDecoder().decode(first.stderr));
    const deadline = Date.now() + 120_000;
    while (!await Deno.stat(join(copy, ".cache/bundle.json")).then(() => true, () => false)) {
      assert.ok(Date.now() < deadline, "no bundle was built within 120 s");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const bundled = await bench({ DECIBENCH_BUNDLE: "only" });
    assert.equal(bundled.code, 0, new TextDecoder().decode(bundled.stderr));
    assert.match(new TextDecoder().decode(bundled.stdout), /^Usage: deno task bench/);
  } finally {
    await Deno.remove(join(copy, ".."), { recursive: true });
  }
});
