/**
 * `deno task gate WORKFLOW --question NAME [--threshold P] [--calibrated] [--out DIR]
 * [--base-url URL] [--model M] [--parallel N] [--limit N] [--cache] [--cache-dir DIR] [--offline]
 * [--json]`: the decision gate over a workflow's question set — one yes/no question per case,
 * one request each (through the request cache with `--cache`), `pass` when P(yes) ≥ the bar,
 * `fail` below, `undecided` when the case could not be asked. Writes
 * `gate.jsonl` and `gate.json`; with gold labels prints agreement, false-pass and false-fail
 * rates per lane with the exact one-sided 95% upper bound on the false-pass rate. Exits 1 when any
 * case is undecided.
 *
 * @module
 */
import {
  type CommandSpec,
  intFlag,
  megabytesFlag,
  numberFlag,
  parseCommand,
  pathFlag,
  stringFlag,
  urlFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { commandOf } from "../lib/invocation.ts";
import { REQUEST_OPTIONS, requestFlags } from "../lib/cli/request_flags.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import {
  DEFAULT_GATE_THRESHOLD,
  gateLaneChecks,
  gateTableData,
  PolicyChecker,
  readSavedGate,
  runGate,
} from "../lib/audit/mod.ts";
import { writeCiReports } from "../lib/report/mod.ts";
import {
  offlineParallel,
  PIPELINE_OPTIONS,
  pipelineFlags,
  reportCache,
} from "./_bench_pipeline.ts";
import { resolveRunDir, shellQuote } from "../lib/record/mod.ts";
import { resolve } from "node:path";
import { QuestionSetError } from "../lib/dataset/mod.ts";
import {
  checkGatePolicy,
  gatePolicyChecks,
  policyOutcome,
  readGatePolicy,
} from "./_gate_policy.ts";
import { table } from "../lib/report/mod.ts";
import { loadWorkflow, withEndpointLimits, WorkflowError } from "../lib/workflow/mod.ts";

