// Helpers for end-to-end tests that run the bench command as a subprocess.
import { fileURLToPath } from "node:url";

/** Repository root. */
export const ROOT: string = fileURLToPath(new URL("../", import.meta.url));

/** Output of a finished command. */
export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno run -A scripts/<script> ...args` from the repository root. */
export async function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CommandOutput> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `scripts/${script}`, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Every file under a directory, recursively, as text. */
export async function readTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) { for (const [k, v] of await readTree(path)) out.set(k, v); }
    else out.set(path, await Deno.readTextFile(path));
  }
  return out;
}
