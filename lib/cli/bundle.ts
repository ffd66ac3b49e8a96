/**
 * Private: `deno task bench` started from a bundle of its modules, a cache built beside the
 * sources and used only while it matches them.
 *
 * Deno loads the run's ~150 source modules one at a time, and that, not the work, is most of the
 * time before the first request. `deno bundle --code-splitting --minify` puts the same code in a
 * dozen files, which load in about half the time. The bundle is never committed: it is written under
 * `.cache/` at the root of the checkout with a manifest, `.cache/bundle.json`, naming the Deno
 * version and every source file it was built from (its size and modification time). A run uses
 * it only when all of them are unchanged; otherwise the run loads the sources, as it would without
 * a bundle, and as it ends starts one rebuild in the background (detached, its output discarded),
 * so neither a change nor the run waits for a build, and the next run is quick again.
 *
 * Each bundle sits in its own folder two levels below the root (`.cache/bundle-<id>/`), as deep as
 * the modules in `lib/<folder>/` that find the vendored data by `import.meta.url`, so those URLs
 * name the same files from the bundle as from the sources. A folder (about 2 MB) is removed an
 * hour after a newer bundle replaced it, so a run that started from it can still load its lazy
 * parts.
 *
 * `DECIBENCH_BUNDLE=off` runs the sources and never builds; `DECIBENCH_BUNDLE=only` runs the
 * bundle or stops with exit 2 when it is missing or stale (for tests and `deno task perf`).
 *
 * @module
 */

/** The root of the checkout. */
export const ROOT: URL = new URL("../../", import.meta.url);
/** Where bundles and their manifest are written. */
export const CACHE_DIR: URL = new URL(".cache/", ROOT);
/** The entry points bundled, relative to the root: bench's main module and its report worker. */
export const ENTRIES: readonly string[] = ["scripts/_bench.ts", "lib/report/_run_worker.ts"];

const MANIFEST = new URL("bundle.json", CACHE_DIR);
const FAILED = new URL("bundle-failed.json", CACHE_DIR);
const LOCK = new URL("bundle.lock", CACHE_DIR);
// A lock older than this is left from a build that died: the next run may take it.
const LOCK_STALE_MS = 5 * 60_000;
const KEEP_REPLACED_MS = 3600_000;

/** What a bundle was built from: the Deno version and each input's size and modification time. */
export interface BundleManifest {
  /** `Deno.version.deno` of the build. */
  deno: string;
  /** The bundle's folder, under {@link CACHE_DIR}. */
  dir: string;
  /** Each input, relative to the root, with `[size, mtime ms]`. */
  inputs: Record<string, [number, number]>;
}

/** The value of `DECIBENCH_BUNDLE`: `auto` (the default), `off` or `only`. */
export type BundleMode = "auto" | "off" | "only";

/**
 * Reads `DECIBENCH_BUNDLE`.
 *
 * @throws {Error} When it holds something else than `auto`, `off` or `only`.
 */
export function bundleMode(): BundleMode {
  const value = Deno.env.get("DECIBENCH_BUNDLE") ?? "auto";
  if (value === "auto" || value === "off" || value === "only" || value === "") {
    return value === "" ? "auto" : value;
  }
  throw new Error(
    `Cannot use DECIBENCH_BUNDLE="${value}": give auto, off or only, or leave it unset`,
  );
}

function readManifest(url: URL): BundleManifest | undefined {
  try {
    const value = JSON.parse(Deno.readTextFileSync(url));
    if (
      typeof value?.deno === "string" && typeof value.dir === "string" &&
      /^bundle-[\w-]+$/.test(value.dir) && typeof value.inputs === "object" && value.inputs !== null
    ) return value as BundleManifest;
  } catch {
    // Missing or unreadable: no bundle.
  }
  return undefined;
}

/** `[size, mtime ms]` of each of `paths` (relative to `root`); a missing file is `[-1, -1]`. */
export function statInputs(
  paths: Iterable<string>,
  root: URL = ROOT,
): Record<string, [number, number]> {
  const stats: Record<string, [number, number]> = {};
  for (const path of paths) {
    try {
      const info = Deno.statSync(new URL(path, root));
      stats[path] = [info.size, info.mtime?.getTime() ?? -1];
    } catch {
      stats[path] = [-1, -1];
    }
  }
  return stats;
}

/** Whether every input of `manifest` is as it was when it was built, by the same Deno. */
export function unchanged(manifest: BundleManifest, root: URL = ROOT): boolean {
  if (manifest.deno !== Deno.version.deno) return false;
  const now = statInputs(Object.keys(manifest.inputs), root);
  for (const [path, [size, mtime]] of Object.entries(manifest.inputs)) {
    const [nowSize, nowMtime] = now[path] as [number, number];
    // An input absent at the build (deno.lock, with --no-lock) must still be absent.
    if (nowSize !== size || nowMtime !== mtime) return false;
  }
  return Object.keys(manifest.inputs).length > 0;
}

