/**
 * File-system errors as sentences: what could not be done to which path, why in plain words, and
 * what to do — instead of `File exists (os error 17): mkdir '…'`.
 *
 * @module
 */
import { dirname, resolve } from "node:path";

/** Options for `fsErrorMessage`. */
export interface FsErrorMessageOptions {
  /** What to do about it, appended after the reason, e.g. `choose another --out`. @default "" */
  fix?: string;
}

/** The first existing prefix of `path` that is not a directory, if any. */
function fileInTheWay(path: string): string | undefined {
  const parts: string[] = [];
  for (let p = resolve(path);; p = dirname(p)) {
    parts.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of parts) {
    try {
      if (!Deno.statSync(p).isDirectory) return p;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The nearest folder of `path` that exists. */
function nearestExisting(path: string): string {
  for (let p = resolve(path);; p = dirname(p)) {
    try {
      Deno.statSync(p);
      return p;
    } catch {
      if (dirname(p) === p) return p;
    }
  }
}

/**
 * The reason of a file-system error in plain words, looking at the path to say which part is the
 * problem (a file where a folder is needed, the folder that is not writable).
 *
 * @param error The error thrown by a `Deno` file-system call.
 * @param path The path the call was given.
 * @returns e.g. `"/tmp/x" is a file, not a folder`.
 */
export function fsReason(error: unknown, path: string): string {
  if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory) {
    const blocker = fileInTheWay(path);
    if (blocker !== undefined) return `"${blocker}" is a file, not a folder`;
    return error instanceof Deno.errors.AlreadyExists
      ? "it already exists"
      : "a part of it is not a folder";
  }
  if (error instanceof Deno.errors.IsADirectory) return `"${path}" is a folder, not a file`;
  if (error instanceof Deno.errors.PermissionDenied) {
    return `permission denied: this user may not write in "${nearestExisting(path)}"`;
  }
  if (error instanceof Deno.errors.NotFound) {
    return `no such file or folder (the nearest that exists is "${nearestExisting(path)}")`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/os error 30\b/.test(message)) return "the file system is read-only";
  if (/os error 28\b/.test(message)) return "the disk is full";
  // Any other OS error: its text without the errno and the syscall.
  return message.replace(/\s*\(os error \d+\)/, "").replace(/:\s*\w+ '[^']*'(, '[^']*')?$/, "")
    .replace(/^./, (c) => c.toLowerCase());
}

/**
 * One sentence for a failed file-system call: `Cannot <action> "<path>": <reason>; <fix>`.
 *
 * @param error The error thrown.
 * @param path The path the call was given.
 * @param action What was being done, e.g. `create the run directory`.
 * @param options The fix to suggest.
 * @returns The message.
 * @example
 * ```ts
 * import { fsErrorMessage } from "./fs_errors.ts";
 * const error = new Deno.errors.PermissionDenied("Permission denied (os error 13)");
 * fsErrorMessage(error, "/", "write", { fix: "choose another --out" });
 * // 'Cannot write "/": permission denied: this user may not write in "/"; choose another --out'
 * ```
 */
export function fsErrorMessage(
  error: unknown,
  path: string,
  action: string,
  options: FsErrorMessageOptions = {},
): string {
  const fix = options.fix ? `; ${options.fix}` : "";
  return `Cannot ${action} "${path}": ${fsReason(error, path)}${fix}`;
}

/**
 * Rephrases a raw `Deno` file-system error that reached the top of a command without a sentence
 * of its own (`File exists (os error 17): mkdir '/tmp/x'` → `Cannot create "/tmp/x": …`).
 *
 * @param error Any error.
 * @returns The sentence, or undefined when the error is not a raw OS error naming a path.
 */
export function describeOsError(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const match = /\(os error \d+\): (\w+) '([^']*)'/.exec(error.message);
  if (!match) return undefined;
  const [, call = "", path = ""] = match;
  const actions: Record<string, string> = {
    mkdir: "create the folder",
    open: "open",
    rename: "rename",
    remove: "remove",
    stat: "read",
    readfile: "read",
    writefile: "write",
    copy: "copy",
  };
  const action = actions[call.toLowerCase()] ?? call;
  return fsErrorMessage(error, path, action, { fix: "choose another path" });
}
