/**
 * `deno task policy RUN --question Q [--objective false-pass|selective-risk|cost] [--alpha A]
 * [--delta D] [--calibrate temperature|platt|isotonic|none] [--per-lane] [--costs FILE]
 * [--split F,S,H]
 * [--seed N] [--out FILE] [--json]`: chooses a decision policy over a completed labelled run (no
 * request is sent) and writes `policy.json`, which `deno task gate --policy` applies.
 *
 * @module
 */
import { parse as parseYaml } from "yaml";
import {
  type CommandSpec,
  intFlag,
  parseCommand,
  pathFlag,
  stringFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import {
  checkCosts,
  choosePolicy,
  type Policy,
  POLICY_OBJECTIVES,
  type PolicyItem,
  type PolicyObjective,
} from "../lib/audit/mod.ts";
import { optionsOf, type Question, type QuestionType, wireQuestion } from "../lib/dataset/mod.ts";
import { findRun, writeAtomic } from "../lib/record/mod.ts";
import { RECALIBRATION_METHODS } from "../lib/metrics/mod.ts";
import { table } from "../lib/report/mod.ts";

const COMMAND: CommandSpec = {
  name: "policy",
  args: "RUN --question NAME",
  summary:
    `Choose a decision policy over a completed labelled run (a run directory or id; no request is
sent): the question's labelled answers are split (seeded, by lane) into fit, select and held-out
parts; a calibration is fitted on the first, each lane's bar is chosen on the second by Learn then
Test with a stated guarantee, and both are reported on the third. Writes policy.json for
deno task gate --policy.`,
  options: {
    question: { type: "string", value: "NAME", help: "the question to decide (required)" },
    objective: {
      type: "string",
      value: "O",
      help: "false-pass (yes/no; default), selective-risk or cost",
    },
    alpha: { type: "string", value: "A", help: "the rate to keep below, in (0, 1) (default 0.05)" },
    delta: {
      type: "string",
      value: "D",
      help: "the chance the guarantee fails, in (0, 1), split over lanes (default 0.05)",
    },
    calibrate: {
      type: "string",
      value: "M",
      help: "temperature (default), platt, isotonic (yes/no) or none",
    },
    "per-lane": {
      type: "boolean",
      help: "fit the calibration per lane too, on each lane's own fit part",
    },
    costs: {
      type: "string",
      value: "FILE",
      help: "cost: JSON or YAML of gold option → {action: cost}, actions the options and escalate",
    },
    split: {
      type: "string",
      value: "F,S,H",
      help: "fit, select and held-out shares of each lane's labelled cases (default 1,1,1)",
    },
    seed: { type: "string", value: "N", help: "seed of the split and intervals (default 0)" },
    out: { type: "string", value: "FILE", help: "where to write the policy (default policy.json)" },
    json: { type: "boolean", help: "print the policy as JSON instead of the tables" },
  },
  more: `Examples:
  deno task policy runs/<run-id> --question urgent
  deno task policy runs/<run-id> --question urgent --alpha 0.02 --calibrate isotonic --out urgent.policy.json
  deno task policy runs/<run-id> --question topic --objective selective-risk --alpha 0.1

Exit status: 0 written; 2 a usage error, a run without labels for the question, or bad costs.`,
};

function ratioFlag(value: unknown): [number, number, number] | undefined {
  if (value === undefined) return undefined;
  const parts = String(value).split(",").map((p) => Number(p.trim()));
  if (
    parts.length !== 3 || parts.some((p) => !Number.isFinite(p) || p < 0) ||
    !((parts[1] as number) > 0)
  ) {
    throw new UsageError(
      `Cannot use --split "${value}": give three non-negative numbers fit,select,heldout with select > 0, e.g. 1,1,1`,
    );
  }
  return parts as [number, number, number];
}

function unitFlag(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (String(value).trim() === "" || !(n > 0 && n < 1)) {
    throw new UsageError(`Cannot use --${name} "${value}": give a number in (0, 1), e.g. 0.05`);
  }
  return n;
}

async function readCosts(
  path: string,
  options: readonly string[],
): Promise<Record<string, Record<string, number>>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Cannot read costs "${path}": file not found`);
    }
    throw error;
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new UsageError(
      `Cannot read costs "${path}": it is not JSON or YAML (${(error as Error).message})`,
    );
  }
  try {
    checkCosts(value, options, path);
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
  return value;
}

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

function figure(value: number | null, interval: [number, number] | null): string {
  if (value === null) return "n/a";
  return interval
    ? `${value.toFixed(3)} [${interval[0].toFixed(3)}, ${interval[1].toFixed(3)}]`
    : value.toFixed(3);
}

/** The policy's lanes as a table. */
function laneTable(policy: Policy): string {
  const event = policy.objective === "false-pass" ? "false passes" : "wrong answered";
  const rows = Object.entries(policy.lanes).map(([lane, l]) => [
    lane,
    policy.objective === "cost"
      ? "n/a"
      : l.certified
      ? "yes"
      : l.selectN < (l.neededSelectN ?? 0)
      ? `no (needs ${l.neededSelectN})`
      : "no",
    l.threshold === null ? "escalate" : String(Number(l.threshold.toFixed(5))),
    l.selectFailures === null ? `–/${l.selectN}` : `${l.selectFailures}/${l.selectN}`,
    String(l.heldout.n),
    l.heldout.events === null || !l.heldout.trials
      ? "n/a"
      : `${percent(l.heldout.rate)} (${l.heldout.events}/${l.heldout.trials})`,
    percent(l.heldout.upper95),
    percent(l.heldout.coverage),
    ...(policy.objective === "false-pass" ? [percent(l.heldout.passRate)] : []),
    ...(policy.objective === "cost"
      ? [
        figure(l.heldout.expectedCost?.value ?? null, l.heldout.expectedCost?.interval ?? null),
        figure(l.heldout.realisedCost?.value ?? null, l.heldout.realisedCost?.interval ?? null),
      ]
      : []),
  ]);
  return table([
    "lane",
    "certified",
    "bar",
    `select ${event}`,
    "held-out n",
    policy.objective === "false-pass" ? "false-pass rate" : "error (answered)",
    "≤ (95%)",
    "coverage",
    ...(policy.objective === "false-pass" ? ["pass rate"] : []),
    ...(policy.objective === "cost" ? ["expected cost", "realised cost"] : []),
  ], rows);
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length !== 1) {
    throw new UsageError(
      `Cannot choose a policy: expected one run (a directory or id), got ${positionals.length}`,
    );
  }
  const question = stringFlag(values.question);
  if (question === undefined || question === "") {
    throw new UsageError("Cannot choose a policy: --question NAME is required");
  }
  const objective = (stringFlag(values.objective) ?? "false-pass") as PolicyObjective;
  if (!POLICY_OBJECTIVES.includes(objective)) {
    throw new UsageError(
      `Cannot use --objective "${objective}": give one of ${POLICY_OBJECTIVES.join(", ")}`,
    );
  }
  const alpha = unitFlag(values.alpha, "alpha", 0.05);
  const delta = unitFlag(values.delta, "delta", 0.05);
  const calibrate = stringFlag(values.calibrate) ?? "temperature";
  if (calibrate !== "none" && !(RECALIBRATION_METHODS as readonly string[]).includes(calibrate)) {
    throw new UsageError(
      `Cannot use --calibrate "${calibrate}": give one of ${
        RECALIBRATION_METHODS.join(", ")
      }, none`,
    );
  }
  const split = ratioFlag(values.split);
  const seed = intFlag(values.seed, "seed", 0) ?? 0;
  const costsPath = pathFlag(values.costs, "costs");
  if (objective === "cost" && costsPath === undefined) {
    throw new UsageError("Cannot choose a cost policy: --costs FILE is required");
  }
  if (objective !== "cost" && costsPath !== undefined) {
    throw new UsageError(
      `Cannot use --costs with --objective ${objective}: costs set the cost objective (--objective cost)`,
    );
  }
  const out = pathFlag(values.out, "out") ?? "policy.json";
  const arg = positionals[0] as string;
  let opened;
  try {
    opened = await findRun(arg);
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof TypeError ||
      error instanceof SyntaxError
    ) throw new UsageError(error.message);
    throw error;
  }
  const run = opened.run;
  if (run.status !== "completed") {
    throw new UsageError(
      `Cannot choose a policy from run "${run.id}": it is ${run.status}, not completed; finish it with deno task bench --resume ${opened.dir}`,
    );
  }
  // One question's labelled answers are held (the split needs them all); other decisions are not.
  const items: PolicyItem[] = [];
  const names = new Set<string>();
  let type: QuestionType | undefined;
  let keys: string[] | undefined;
  let unlabelled = 0;
  let errors = 0;
  try {
    for await (const d of opened.decisions()) {
      names.add(d.question);
      if (d.question !== question) continue;
      type = d.type;
      if (d.error !== null || d.predicted === null) {
        errors++;
        continue;
      }
      keys ??= Object.keys(d.predicted);
      if (d.gold === null) {
        unlabelled++;
        continue;
      }
      items.push({ id: d.case, lane: d.workflow, predicted: d.predicted, gold: d.gold });
    }
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
  if (type === undefined) {
    throw new UsageError(
      `Cannot choose a policy from run "${run.id}": no decision asks question "${question}" (questions: ${
        [...names].join(", ") || "none"
      })`,
    );
  }
  if (items.length === 0) {
    throw new UsageError(
      `Cannot choose a policy from run "${run.id}": question "${question}" has no labelled answers (${unlabelled} unlabelled, ${errors} errors); a policy needs gold labels for it`,
    );
  }
  const set = run.spec.question_set;
  const written = set?.kind === "file" ? set.questions[question] : undefined;
  const definition: Question | null = written ? wireQuestion(written) : null;
  const options = definition
    ? optionsOf(definition)
    : type === "noul"
    ? ["true", "false"]
    : keys ?? [];
  const costs = costsPath !== undefined ? await readCosts(costsPath, options) : undefined;
  let policy: Policy;
  try {
    policy = choosePolicy(items, {
      question,
      type,
      options,
      definition: definition as Record<string, unknown> | null,
      objective,
      alpha,
      delta,
      calibrate,
      perLane: values["per-lane"] === true,
      ...(costs !== undefined ? { costs } : {}),
      ...(split !== undefined ? { split } : {}),
      seed,
      source: {
        run: run.id,
        fingerprint: run.spec.fingerprint,
        questionSetSha256: set?.kind === "file" ? set.sha256 : null,
        questionsSha256: run.spec.questions_sha256,
      },
      left: { unlabelled, errors },
    });
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
  await writeAtomic(out, JSON.stringify(policy, null, 2) + "\n");
  if (values.json === true) {
    console.log(JSON.stringify(policy));
    return 0;
  }
  const c = policy.calibration;
  console.log(
    `policy ${question} (${type}) · objective ${objective} · α ${alpha} · δ ${delta} · run ${run.id}`,
  );
  console.log(
    `split ${
      policy.split.ratio.join(":")
    } seed ${seed}: fit ${policy.split.fit}, select ${policy.split.select}, held-out ${policy.split.heldout} labelled cases (${unlabelled} unlabelled and ${errors} errored left out)`,
  );
  console.log(
    `calibration ${c.method}${c.method === "none" ? "" : ` fitted on ${c.fitN}`}${
      c.lanes ? ` (and per lane: ${Object.keys(c.lanes).length} lanes)` : ""
    }; held-out ECE ${figure(c.heldout.ece.before.value, c.heldout.ece.before.interval)} → ${
      figure(c.heldout.ece.after.value, c.heldout.ece.after.interval)
    }, NLL ${figure(c.heldout.nll.before.value, null)} → ${
      figure(c.heldout.nll.after.value, null)
    }, Brier ${figure(c.heldout.brier.before.value, null)} → ${
      figure(c.heldout.brier.after.value, null)
    }\n`,
  );
  console.log(laneTable(policy));
  console.log(`\n${policy.guarantee}.`);
  const uncertified = Object.entries(policy.lanes).filter(([, l]) =>
    policy.objective !== "cost" && !l.certified
  );
  for (const [lane, l] of uncertified) {
    const what = policy.objective === "false-pass" ? 'gold "no" cases' : "answered cases";
    const event = policy.objective === "false-pass" ? "false pass" : "wrong answer";
    const need = l.neededSelectN ?? 0;
    console.log(
      l.selectN < need
        ? `lane ${lane}: no bar certified; its cases escalate. Certifying any bar needs at least ${need} ${what} in the select part with no ${event} (it had ${l.selectN}); label more of its cases`
        : `lane ${lane}: no bar certified; its cases escalate. Its select part had ${l.selectN} ${
          policy.objective === "false-pass" ? what : "cases"
        }, but even the strictest bar tested had too many ${event}s for α = ${policy.alpha}; the model is not good enough on this lane at this α`,
    );
  }
  console.log(`\npolicy      ${out}`);
  return 0;
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
