import assert from "node:assert/strict";
import { loadWorkflow, validateWorkflow, WorkflowError } from "./load.ts";

Deno.test("`validateWorkflow()` names an unknown key by its full path and the key it most likely meant", async (t) => {
  const table: [string, Record<string, unknown>, string][] = [
    [
      "top level",
      { paralel: 2 },
      `field "(top level)" has an unknown key "paralel" (did you mean "parallel"?)`,
    ],
    [
      "endpoint",
      { endpoint: { baseUrl: "http://h:1", retrys: 1 } },
      `field "endpoint" has an unknown key "retrys" (did you mean "retries"?)`,
    ],
    [
      "cases",
      { cases: { limt: 3 } },
      `field "cases" has an unknown key "limt" (did you mean "limit"?)`,
    ],
    [
      "a threshold",
      { thresholds: [{ metric: "accuracy", op: ">=", limit: 0.5, lmit: 1 }] },
      `field "thresholds.0" has an unknown key "lmit" (did you mean "limit"?)`,
    ],
    ["nothing close", { colour: "red" }, `field "(top level)" has an unknown key "colour";`],
  ];
  for (const [name, extra, message] of table) {
    await t.step(name, () => {
      const value = { name: "w", endpoint: { baseUrl: "http://h:1" }, ...extra };
      assert.throws(() => validateWorkflow(value, "w.ts"), (e: unknown) => {
        assert.ok(e instanceof WorkflowError);
        assert.ok(e.message.includes(message), e.message);
        return true;
      });
    });
  }
});

Deno.test("`loadWorkflow()` names the line and column of a syntax error", async () => {
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, `export default {\n  name: "x"\n  parallel: 2,\n};\n`);
    await assert.rejects(
      loadWorkflow(file),
      WorkflowError,
      `Cannot load workflow "${file}": syntax error at line 3, column 3`,
    );
  } finally {
    await Deno.remove(file);
  }
});
