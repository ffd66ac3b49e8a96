/**
 * `deno task schema [--check]`: writes `schemas/workflow.schema.json`, the JSON Schema of a
 * workflow file generated from the zod schema the loader uses; with `--check`, exits 1 when the
 * shipped file differs from what would be written.
 *
 * @module
 */
import { type CommandSpec, parseCommand, usageLine } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { WORKFLOW_SCHEMA_PATH, workflowJsonSchemaText } from "../lib/workflow/json_schema.ts";

const COMMAND: CommandSpec = {
  name: "schema",
  summary: `Write ${WORKFLOW_SCHEMA_PATH}, the JSON Schema of a workflow file, from the zod schema
the loader validates with (editors read it through a JSON or YAML workflow's $schema).`,
  options: {
    check: { type: "boolean", help: "write nothing; exit 1 when the shipped file is out of date" },
  },
};

async function main(args: string[]): Promise<number> {
  const { values } = parseCommand(args, COMMAND);
  const file = new URL(`../${WORKFLOW_SCHEMA_PATH}`, import.meta.url);
  const text = workflowJsonSchemaText();
  if (values.check === true) {
    const shipped = await Deno.readTextFile(file).catch(() => "");
    if (shipped === text) return 0;
    console.error(`decibench: ${WORKFLOW_SCHEMA_PATH} is out of date; run deno task schema`);
    return 1;
  }
  await Deno.mkdir(new URL(".", file), { recursive: true });
  await Deno.writeTextFile(file, text);
  console.log(`wrote ${WORKFLOW_SCHEMA_PATH}`);
  return 0;
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
