/**
 * Helpers for the live monitor's end-to-end tests: the reference server as a subprocess, and a
 * real pseudo-terminal driven through tmux (own socket per test, so parallel tests and a user's
 * tmux never meet).
 *
 * @module
 */
import { join } from "node:path";
import { ROOT, startServe as spawnServe } from "./bench_cli_helpers.ts";

export { ROOT };

/** A reference server running as `deno run -A scripts/serve.ts`. */
export interface ServeProcess {
  /** Base URL the server printed. */
  url: string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the reference server as a subprocess on a free port and reads its URL from stdout.
 *
 * @param args Extra `serve.ts` flags (predictor, faults, seed).
 * @returns The running server.
 */
export async function startServe(args: string[]): Promise<ServeProcess> {
  const serve = await spawnServe(["--port", "0", ...args]);
  // Keep draining stdout so the server never blocks on a full pipe.
  const drained = (async () => {
    for await (const _ of serve.lines) { /* discard */ }
  })();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      serve.child.kill("SIGTERM");
    } catch { /* already gone */ }
    await serve.child.status;
    await drained;
    await serve.stderr;
  };
  return { url: serve.url, stop };
}

/** Options of {@linkcode Tmux.start}. */
export interface TmuxStartOptions {
  /** Columns. @default 120 */
  width?: number;
  /** Rows. @default 40 */
  height?: number;
  /** Script under scripts/ to run. @default "live.ts" */
  script?: string;
}

/**
 * One tmux server on its own socket with one session running the live monitor. The command
 * waits for `go()` so the pane's raw output can be recorded from its first byte.
 */
export class Tmux {
  readonly socket = `decibench-live-${crypto.randomUUID().slice(0, 8)}`;
  readonly session = "live";
  readonly dir: string;
  readonly exitFile: string;
  readonly sttyFile: string;
  readonly rawFile: string;

  private constructor(dir: string) {
    this.dir = dir;
    this.exitFile = join(dir, "exit");
    this.sttyFile = join(dir, "stty");
    this.rawFile = join(dir, "raw");
  }

  /**
   * Starts a session that runs `deno run -A scripts/<script> ...args` (default `live.ts`) in the
   * repository root, then
   * writes its exit status and `stty -a` to files and stays open.
   */
  static async start(args: string[], options: TmuxStartOptions = {}): Promise<Tmux> {
    const dir = await Deno.makeTempDir({ prefix: "decibench-live-" });
    const tmux = new Tmux(dir);
    const quoted = args.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
    const script = join(dir, "run.sh");
    await Deno.writeTextFile(
      script,
      [
        "read go",
        `'${Deno.execPath()}' run -A scripts/${options.script ?? "live.ts"} ${quoted}`,
        `echo "EXIT=$?" > '${tmux.exitFile}'`,
        `stty -a > '${tmux.sttyFile}' 2>&1`,
        "exec sleep 600",
        "",
      ].join("\n"),
    );
    // Keep every line that scrolls off, so a test can count what a command printed.
    const conf = join(dir, "tmux.conf");
    await Deno.writeTextFile(conf, "set-option -g history-limit 100000\n");
    await tmux.run([
      "-f",
      conf,
      "new-session",
      "-d",
      "-s",
      tmux.session,
      "-x",
      String(options.width ?? 120),
      "-y",
      String(options.height ?? 40),
      "-c",
      ROOT,
      `sh '${script}'`,
    ]);
    await tmux.run(["pipe-pane", "-o", "-t", tmux.session, `cat >> '${tmux.rawFile}'`]);
    await tmux.run(["send-keys", "-t", tmux.session, "Enter"]);
    return tmux;
  }

  /** Runs a tmux command on this socket and returns its stdout. */
  async run(args: string[]): Promise<string> {
    const output = await new Deno.Command("tmux", {
      args: ["-L", this.socket, ...args],
      stdout: "piped",
      stderr: "piped",
      env: { TMUX: "" },
    }).output();
    if (!output.success) {
      throw new Error(
        `tmux ${args[0]} failed: ${new TextDecoder().decode(output.stderr).trim()}`,
      );
    }
    return new TextDecoder().decode(output.stdout);
  }

  /** The pane's text as a user sees it. */
  capture(): Promise<string> {
    return this.run(["capture-pane", "-p", "-t", this.session]);
  }

  /** Every line of the pane, scrolled-off history included, without trailing blank lines. */
  async history(): Promise<string[]> {
    const text = await this.run(["capture-pane", "-p", "-S", "-", "-E", "-", "-t", this.session]);
    const lines = text.split("\n");
    while (lines.length && lines[lines.length - 1]!.trim() === "") lines.pop();
    return lines;
  }

  /** Sends keys in tmux's notation (`C-r`, `C-c`). */
  async send(...keys: string[]): Promise<void> {
    await this.run(["send-keys", "-t", this.session, ...keys]);
  }

  /** A tmux format for the pane, e.g. `#{alternate_on}`. */
  async display(format: string): Promise<string> {
    return (await this.run(["display-message", "-p", "-t", this.session, format])).trim();
  }

  /** The exit line the script wrote (`EXIT=n`), or null while the monitor runs. */
  async exitLine(): Promise<string | null> {
    try {
      // The shell creates the file before echo writes the line: empty means not written yet.
      return (await Deno.readTextFile(this.exitFile)).trim() || null;
    } catch {
      return null;
    }
  }

  /** Everything the pane received, escape sequences included. */
  async raw(): Promise<string> {
    try {
      return await Deno.readTextFile(this.rawFile);
    } catch {
      return "";
    }
  }

  /**
   * Polls the screen until `test` accepts it, or fails after `timeoutMs` showing the last screen.
   */
  async waitForScreen(
    what: string,
    test: (screen: string) => boolean,
    timeoutMs = 30_000,
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = await this.capture();
      if (test(screen)) return screen;
      const exit = await this.exitLine();
      if (exit !== null && !test(screen)) {
        throw new Error(`monitor exited (${exit}) before ${what}; screen:\n${screen}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; last screen:\n${screen}`);
  }

  /** Waits until the monitor has exited and returns the exit line. */
  async waitForExit(timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const line = await this.exitLine();
      if (line !== null) return line;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for the monitor to exit; screen:\n${await this.capture()}`);
  }

  /** Kills the tmux server and removes the temporary files. */
  async kill(): Promise<void> {
    try {
      await this.run(["kill-server"]);
    } catch { /* already gone */ }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

/** The `probes N` figure in the header, or null. */
export function probesShown(screen: string): number | null {
  const match = /probes (\d[\d,]*) · session/.exec(screen);
  return match ? Number((match[1] as string).replaceAll(",", "")) : null;
}
