/**
 * Measures the `prior` and `fitted` predictors on the Typed Decisions TEST split in process
 * (no server), by type, workflow and (with `--questions`) question, beside the dataset card's
 * reference rows. Both are fitted on the train split only.
 *
 * Usage: `deno run -A scripts/eval_model.ts [--questions]`
 *
 * @module
 */
import { type CommandSpec, HelpRequested, parseCommand, usageLine } from "../lib/cli/args.ts";
import { loadDataset } from "../lib/dataset/mod.ts";
import {
  type CasePredictor,
  type EvaluationFigures,
  figuresBy,
  figuresOf,
  scoreCases,
} from "../lib/model/evaluate.ts";
import { loadModel } from "../lib/model/model_file.ts";
import { fittedPredictor } from "../lib/server/predictors/fitted.ts";
import { priorPredictor } from "../lib/server/predictors/prior.ts";

const HEADER = `${"group".padEnd(44)}     n  acc    acc(ties)  KL     Brier`;

function line(name: string, f: EvaluationFigures): string {
  return `${name.padEnd(44)} ${String(f.n).padStart(5)}  ${f.accuracy.toFixed(3)}  ${
    f.accuracyTieAware.toFixed(3)
  }      ${f.kl.toFixed(3)}  ${f.brier.toFixed(3)}`;
}

function report(name: string, predictor: CasePredictor, questions: boolean): void {
  const { cases } = testSplit;
  const started = performance.now();
  const decisions = scoreCases(predictor, cases);
  const perCaseUs = ((performance.now() - started) * 1000) / cases.length;
  console.log(`\n## ${name} on the test split (${cases.length} cases)`);
  console.log(HEADER);
  console.log(line("all", figuresOf(decisions)));
  for (const key of ["type", "workflow", ...(questions ? ["question"] as const : [])] as const) {
    for (const [group, figures] of figuresBy(decisions, key)) console.log(line(group, figures));
  }
  console.log(`(predict and score: ${perCaseUs.toFixed(0)} µs per case)`);
}

function predictLatency(predictor: CasePredictor): number {
  const { cases } = testSplit;
  for (const c of cases) predictor.predict(c.state, c.questions);
  const rounds = 20;
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) predictor.predict(c.state, c.questions);
  }
  return ((performance.now() - started) * 1000) / (rounds * cases.length);
}

const COMMAND: CommandSpec = {
  name: "eval_model",
  command: "deno run -A scripts/eval_model.ts",
  summary: "Measure the prior and fitted predictors on the Typed Decisions test split in process.",
  options: { questions: { type: "boolean", help: "also print one row per question" } },
};
let parsed;
try {
  parsed = parseCommand(Deno.args, COMMAND);
} catch (error) {
  if (error instanceof HelpRequested) {
    console.log(error.text);
    Deno.exit(0);
  }
  console.error(`decibench: ${(error as Error).message}\n${usageLine(COMMAND)}`);
  Deno.exit(2);
}
const values = { questions: parsed.values.questions === true };
const train = await loadDataset({ split: "train" });
const testSplit = await loadDataset({ split: "test" });
const prior = priorPredictor(train.cases);
const fitted = fittedPredictor(await loadModel());

console.log(
  "Reference rows (dataset card, accuracy / KL / Brier): Uniform acc n/a / 0.444 / 0.238; Prior 0.470 / 0.347 / 0.189; an independent scorer's Prior 0.4865 (ties counted correct) / 0.327 / 0.181; MiniLM-L6 0.587; ModernBERT-base 0.646; teacher self-agreement 0.735",
);
report("prior (mean train gold distribution)", prior, values.questions);
report("fitted (softmax regression, fitted on train)", fitted, values.questions);
console.log(
  `\nPredict time per case (5 questions, warm): prior ${
    predictLatency(prior).toFixed(1)
  } µs, fitted ${predictLatency(fitted).toFixed(1)} µs`,
);
