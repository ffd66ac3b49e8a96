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

/** The current bundle's manifest. */
export const MANIFEST: URL = new URL("bundle.json", CACHE_DIR);
/** The manifest of the sources a build last failed on. */
export const FAILED: URL = new URL("bundle-failed.json", CACHE_DIR);
const LOCK = new URL("bundle.lock", CACHE_DIR);
// A lock older than this is left from a build that died: the next run may take it.
const LOCK_STALE_MS = 5 * 60_000;

/** The file path of a file URL (a checkout's path may hold spaces, which a URL escapes). */
export function pathOf(url: URL): string {
  return decodeURIComponent(url.pathname);
}

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

/**
 * Reads a bundle manifest.
 *
 * @param url The manifest file.
 * @returns The manifest, or undefined when it is missing, unreadable or not one.
 */
export function readManifest(url: URL): BundleManifest | undefined {
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
        `decibench: DECIBENCH_BUNDLE=only, but the bundle in ${pathOf(CACHE_DIR)} is missing or ` +
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
      args: ["run", "-A", pathOf(new URL("scripts/bundle.ts", ROOT)), "--background"],
      cwd: pathOf(ROOT),
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
