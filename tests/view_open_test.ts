// `deno task view --open` on a machine where no browser can be opened says so, with the reason
// and the URL to open, and keeps serving.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./bench_cli_helpers.ts";

/** Starts `view --open` with an environment, returns its first stderr line and stdout URL. */
async function openWith(env: Record<string, string>, tmp: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "scripts/view.ts",
      "--open",
      "--port",
      "0",
      "--runs",
      join(tmp, "runs"),
      "--db",
      join(tmp, "none.db"),
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let out = "";
    while (!/http:\/\/\S+/.test(out)) {
      const next = await stdout.read();
      if (next.done) break;
      out += next.value;
    }
    const url = /http:\/\/\S+/.exec(out)?.[0] ?? "";
    let err = "";
    while (!err.includes("\n")) {
      const next = await stderr.read();
      if (next.done) break;
      err += next.value;
    }
    const home = await fetch(url);
    await home.body?.cancel();
    return { url, message: err.trim(), served: home.status };
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await stdout.cancel();
    await stderr.cancel();
  }
}

Deno.test("`view --open` without a browser says why and prints the URL, and keeps serving", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-view-open-" });
  try {
    await t.step("no graphical display", async () => {
      const r = await openWith({ DISPLAY: "", WAYLAND_DISPLAY: "", BROWSER: "" }, tmp);
      assert.equal(
        r.message,
        `decibench: Cannot open a browser (no graphical display: DISPLAY, WAYLAND_DISPLAY and BROWSER are unset); open ${r.url} in one`,
      );
      assert.equal(r.served, 200);
    });
    if (Deno.build.os === "linux") {
      await t.step("a display but no opener on the PATH", async () => {
        const r = await openWith({ DISPLAY: ":99", PATH: join(tmp, "empty-bin") }, tmp);
        assert.equal(
          r.message,
          `decibench: Cannot open a browser (xdg-open is not available); open ${r.url} in one`,
        );
        assert.equal(r.served, 200);
      });
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
