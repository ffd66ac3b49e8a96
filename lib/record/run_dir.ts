/**
 * Claiming an output directory (a run, an audit) before anything is written to it: the directory
 * is created, an exclusive lock file holding the writer's pid is taken (a lock left by a process
 * that no longer exists is stale and replaced), and a directory that already holds a run is
 * refused unless the run is being resumed.
 *
 * @module
 */
import { join } from "node:path";
import { commandOf } from "../invocation.ts";
import { fsErrorMessage } from "./fs_errors.ts";
import { shellQuote } from "./resume_command.ts";

/** The lock file's name inside the directory. */
export const LOCK_FILE = "run.lock";

/** A directory cannot be used: it holds a run, another process writes it, or it cannot be made. */
export class RunDirError extends Error {
  /** The directory. */
  readonly dir: string;
  /**
   * Creates the error.
   *
   * @param dir The directory.
   * @param message What is wrong and what to do.
   */
  constructor(dir: string, message: string) {
    super(message);
    this.name = "RunDirError";
    this.dir = dir;
  }
}

/** What a lock file records about its writer. */
export interface LockInfo {
  /** Process id. */
  pid: number;
  /** Host the process runs on. */
  hostname: string;
  /** When the lock was taken (ISO 8601). */
  started_at: string;
  /** The process's start time in clock ticks since boot (Linux), to tell a reused pid. */
  process_start: string | null;
}

/** A held lock; release it (or `await using` it) when the directory is written. */
export interface RunDirLock extends AsyncDisposable {
  /** The directory. */
  dir: string;
  /** The lock file. */
  path: string;
  /** Removes the lock file (when it is still this process's). */
  release(): Promise<void>;
}

/** Options for `lockRunDir`. */
export interface LockRunDirOptions {
  /**
   * A new run or audit: refuse a directory that already holds one (resuming passes false).
   * @default true
   */
  fresh?: boolean;
  /** What the directory holds, for messages and the files that mark it. @default "run" */
  kind?: "run" | "audit";
  /** The flag that chose the directory, for the fix in messages. @default "--out" */
  flag?: string;
  /** This process's id (tests). @default Deno.pid */
  pid?: number;
}

/** The file whose presence means the directory holds a run or an audit (written at its start). */
const MARKERS = {
  run: ["run.json"],
  audit: ["audit.json"],
} as const;

/** This host's name, or "" where it may not be read (no `--allow-sys`). */
function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}

function processStart(pid: number): string | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command (in parentheses, which may hold spaces): state is 3rd, start 22nd.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that wrote a lock still runs: on this host, a pid whose process exists, is
 * not a zombie, and (when recorded) started when the lock says.
 *
 * @param lock The lock file's content.
 * @returns False when it is certainly gone; true when it runs or cannot be checked (another host).
 */
