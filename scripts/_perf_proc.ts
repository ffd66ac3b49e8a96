/**
 * Private to `deno task perf`: runs a command in its own process under a time limit and a memory
 * cap, and measures it from outside — wall time, peak resident memory (VmHWM, polled from
 * `/proc/<pid>/status`), user + system CPU (this process's reaped-children times from
 * `/proc/self/stat`), and the arrival times of `--json` events on its stdout. Linux only.
 *
 * @module
 */

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
/** How often the child's memory is read, ms. */
const POLL_MS = 50;

/** What one measured process did. */
export interface Measured {
  /** Process start (just before spawning) → exit, ms. */
  wallMs: number;
  /** Process start → the `start` event, ms (null when none arrived). */
  loadMs: number | null;
  /** First → last `case` event, ms (null when none arrived). */
  requestMs: number | null;
  /** Last `case` event → exit, ms (null when none arrived). */
  endMs: number | null;
  /** `case` events seen. */
  cases: number;
  /** Peak resident memory of the process, MB. */
  peakMb: number;
  /** User + system CPU of the process, ms. */
  cpuMs: number;
  /** Exit code. */
  code: number;
}

/** Options of {@linkcode measure}. */
export interface MeasureOptions {
  /** Working directory of the command. */
  cwd: string;
  /** Time limit, ms: past it the process is killed and measure throws. */
  limitMs: number;
  /** Memory cap, MB: past it the process is killed and measure throws. */
  capMb: number;
  /**
   * Exit codes that count as success.
   *
   * @default {[0]}
   */
  allowed?: readonly number[];
}

/** Children's user + system CPU time this process has reaped, ms. */
function reapedCpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 1000 / TICKS_PER_SECOND;
}

/** A field of `/proc/<pid>/status` in kB, or null once the process is gone. */
function statusKb(pid: number, field: string): number | null {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Runs a command to its end and measures it. Only one measured command should run at a time:
 * its CPU is read as the growth of this process's reaped-children time.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options Working directory, time limit, memory cap, exit codes counted as success.
 * @returns The figures.
 * @throws {Error} When the command exits otherwise, or is killed at its time limit or memory
 * cap; the message says which, with the end of its stderr.
 */
export async function measure(
  command: string,
  args: readonly string[],
  options: MeasureOptions,
): Promise<Measured> {
  const cpu0 = reapedCpuMs();
  const t0 = performance.now();
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let killed: string | null = null;
  let peakKb = 0;
  const kill = (why: string) => {
    killed ??= why;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const limit = setTimeout(
    () => kill(`time limit ${Math.round(options.limitMs / 1000)} s`),
    options.limitMs,
  );
  const poll = setInterval(() => {
    peakKb = Math.max(peakKb, statusKb(child.pid, "VmHWM") ?? 0);
    if ((statusKb(child.pid, "VmRSS") ?? 0) > options.capMb * 1024) {
      kill(`over the ${options.capMb} MB memory cap`);
    }
  }, POLL_MS);
  let start: number | null = null;
  let first: number | null = null;
  let last: number | null = null;
  let cases = 0;
  const events = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      const now = performance.now();
      buffer += chunk;
      let i;
      while ((i = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        if (line.startsWith('{"event":"case"')) {
          first ??= now;
          last = now;
          cases++;
        } else if (line.startsWith('{"event":"start"')) start ??= now;
      }
    }
  })();
  let stderr = "";
  const errors = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr = (stderr + chunk).slice(-2000);
    }
  })();
  const status = await child.status;
  const t1 = performance.now();
  clearTimeout(limit);
  clearInterval(poll);
  await Promise.all([events, errors]);
  if (killed) throw new Error(killed);
  if (!(options.allowed ?? [0]).includes(status.code)) {
    const last = stderr.trim().split("\n").at(-1)?.slice(0, 200);
    throw new Error(`exit ${status.code}${last ? `: ${last}` : ""}`);
  }
  return {
    wallMs: t1 - t0,
    loadMs: start === null ? null : start - t0,
    requestMs: first === null || last === null ? null : last - first,
    endMs: last === null ? null : t1 - last,
    cases,
    peakMb: peakKb / 1024,
    cpuMs: reapedCpuMs() - cpu0,
    code: status.code,
  };
}

/** A process started by {@linkcode startListening}. */
export interface Listening {
  /** The URL it printed. */
  url: string;
  /** Its process id. */
  pid: number;
  /** Stops it (SIGTERM) and waits for its exit. */
  close(): Promise<void>;
}

/**
 * Starts a long-running command that prints a URL on stdout when ready (the reference server,
 * the view), and keeps draining its output.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param cwd Working directory.
 * @param limitMs How long to wait for the URL.
 * @returns The URL and a way to stop it.
 * @throws {Error} When it exits or prints no URL within the limit.
 */
export async function startListening(
  command: string,
  args: readonly string[],
  cwd: string,
  limitMs = 60_000,
): Promise<Listening> {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  let url: string | undefined;
  while (!(url = /(http:\/\/[\d.]+:\d+)/.exec(text)?.[1])) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(timer);
      throw new Error(`Cannot start ${args.join(" ")}: it printed ${JSON.stringify(text)}`);
    }
    text += value;
  }
  clearTimeout(timer);
  const drain = (async () => {
    while (!(await reader.read()).done) { /* keep the pipe flowing */ }
  })();
  return {
    url,
    pid: child.pid,
    close: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await drain.catch(() => {});
    },
  };
}

/**
 * Peak resident memory of a running process, MB.
 *
 * @param pid The process.
 * @returns VmHWM in MB, or null when the process is gone.
 */
export function peakMbOf(pid: number): number | null {
  const kb = statusKb(pid, "VmHWM");
  return kb === null ? null : kb / 1024;
}
