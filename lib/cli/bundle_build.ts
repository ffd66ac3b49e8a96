/**
 * Private: building the bundle `deno task bench` starts from (`lib/cli/bundle.ts` says what it is
 * and when a run uses it), for `deno task bundle` and the rebuild a run starts as it exits.
 *
 * @module
 */
import { writeAtomic } from "../bytes.ts";
import {
  type BundleManifest,
  CACHE_DIR,
  ENTRIES,
  FAILED,
  MANIFEST,
  pathOf,
  readManifest,
  ROOT,
  statInputs,
  unchanged,
} from "./bundle.ts";

// A bundle folder a newer build replaced is kept this long, for runs still loading from it.
const KEEP_REPLACED_MS = 3600_000;

async function deno(args: string[]): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: pathOf(ROOT),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!output.success) {
    const text = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-5).join("\n");
    throw new Error(`deno ${args[0]} failed: ${text}`);
  }
  return new TextDecoder().decode(output.stdout);
}

/** The local files `entries` load, statically or dynamically, relative to the root. */
async function sourcesOf(entries: readonly string[]): Promise<string[]> {
  const files = new Set(["deno.json", "deno.lock"]);
  for (const entry of entries) {
    const info = JSON.parse(await deno(["info", "--json", entry]));
    for (const { specifier } of info.modules as { specifier: string }[]) {
      if (specifier.startsWith(ROOT.href)) files.add(specifier.slice(ROOT.href.length));
    }
  }
  return [...files].sort();
}

/** What {@link buildBundle} built. */
export interface BuiltBundle {
  /** The bundle's folder. */
  dir: URL;
  /** How many source files it was built from. */
  inputs: number;
}

/**
 * Bundles {@link ENTRIES} into a new folder under {@link CACHE_DIR} and makes it the current bundle
 * (the manifest is replaced in one rename), then removes folders replaced more than an hour ago.
 * When the build fails, `.cache/bundle-failed.json` records the sources it failed on, so that
 * runs do not retry it until one of them changes.
 *
 * @throws {Error} When `deno bundle` fails or a source changes while it runs.
 */
export async function buildBundle(): Promise<BuiltBundle> {
  const paths = await sourcesOf(ENTRIES);
  const inputs = statInputs(paths);
  const dirName = `bundle-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  const dir = new URL(`${dirName}/`, CACHE_DIR);
  const manifest: BundleManifest = { deno: Deno.version.deno, dir: dirName, inputs };
  await Deno.mkdir(dir, { recursive: true });
  try {
    for (const entry of ENTRIES) {
      // Minified: a tenth less time to load. No source maps (they would double the folder);
      // DECIBENCH_BUNDLE=off runs the sources, for stack traces with their lines.
      await deno([
        "bundle",
        "--code-splitting",
        "--minify",
        "--platform",
        "deno",
        "--outdir",
        pathOf(dir),
        entry,
      ]);
    }
    if (!unchanged(manifest)) throw new Error("a source file changed during the build");
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await writeAtomic(pathOf(FAILED), JSON.stringify(manifest));
    throw error;
  }
  // The replaced folder's time becomes the time it was replaced, from which its hour counts.
  const replaced = readManifest(MANIFEST);
  if (replaced !== undefined) {
    const now = new Date();
    await Deno.utime(new URL(`${replaced.dir}/`, CACHE_DIR), now, now).catch(() => {});
  }
  await writeAtomic(pathOf(MANIFEST), JSON.stringify(manifest));
  await Deno.remove(FAILED).catch(() => {});
  await pruneReplaced(dirName);
  return { dir, inputs: paths.length };
}

/** Removes bundle folders other than `current` replaced more than an hour ago. */
async function pruneReplaced(current: string): Promise<void> {
  for await (const entry of Deno.readDir(CACHE_DIR)) {
    if (!entry.isDirectory || !entry.name.startsWith("bundle-") || entry.name === current) continue;
    const url = new URL(`${entry.name}/`, CACHE_DIR);
    const mtime = (await Deno.stat(url)).mtime?.getTime() ?? 0;
    if (Date.now() - mtime > KEEP_REPLACED_MS) await Deno.remove(url, { recursive: true });
  }
}
