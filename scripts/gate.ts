/**
 * `deno task gate WORKFLOW --question NAME [--threshold P] [--calibrated] [--out DIR]
 * [--base-url URL] [--model M] [--parallel N] [--limit N] [--json]`: the decision gate over a
 * workflow's question set — one yes/no question per case, one request each, `pass` when
 * P(yes) ≥ the bar, `fail` below, `undecided` when the case could not be asked. Writes
 * `gate.jsonl` and `gate.json`; with gold labels prints agreement, false-pass and false-fail
 * rates per lane with the exact one-sided 95% upper bound on the false-pass rate. Exits 1 when any
 * case is undecided.
 *
 * @module
 */
import { intFlag, numberFlag, parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import { DEFAULT_GATE_THRESHOLD, gateTableData, runGate } from "../lib/audit/mod.ts";
import { QuestionSetError } from "../lib/dataset/mod.ts";
import { table } from "../lib/report/mod.ts";
import { loadWorkflow, WorkflowError } from "../lib/workflow/mod.ts";

const USAGE =
  "usage: deno task gate WORKFLOW --question NAME [--threshold P] [--calibrated] [--out DIR] [--base-url URL] [--model M] [--parallel N] [--limit N] [--json]";

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    question: { type: "string" },
    threshold: { type: "string" },
    calibrated: { type: "boolean" },
    out: { type: "string" },
    "base-url": { type: "string" },
    model: { type: "string" },
    parallel: { type: "string" },
    limit: { type: "string" },
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
  const question = stringFlag(values.question);
  if (question === undefined) {
    throw new UsageError("--question NAME is required (a yes/no question)");
  }
  const threshold = numberFlag(values.threshold, "threshold", 0);
  if (threshold !== undefined && threshold > 1) {
    throw new UsageError(`--threshold must be a probability in [0, 1], got "${values.threshold}"`);
  }
  const file = positionals[0] as string;
  const workflow = await loadWorkflow(file);
  const json = values.json === true;
  const outDir = stringFlag(values.out);
  const baseUrl = stringFlag(values["base-url"]);
  const model = stringFlag(values.model);
  const parallel = intFlag(values.parallel, "parallel", 1);
  const limit = intFlag(values.limit, "limit", 1);
  using interrupt = interruptOnSignals("no new requests; cases not asked stay undecided");
  const result = await runGate(workflow, question, {
    ...(threshold !== undefined ? { threshold } : {}),
    calibrated: values.calibrated === true,
    ...(outDir !== undefined ? { outDir } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(parallel !== undefined ? { parallel } : {}),
    ...(limit !== undefined ? { limit } : {}),
    signal: interrupt.signal,
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
      `bar P(yes) ≥ ${bar} (${
        run.calibrated
          ? "marked calibrated"
          : run.threshold === DEFAULT_GATE_THRESHOLD
          ? "the default, uncalibrated"
          : "uncalibrated"
      }); ${run.cases} cases, ${run.undecided} undecided\n`,
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
  if (run.undecided > 0) {
    console.error(
      `decibench: ${run.undecided} of ${run.cases} cases are undecided (see "error" in gate.jsonl); run the gate again when the endpoint answers`,
    );
    return interrupt.signal.aborted ? 130 : 1;
  }
  return 0;
}

if (import.meta.main) {
  await runMain(main, { usage: USAGE, usageErrors: [WorkflowError, QuestionSetError] });
}
