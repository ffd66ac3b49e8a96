// End-to-end: `deno task view` as a command: it says where it listens (127.0.0.1 only by
// default), stops on SIGTERM with status 0, and refuses a bad port or one in use with exit 2.
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, runScript, spawnScript } from "./bench_cli_helpers.ts";

Deno.test("`deno task view` says where it listens, stops on SIGTERM, and refuses a bad or busy port", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-view-cli-" });
  try {
    const args = ["--db", join(tmp, "none.db"), "--runs", join(tmp, "runs")];

    await t.step("it binds to 127.0.0.1 and says so; an empty folder lists no run", async () => {
      const port = freePort();
      const view = spawnScript("view.ts", ["--port", String(port), ...args]);
      const lines: string[] = [];
      for (let i = 0; i < 3; i++) {
        const next = await view.lines.next();
        if (next.done) break;
        lines.push(next.value);
      }
      assert.equal(lines[0], `decibench view  http://127.0.0.1:${port}`);
      assert.match(lines[1] ?? "", /only \(this machine\); read-only, offline/);
      const home = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /No runs yet/);
      view.child.kill("SIGTERM");
      assert.equal((await view.child.status).code, 0, await view.stderr);
    });

    await t.step(
      "bound to every address it warns that anyone who can reach the port reads every run",
      async () => {
        const port = freePort();
        const view = spawnScript("view.ts", [
          "--port",
          String(port),
          "--hostname",
          "0.0.0.0",
          ...args,
        ]);
        try {
          await view.lines.next();
          const warning = (await view.lines.next()).value ?? "";
          assert.match(warning, /no authentication/);
          assert.match(warning, new RegExp(`anyone who can reach port ${port} reads every run`));
        } finally {
          view.child.kill("SIGTERM");
          await view.child.status;
          await view.stderr;
        }
      },
    );

    await t.step("a port in use, or a port that is not one, is a usage error", async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      try {
        const busy = (listener.addr as Deno.NetAddr).port;
        const out = await runScript("view.ts", ["--port", String(busy), ...args]);
        assert.equal(out.code, 2);
        assert.match(
          out.stderr,
          new RegExp(`port ${busy} on 127\\.0\\.0\\.1 is in use; pass another --port`),
        );
      } finally {
        listener.close();
      }
      const bad = await runScript("view.ts", ["--port", "http", ...args]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /Cannot use --port "http": it is not a number/);
      const big = await runScript("view.ts", ["--port", "70000", ...args]);
      assert.equal(big.code, 2);
      assert.match(
        big.stderr,
        /Cannot use --port "70000": it is too large; give a whole number from 0 to 65535/,
      );
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