const COMMAND: CommandSpec = {
  name: "gate",
  args: "WORKFLOW --question NAME | --resume DIR",
  summary:
    `The decision gate over a workflow's question set: one yes/no question per case, one request
each; pass when P(yes) ≥ the bar, fail below, undecided when the case could not be asked (never a
pass, never a fail). Writes gate.jsonl and gate.json; with gold labels prints agreement, false-pass
and false-fail rates per lane with the exact one-sided 95% upper bound on the false-pass rate.`,
  options: {
    question: {
      type: "string",
      value: "NAME",
      help: "the yes/no (noul) question to ask (required)",
    },
    threshold: {
      type: "string",
      value: "P",
      help: "the bar, a probability in [0, 1] (default 0.70, uncalibrated)",
    },
    calibrated: { type: "boolean", help: "mark the bar as chosen on held-out labels" },
    policy: {
      type: "string",
      value: "FILE",
      help:
        "apply a policy.json (deno task policy): its calibration and each lane's bar; pass, fail or escalate",
    },
    out: { type: "string", value: "DIR", help: "output directory (default runs/gate-<id>/)" },
    "base-url": { type: "string", value: "URL", help: "the server instead of the workflow's" },
    "max-reply-mb": {
      type: "string",
      value: "MB",
      help:
        "most MiB of a reply read after decompression (default 16); over it the case is malformed",
    },
    model: { type: "string", value: "M", help: "the model sent with each request" },
    timeout: REQUEST_OPTIONS.timeout,
    retries: REQUEST_OPTIONS.retries,
    parallel: { type: "string", value: "N", help: "requests in flight (a whole number ≥ 1)" },
    limit: { type: "string", value: "N", help: "ask only the first N selected cases (N ≥ 1)" },
    sample: {
      type: "string",
      value: "N",
      help: "ask a seeded draw of N selected cases, stratified by lane, instead of the first N",
    },
    seed: {
      type: "string",
      value: "S",
      help: "seed of the --sample draw, a whole number ≥ 0 (default the workflow's seed)",
    },
    json: { type: "boolean", help: "one JSON event per case, then a summary, on stdout" },
    ...PIPELINE_OPTIONS,
    resume: {
      type: "string",
      value: "DIR",
      help:
        "finish the gate in DIR (or its id under runs/): only its undecided cases are asked\nagain; its workflow file, question, bar and model are reused",
    },
  },
  more: `Examples:
  deno task gate examples/invoices/workflow.ts --question matches_order
  deno task gate examples/invoices/workflow.ts --question matches_order --threshold 0.6 --calibrated
  deno task gate --resume runs/gate-<id>

Exit status: 0 every case decided; 1 a case is undecided; 2 a usage, workflow or question-set
error; 130 interrupted.`,
};

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  const resumeFlag = pathFlag(values.resume, "resume");
  // A gate directory, or its id under runs/.
  const saved = resumeFlag === undefined
    ? undefined
    : await readSavedGate(await resolveRunDir(resumeFlag)).catch((error) => {
      throw error instanceof TypeError ? new UsageError(error.message) : error;
    });
  if (saved !== undefined) {
    if (values.limit !== undefined) {
      throw new UsageError(
        "Cannot use --limit with --resume: a resumed gate asks its own undecided cases; drop --limit",
      );
    }
    const out = pathFlag(values.out, "out");
    if (out !== undefined && resolve(out) !== resolve(saved.dir)) {
      throw new UsageError(
        `Cannot use --out with --resume: the gate is written back to "${saved.dir}"; drop --out`,
      );
    }
  }
  const recordedFile = saved?.run.workflow_file;
  if (positionals.length > 1 || (positionals.length === 0 && recordedFile === undefined)) {
    throw new UsageError(`Cannot gate: expected one workflow file, got ${positionals.length}`);
  }
  const policyFile = pathFlag(values.policy, "policy");
  const gatePolicy = policyFile !== undefined
    ? await readGatePolicy(policyFile, values)
    : undefined;
  const question = stringFlag(values.question) ?? gatePolicy?.policy.question ??
    saved?.run.question;
  if (question === undefined || question === "") {
    throw new UsageError("Cannot gate: --question NAME is required (a yes/no question)");
  }
  const threshold = numberFlag(values.threshold, "threshold", 0) ?? saved?.run.threshold;
  if (threshold !== undefined && threshold > 1) {
    throw new UsageError(
      `Cannot use --threshold "${values.threshold}": it is too large; give a probability in [0, 1]`,
    );
  }
  const file = positionals[0] ?? recordedFile as string;
  const workflow = withEndpointLimits(await loadWorkflow(file), {
    maxReplyBytes: megabytesFlag(values["max-reply-mb"], "max-reply-mb"),
    ...requestFlags(values),
  });
  if (gatePolicy) checkGatePolicy(gatePolicy, workflow, question);
  const json = values.json === true;
  const outDir = pathFlag(values.out, "out");
  const baseUrl = urlFlag(values["base-url"], "base-url");
  const model = stringFlag(values.model) ?? saved?.run.model;
  // The request cache and CI flags, read as bench reads them.
  const pipeline = pipelineFlags(values, workflow);
  const parallel = offlineParallel(
    pipeline.cache,
    intFlag(values.parallel, "parallel", 1),
    workflow.parallel,
  );
  const limit = intFlag(values.limit, "limit", 1);
  const ci = { junit: pipeline.junit, github: pipeline.github };
  const sampleSize = intFlag(values.sample, "sample", 1);
  const seed = intFlag(values.seed, "seed", 0);
  if (sampleSize !== undefined && limit !== undefined) {
    throw new UsageError(
      "Cannot use --limit with --sample: --limit asks the first N cases, --sample a seeded draw of N; give one",
    );
  }
  if (seed !== undefined && sampleSize === undefined) {
    throw new UsageError("Cannot use --seed without --sample: it seeds the draw; add --sample N");
  }
  if (saved !== undefined && sampleSize !== undefined) {
    throw new UsageError(
      "Cannot use --sample with --resume: a resumed gate asks its own undecided cases; drop --sample",
    );
  }
  using interrupt = interruptOnSignals("no new requests; cases not asked stay undecided");
  const result = await runGate(workflow, question, {
    ...(threshold !== undefined ? { threshold } : {}),
    calibrated: values.calibrated === true || saved?.run.calibrated === true,
    workflowFile: file,
    ...(saved !== undefined ? { resume: saved } : {}),
    ...(outDir !== undefined ? { outDir } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(typeof parallel === "number" ? { parallel } : {}),
    ...(pipeline.cache !== undefined ? { cache: pipeline.cache } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(gatePolicy ? { policy: gatePolicy } : {}),
    ...(sampleSize !== undefined
      ? { sample: { size: sampleSize, seed: seed ?? workflow.seed } }
      : {}),
    signal: interrupt.signal,
    // A workflow without parallel: what the server's slots gave, on stderr.
    onParallel: (choice) => console.error(choice.message),
    ...(json
      ? { onRecord: (record) => console.log(JSON.stringify({ event: "gate", ...record })) }
      : {}),
  });
  const { run } = result;
  if (json) {
    console.log(JSON.stringify({ event: "gate_summary", dir: result.dir, ...run }));
  } else {
    const bar = run.threshold.toFixed(2);
    console.log(
      `gate ${run.workflow} · question ${run.question} · ${run.endpoint} · model ${run.model}`,
    );
    console.log(
      run.policy
        ? `policy ${run.policy.file} (${run.policy.objective}, α ${run.policy.alpha}, δ ${run.policy.delta}, sha256 ${
          run.policy.sha256.slice(0, 12)
        }, chosen on run ${run.policy.source_run}${
          run.policy.new_cases ? "; these cases are new" : ""
        }): each lane's bar on the calibrated P(yes); ${run.cases} cases, ${run.undecided} undecided\n`
        : `bar P(yes) ≥ ${bar} (${
          run.calibrated
            ? "marked calibrated"
            : run.threshold === DEFAULT_GATE_THRESHOLD
            ? "the default, uncalibrated"
            : "uncalibrated"
        }); ${run.cases} cases, ${run.undecided} undecided${
          run.resumed !== undefined ? ` (resumed: ${run.resumed} undecided cases asked again)` : ""
        }\n`,
    );
    const data = gateTableData(run.lanes);
    console.log(table(data.header, data.rows));
    console.log(
      "\nRates cover decided cases with a gold label. A false pass is a case labelled no that passes; " +
        "false pass ≤ is the one-sided 95% exact (Clopper–Pearson) upper bound on its rate. " +
        "Undecided cases are never a pass or a fail.",
    );
    if (run.fatal) console.error(`decibench: ${run.fatal}`);
    console.log(`\nverdicts    ${result.dir}/gate.jsonl`);
  }
  // One pass over gate.jsonl: the cache's misses, and what a policy's re-check needs.
  const misses: string[] = [];
  const checker = gatePolicy ? new PolicyChecker(gatePolicy.policy) : undefined;
  for await (const r of result.records()) {
    if (r.error?.kind === "cache_miss") misses.push(r.id);
    checker?.add(r);
  }
  await writeCiReports([{
    name: `decibench gate ${run.workflow} ${run.question}`,
    checks: [
      ...gateLaneChecks(run.lanes, run.threshold),
      ...(gatePolicy && checker ? gatePolicyChecks(gatePolicy, checker) : []),
    ],
  }], {
    ...ci,
    file,
    // With --json, stdout holds JSON events only: the annotations go to stderr.
    ...(json ? { print: (line: string) => console.error(line) } : {}),
    title: `decibench gate ${run.workflow} · question ${run.question}`,
    lines: [
      `${run.cases} cases, ${run.undecided} undecided · ${run.endpoint} · model ${run.model}`,
    ],
  });
  reportCache(pipeline.cache, [{ endpoint: null, cases: misses }]);
  const broken = gatePolicy && checker ? policyOutcome(gatePolicy, checker, json) : [];
  if (run.undecided > 0) {
    console.error(
      `decibench: ${run.undecided} of ${run.cases} cases are undecided (see "error" in gate.jsonl); finish it when the endpoint answers with: ${
        commandOf("gate")
      } --resume ${shellQuote(result.dir)}`,
    );
    return interrupt.signal.aborted ? 130 : 1;
  }
  return broken.length ? 1 : 0;
}

if (import.meta.main) {
  await runMain(main, {
    usage: usageLine(COMMAND),
    usageErrors: [WorkflowError, QuestionSetError],
  });
}
