// `bench --help` and `live --help` say both commands work on the workflow's own question set as
// well as on Typed Decisions.
import assert from "node:assert/strict";
import { runScript } from "./bench_cli_helpers.ts";

Deno.test("`bench --help` and `live --help` name the workflow's own question set beside Typed Decisions", async (t) => {
  for (const script of ["bench.ts", "live.ts"]) {
    await t.step(script, async () => {
      const r = await runScript(script, ["--help"]);
      assert.equal(r.code, 0);
      const text = r.lines.join("\n");
      const summary = text.slice(0, text.indexOf("Options"));
      assert.match(summary, /question set/);
      assert.match(summary, /own\s+(JSONL, CSV or Parquet\s+)?file/);
      assert.match(summary, /Typed Decisions/);
    });
  }
});