export function lockHolderAlive(lock: LockInfo): boolean {
  if (lock.hostname !== hostname()) return true;
  if (Deno.build.os !== "linux") {
    try {
      const status = new Deno.Command("kill", { args: ["-0", String(lock.pid)], stderr: "null" })
        .outputSync();
      return status.success;
    } catch {
      return true;
    }
  }
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${lock.pid}/stat`);
  } catch {
    return false;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return false;
  return lock.process_start === null || fields[19] === lock.process_start;
}

async function readLock(path: string): Promise<LockInfo | null> {
  try {
    const value = JSON.parse(await Deno.readTextFile(path));
    if (typeof value?.pid !== "number") return null;
    return {
      pid: value.pid,
      hostname: String(value.hostname ?? ""),
      started_at: String(value.started_at ?? ""),
      process_start: typeof value.process_start === "string" ? value.process_start : null,
    };
  } catch {
    return null;
  }
}

async function existing(dir: string, names: readonly string[]): Promise<string | undefined> {
  for (const name of names) {
    try {
      await Deno.stat(join(dir, name));
      return name;
    } catch {
      // absent
    }
  }
  return undefined;
}

async function describeHeld(
  dir: string,
  kind: "run" | "audit",
): Promise<{ text: string; status: string | null }> {
  try {
    const meta = JSON.parse(await Deno.readTextFile(join(dir, `${kind}.json`)));
    const status = typeof meta?.status === "string" ? meta.status : null;
    if (kind === "run" && typeof meta?.id === "string") {
      return { text: `run "${meta.id}" (${status ?? "unknown status"})`, status };
    }
    if (status !== null) return { text: `an audit (${status})`, status };
  } catch {
    // described generically
  }
  return { text: kind === "run" ? "a run" : "an audit", status: null };
}

/**
 * Claims a directory for writing: creates it, takes its lock, and (for a fresh run) refuses it when
 * it already holds a run. Nothing else is written.
 *
 * @param dir The directory.
 * @param options Fresh or resumed, what it holds, the flag that chose it.
 * @returns The lock; release it when done.
 * @throws {RunDirError} When the directory cannot be created (naming the path and the reason),
 *   another live process holds its lock (naming the pid), or a fresh run finds a run there.
 * @example
 * ```ts ignore
 * import { lockRunDir } from "./run_dir.ts";
 * await using lock = await lockRunDir("runs/r1", { fresh: true });
 * ```
 */
export async function lockRunDir(
  dir: string,
  options: LockRunDirOptions = {},
): Promise<RunDirLock> {
  const kind = options.kind ?? "run";
  const flag = options.flag ?? "--out";
  const fresh = options.fresh ?? true;
  const pid = options.pid ?? Deno.pid;
  const what = kind === "run" ? "the run directory" : "the audit directory";
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (error) {
    throw new RunDirError(
      dir,
      fsErrorMessage(error, dir, `create ${what}`, { fix: `choose another ${flag}` }),
    );
  }
  const path = join(dir, LOCK_FILE);
  const info: LockInfo = {
    pid,
    hostname: hostname(),
    started_at: new Date().toISOString(),
    process_start: processStart(pid),
  };
  const text = JSON.stringify(info) + "\n";
  for (let attempt = 0;; attempt++) {
    try {
      await Deno.writeTextFile(path, text, { createNew: true });
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists) || attempt > 0) {
        if (error instanceof Deno.errors.AlreadyExists) {
          throw new RunDirError(
            dir,
            `Cannot lock ${what} "${dir}": another process took it at the same moment; try again`,
          );
        }
        throw new RunDirError(
          dir,
          fsErrorMessage(error, path, `write the lock file`, { fix: `choose another ${flag}` }),
        );
      }
      const holder = await readLock(path);
      if (holder !== null && lockHolderAlive(holder)) {
        const where = holder.hostname === hostname() ? "" : ` on host "${holder.hostname}"`;
        throw new RunDirError(
          dir,
          `Cannot write ${what} "${dir}": process ${holder.pid}${where} is writing it (since ${holder.started_at}); wait for it to finish or stop it${
            fresh ? `, or choose another ${flag}` : ""
          }; if process ${holder.pid} is not decibench, delete ${shellQuote(path)}`,
        );
      }
      // Stale: its writer is gone (killed, crashed). Replace it.
      await Deno.remove(path).catch(() => {});
    }
  }
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    const holder = await readLock(path);
    if (holder?.pid === pid) await Deno.remove(path).catch(() => {});
  };
  if (fresh) {
    const marker = await existing(dir, MARKERS[kind]);
    if (marker !== undefined) {
      const held = await describeHeld(dir, kind);
      await release();
      const resume = kind === "run"
        ? `${commandOf("bench")} --resume ${shellQuote(dir)}`
        : `${commandOf("audit")} WORKFLOW --resume ${shellQuote(dir)}`;
      const fix = held.status === "completed"
        ? `choose another ${flag} (or delete the directory to replace it)`
        : `finish that one with ${resume}, or choose another ${flag}`;
      throw new RunDirError(
        dir,
        `Cannot start a new ${kind} in "${dir}": it already holds ${held.text}; ${fix}`,
      );
    }
  }
  return { dir, path, release, [Symbol.asyncDispose]: release };
}
