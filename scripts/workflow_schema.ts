/**
 * `deno task schema [--check]`: writes `schemas/workflow.schema.json`, the JSON Schema of a
 * workflow file generated from the zod schema the loader uses, and `schemas/policy.schema.json`,
 * that of `policy.json`; with `--check`, exits 1 when a shipped file differs from what would be
 * written.
 *
 * @module
 */
import { type CommandSpec, parseCommand, usageLine } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { WORKFLOW_SCHEMA_PATH, workflowJsonSchemaText } from "../lib/workflow/json_schema.ts";
import { POLICY_SCHEMA_PATH, policyJsonSchemaText } from "../lib/audit/mod.ts";

const COMMAND: CommandSpec = {
  name: "schema",
  summary: `Write ${WORKFLOW_SCHEMA_PATH}, the JSON Schema of a workflow file, from the zod schema
the loader validates with (editors read it through a JSON or YAML workflow's $schema), and
${POLICY_SCHEMA_PATH}, that of a policy file.`,
  options: {
    check: { type: "boolean", help: "write nothing; exit 1 when the shipped file is out of date" },
  },
};

async function main(args: string[]): Promise<number> {
  const { values } = parseCommand(args, COMMAND);
  const shipped: [string, string][] = [
    [WORKFLOW_SCHEMA_PATH, workflowJsonSchemaText()],
    [POLICY_SCHEMA_PATH, policyJsonSchemaText()],
  ];
  let stale = 0;
  for (const [path, text] of shipped) {
    const file = new URL(`../${path}`, import.meta.url);
    if (values.check === true) {
      const current = await Deno.readTextFile(file).catch(() => "");
      if (current !== text) {
        console.error(`decibench: ${path} is out of date; run deno task schema`);
        stale++;
      }
      continue;
    }
    await Deno.mkdir(new URL(".", file), { recursive: true });
    await Deno.writeTextFile(file, text);
    console.log(`wrote ${path}`);
  }
  return stale ? 1 : 0;
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
