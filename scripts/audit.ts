/**
 * `deno task audit WORKFLOW [--base-url URL] [--model M] [--out DIR] [--set recommended|all]
 * [--resume DIR] [--transcripts FILE] [--json]`: ask a judge one versioned question per check
 * and transcript item, one request at a time, and compare with the deterministic verdicts.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import { parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { type AuditEvent, type AuditSet, OUTCOME_ORDER, runAudit } from "../lib/audit/mod.ts";
import { loadWorkflow, WorkflowError } from "../lib/workflow/mod.ts";

const USAGE =
  "usage: deno task audit WORKFLOW [--base-url URL] [--model M] [--out DIR] [--set recommended|all] [--resume DIR] [--transcripts FILE] [--json]";

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    "base-url": { type: "string" },
    model: { type: "string" },
    out: { type: "string" },
    set: { type: "string" },
    resume: { type: "string" },
    transcripts: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(`expected one workflow file, got ${positionals.length}`);
  }
  const file = positionals[0] as string;
  const set = stringFlag(values.set);
  if (set !== undefined && set !== "recommended" && set !== "all") {
    throw new UsageError(`--set must be "recommended" or "all", got "${set}"`);
  }
  const out = stringFlag(values.out);
  const resume = stringFlag(values.resume);
  if (out !== undefined && resume !== undefined && out !== resume) {
    throw new UsageError("--resume writes back to the audit it resumes; drop --out");
  }
  const json = values.json === true;
  const workflow = await loadWorkflow(file);
  const baseUrl = stringFlag(values["base-url"]);
  const model = stringFlag(values.model);
  const transcripts = stringFlag(values.transcripts);

  using interrupt = interruptOnSignals("stopping after the request in flight");
  const onEvent = (event: AuditEvent) => {
    if (json) {
      console.log(JSON.stringify(event));
      return;
    }
    if (event.event === "audit_start") {
      console.error(`  asking ${event.model} @ ${event.judge}: ${event.item} / ${event.check_id}`);
    } else if (event.event === "audit_result") {
      const what = event.outcome === "unavailable"
        ? `unavailable (${event.error_kind})`
        : event.choice === null
        ? `${event.outcome} (tied)`
        : `${event.outcome}: ${event.choice} ${event.probability?.toFixed(2) ?? ""}`;
      console.log(
        `${event.check_id.padEnd(22)} ${event.item.padEnd(28)} ${what}${
          event.saved ? "  [saved audit]" : ""
        }`,
      );
    }
  };
  const result = await runAudit(workflow, {
    workflowFile: file,
    baseUrl,
    model,
    ...(set !== undefined ? { set: set as AuditSet } : {}),
    outDir: out,
    resume,
    transcripts,
    signal: interrupt.signal,
    onEvent,
  });
  if (!json) {
    const { meta } = result;
    console.log(
      `\naudit ${meta.workflow}: judge ${meta.judge.model} @ ${meta.judge.endpoint}, set ${meta.set}, ${result.records.length} audits`,
    );
    for (const outcome of OUTCOME_ORDER) {
      console.log(`  ${outcome.padEnd(12)} ${meta.counts[outcome]}`);
    }
    console.log(
      "Disagreements are review candidates, not corrected verdicts; the judge is uncalibrated and injections can steer it.",
    );
    console.log(`report      ${result.dir}/audit.md`);
  }
  return result.meta.status === "interrupted" ? 130 : 0;
}

if (import.meta.main) await runMain(main, { usage: USAGE, usageErrors: [WorkflowError] });