/** The bundled file of `entry` (a path in {@link ENTRIES}): its name, `.js` for `.ts`. */
export function bundledName(entry: string): string {
  return (entry.split("/").pop() as string).replace(/\.ts$/, ".js");
}

/** The URL of `entry` in the current bundle when that bundle matches the sources, else undefined. */
export function freshBundle(entry: string): URL | undefined {
  const manifest = readManifest(MANIFEST);
  if (manifest === undefined || !unchanged(manifest)) return undefined;
  const url = new URL(`${manifest.dir}/${bundledName(entry)}`, CACHE_DIR);
  try {
    return Deno.statSync(url).isFile ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the command whose main module is `entry` (it exports `run()`): from the bundle when it
 * matches the sources, else from the sources, starting a rebuild in the background as it exits.
 */
export async function launch(entry: string): Promise<void> {
  let mode: BundleMode;
  try {
    mode = bundleMode();
  } catch (error) {
    console.error(`decibench: ${(error as Error).message}`);
    Deno.exit(2);
  }
  const bundled = mode === "off" ? undefined : freshBundle(entry);
  let command: { run(): Promise<unknown> } | undefined;
  if (bundled !== undefined) {
    try {
      command = await import(bundled.href);
    } catch {
      // A bundle that no longer loads (a file removed by hand): the sources serve.
    }
  }
  if (command === undefined) {
    if (mode === "only") {
      console.error(
        `decibench: DECIBENCH_BUNDLE=only, but the bundle in ${CACHE_DIR.pathname} is missing or ` +
          `older than the sources; build it with deno task bundle`,
      );
      Deno.exit(2);
    }
    // Built once this run ends: a build beside the run would take half its time on two cores.
    if (mode === "auto") {
      globalThis.addEventListener("unload", () => rebuildInBackground(entry), { once: true });
    }
    command = await import(new URL(entry, ROOT).href);
  }
  await (command as { run(): Promise<unknown> }).run();
}

/**
 * Starts `scripts/bundle.ts --background` detached, unless another process built the bundle
 * meanwhile, or a build runs or failed on these sources.
 */
function rebuildInBackground(entry: string): void {
  try {
    if (freshBundle(entry) !== undefined) return;
    const failed = readManifest(FAILED);
    if (failed !== undefined && unchanged(failed)) return;
    Deno.mkdirSync(CACHE_DIR, { recursive: true });
    if (!takeLock()) return;
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("scripts/bundle.ts", ROOT).pathname, "--background"],
      cwd: ROOT.pathname,
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn().unref();
  } catch {
    // Not writable, or no process to spare: the sources serve, as without a bundle.
  }
}

/** Creates the build lock; false when a build younger than {@link LOCK_STALE_MS} holds it. */
function takeLock(): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      Deno.writeTextFileSync(LOCK, String(Deno.pid), { createNew: true });
      return true;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) return false;
      const mtime = Deno.statSync(LOCK).mtime?.getTime() ?? 0;
      if (Date.now() - mtime < LOCK_STALE_MS) return false;
      Deno.removeSync(LOCK);
    }
  }
  return false;
}

/** Removes the build lock (a background build's last step). */
export function releaseLock(): void {
  try {
    Deno.removeSync(LOCK);
  } catch {
    // Already gone.
  }
}

async function deno(args: string[]): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT.pathname,
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
        dir.pathname,
        entry,
      ]);
    }
    if (!unchanged(manifest)) throw new Error("a source file changed during the build");
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await writeJsonAtomic(FAILED, manifest);
    throw error;
  }
  // The replaced folder's time becomes the time it was replaced, from which its hour counts.
  const replaced = readManifest(MANIFEST);
  if (replaced !== undefined) {
    const now = new Date();
    await Deno.utime(new URL(`${replaced.dir}/`, CACHE_DIR), now, now).catch(() => {});
  }
  await writeJsonAtomic(MANIFEST, manifest);
  await Deno.remove(FAILED).catch(() => {});
  await pruneReplaced(dirName);
  return { dir, inputs: paths.length };
}

async function writeJsonAtomic(url: URL, value: unknown): Promise<void> {
  const temp = new URL(`${url.pathname}.${crypto.randomUUID().slice(0, 8)}.tmp`, url);
  await Deno.writeTextFile(temp, JSON.stringify(value));
  await Deno.rename(temp, url);
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
