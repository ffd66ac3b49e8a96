import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { WORKFLOW_SCHEMA_PATH, workflowJsonSchema, workflowJsonSchemaText } from "./json_schema.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("the shipped schemas/workflow.schema.json is the one the zod schema generates (deno task schema)", async () => {
  const shipped = await Deno.readTextFile(new URL(WORKFLOW_SCHEMA_PATH, ROOT));
  assert.equal(shipped, workflowJsonSchemaText(), "run deno task schema");
});

Deno.test("the workflow JSON Schema accepts the shipped YAML workflow and refuses an unknown or mistyped field", async () => {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(workflowJsonSchema());
  const example = parse(
    await Deno.readTextFile(new URL("examples/invoices/workflow.yaml", ROOT)),
  );
  assert.ok(validate(example), JSON.stringify(validate.errors));
  assert.ok(!validate({ name: "x", endpoint: { baseUrl: "http://h:1", retrys: 3 } }));
  assert.ok(validate.errors?.some((e) => e.params.additionalProperty === "retrys"));
  assert.ok(!validate({ name: "x", endpoint: { baseUrl: "http://h:1" }, parallel: "many" }));
  assert.ok(
    !validate({
      name: "x",
      endpoint: { baseUrl: "http://h:1" },
      thresholds: [{ metric: "accurracy", op: ">=", limit: 0.5 }],
    }),
    "a threshold names a registered metric",
  );
});
