import assert from "node:assert/strict";
import { loadWorkflow, validateWorkflow, WorkflowError } from "./load.ts";

Deno.test("`validateWorkflow()` names an unknown key by its full path and the key it most likely meant", async (t) => {
  const table: [string, Record<string, unknown>, string][] = [
    [
      "top level",
      { paralel: 2 },
      `field "paralel" is not a workflow field (did you mean "parallel"?)`,
    ],
    [
      "endpoint",
      { endpoint: { baseUrl: "http://h:1", retrys: 1 } },
      `field "endpoint.retrys" is not a workflow field (did you mean "endpoint.retries"?)`,
    ],
    [
      "cases",
      { cases: { limt: 3 } },
      `field "cases.limt" is not a workflow field (did you mean "cases.limit"?)`,
    ],
    [
      "a threshold",
      { thresholds: [{ metric: "accuracy", op: ">=", limit: 0.5, lmit: 1 }] },
      `field "thresholds.0.lmit" is not a workflow field (did you mean "thresholds.0.limit"?)`,
    ],
    ["nothing close", { colour: "red" }, `field "colour" is not a workflow field;`],
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
