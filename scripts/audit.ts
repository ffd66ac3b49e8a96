/**
 * `deno task audit WORKFLOW [--base-url URL] [--model M] [--out DIR] [--set recommended|all]
 * [--resume DIR] [--transcripts FILE] [--json]`: ask a judge one versioned question per check
 * and transcript item, one request at a time, and compare with the deterministic verdicts.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import {
  type CommandSpec,
  parseCommand,
  pathFlag,
  stringFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import {
  type AuditEvent,
  type AuditSet,
  judgeFailed,
  OUTCOME_ORDER,
  runAudit,
} from "../lib/audit/mod.ts";
import { resolveRunDir, RunDirError } from "../lib/record/mod.ts";
import { loadWorkflow, WorkflowError } from "../lib/workflow/mod.ts";

const COMMAND: CommandSpec = {
  name: "audit",
  args: "WORKFLOW",
  summary:
    `Ask a judge (a decision model) one versioned question per check and transcript item, one request
at a time, and compare its answer with the deterministic verdicts in the transcript file. A
disagreement is a review candidate, not a corrected verdict.`,
  options: {
    "base-url": {
      type: "string",
      value: "URL",
      help: "the judge's server instead of the workflow's",
    },
    model: { type: "string", value: "M", help: "the judge model" },
    out: {
      type: "string",
      value: "DIR",
      help: "audit directory (default runs/audit-<id>/); refused when it holds an audit",
    },
    set: { type: "string", value: "SET", help: "recommended (default) or all" },
    resume: {
      type: "string",
      value: "DIR",
      help: "finish a saved audit (a directory or its id under runs/), reusing matching verdicts",
    },
    transcripts: {
      type: "string",
      value: "FILE",
      help: "transcript JSONL instead of the workflow's (relative to the working directory)",
    },
    json: { type: "boolean", help: "one JSON event per line on stdout" },
  },
  more: `Exit status: 0 completed; 2 a usage, workflow, transcript or audit-directory error;
130 interrupted (Ctrl+C stops after the request in flight; --resume finishes it).`,
};

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length !== 1) {
    throw new UsageError(`Cannot audit: expected one workflow file, got ${positionals.length}`);
  }
  const file = positionals[0] as string;
  const set = stringFlag(values.set);
  if (set !== undefined && set !== "recommended" && set !== "all") {
    throw new UsageError(`Cannot use --set "${set}": give recommended or all`);
  }
  const out = pathFlag(values.out, "out");
  const resumeFlag = pathFlag(values.resume, "resume");
  // A saved audit's directory, or its id under runs/.
  const resume = resumeFlag === undefined ? undefined : await resolveRunDir(resumeFlag);
  if (out !== undefined && resume !== undefined && out !== resume) {
    throw new UsageError(
      "Cannot use --out with --resume: the audit is written back where it was; drop --out",
    );
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
      `\naudit of workflow "${meta.workflow}": judge ${meta.judge.model} @ ${meta.judge.endpoint}, set ${meta.set}, ${result.records.length} audits`,
    );
    for (const outcome of OUTCOME_ORDER) {
      console.log(`  ${outcome.padEnd(12)} ${meta.counts[outcome]}`);
    }
    console.log(
      "Disagreements are review candidates, not corrected verdicts; the judge is uncalibrated and injections can steer it.",
    );
    console.log(`report      ${result.dir}/audit.md`);
  }
  const { meta } = result;
  if (meta.stopped) console.error(`decibench: ${meta.stopped}`);
  else if (meta.status === "incomplete") {
    // Some judge calls failed: say how many, of which kinds, one example, and how to finish.
    const failed = result.records.filter(judgeFailed);
    const kinds = new Map<string, number>();
    for (const r of failed) kinds.set(r.error_kind ?? "", (kinds.get(r.error_kind ?? "") ?? 0) + 1);
    console.error(
      `decibench: audit incomplete: ${failed.length} of ${result.records.length} audits unavailable from the judge (${
        [...kinds].map(([k, n]) => `${k} ${n}`).join(", ")
      })${
        result.firstError ? `, e.g. ${result.firstError}` : ""
      }; check the judge, then finish it with --resume "${result.dir}"`,
    );
  }
  return meta.status === "interrupted" ? 130 : meta.status === "completed" ? 0 : 1;
}

if (import.meta.main) {
  // runAudit reports bad input (no audits field, a refused judge URL, a bad transcript line, a
  // resume that does not match) as TypeError or SyntaxError: the user's to fix, exit 2.
  await runMain(main, {
    usage: usageLine(COMMAND),
    usageErrors: [WorkflowError, RunDirError, TypeError, SyntaxError],
  });
}
