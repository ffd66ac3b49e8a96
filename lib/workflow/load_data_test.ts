import assert from "node:assert/strict";
import { join } from "node:path";
import { loadWorkflow, WorkflowError } from "./load.ts";

const REFERENCE_JSON = {
  $schema: "../schemas/workflow.schema.json",
  name: "reference",
  description: "Built-in reference server (embedded default): no model needed",
  endpoint: {
    name: "reference",
    reference: { predictor: "fitted" },
    model: "decibench-reference",
  },
  parallel: 8,
};

const REFERENCE_YAML = `# yaml-language-server: $schema=../schemas/workflow.schema.json
name: reference
description: "Built-in reference server (embedded default): no model needed"
endpoint:
  name: reference
  reference:
    predictor: fitted
  model: decibench-reference
parallel: 8
`;

async function withFile<T>(name: string, text: string, use: (file: string) => Promise<T>) {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, name);
    await Deno.writeTextFile(file, text);
    return await use(file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("`loadWorkflow()` reads JSON and YAML workflows into the same Workflow as their TypeScript", async (t) => {
  const expected = await loadWorkflow("workflows/reference.ts");
  await t.step("JSON, its $schema key ignored", async () => {
    const json = JSON.stringify(REFERENCE_JSON, null, 2);
    assert.deepEqual(await withFile("reference.json", json, loadWorkflow), expected);
  });
  await t.step("YAML (.yaml and .yml)", async () => {
    assert.deepEqual(await withFile("reference.yaml", REFERENCE_YAML, loadWorkflow), expected);
    assert.deepEqual(await withFile("reference.yml", REFERENCE_YAML, loadWorkflow), expected);
  });
  await t.step("a question-set workflow: examples/invoices/workflow.yaml", async () => {
    assert.deepEqual(
      await loadWorkflow("examples/invoices/workflow.yaml"),
      await loadWorkflow("examples/invoices/workflow.ts"),
    );
  });
});

Deno.test("`loadWorkflow()` names the file, line and field of a bad field in a YAML or JSON workflow", async (t) => {
  await t.step("YAML: an unknown key and a value out of range", async () => {
    const yaml = "name: bad\nendpoint:\n  baseUrl: http://h:1\n  retrys: 3\nparallel: 0\n";
    await withFile("bad.yaml", yaml, async (file) => {
      await assert.rejects(loadWorkflow(file), (e: unknown) => {
        assert.ok(e instanceof WorkflowError);
        assert.ok(e.message.startsWith(`Cannot load workflow "${file}": `), e.message);
        assert.ok(
          e.message.includes(
            `field "endpoint" (line 4) has an unknown key "retrys" (did you mean "retries"?)`,
          ),
          e.message,
        );
        assert.match(e.message, /field "parallel" \(line 5\): /);
        return true;
      });
    });
  });
  await t.step("JSON: a nested field", async () => {
    const json = '{\n  "name": "j",\n  "endpoint": {\n    "baseUrl": "http://h:1",\n' +
      '    "timeoutMs": -1\n  }\n}\n';
    await withFile("bad.json", json, async (file) => {
      await assert.rejects(
        loadWorkflow(file),
        WorkflowError,
        `field "endpoint.timeoutMs" (line 5)`,
      );
    });
  });
  await t.step("YAML syntax", async () => {
    await withFile("syntax.yaml", "name: x\nendpoint: [a\n", async (file) => {
      await assert.rejects(loadWorkflow(file), WorkflowError, "YAML syntax error at line");
    });
  });
  await t.step("JSON syntax", async () => {
    await withFile("syntax.json", '{"name": "x",\n "endpoint" 1}', async (file) => {
      await assert.rejects(loadWorkflow(file), WorkflowError, "JSON syntax error at line 2");
    });
  });
});

Deno.test("`loadWorkflow()` finds a built-in workflow by name or by its workflows/ path", async () => {
  const expected = await loadWorkflow("workflows/reference.ts");
  assert.deepEqual(await loadWorkflow("reference"), expected);
  await assert.rejects(
    loadWorkflow("elsewhere/reference.ts"),
    WorkflowError,
    `Cannot load workflow "elsewhere/reference.ts": file not found`,
  );
});
