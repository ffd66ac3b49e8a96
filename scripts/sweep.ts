/**
 * `deno task sweep RUN | --labels FILE [--seed N] [--curve] [--markdown] [--json]`: sweep
 * pass bars over labelled yes/no items — a stored run's `noul` decisions (P(yes) against the gold
 * label; a Typed Decisions run or a run of a workflow's own question set, lane `lane/question`,
 * unlabelled rows left out) or a JSONL file of `{id, lane, p_yes, label}` — choosing each lane's
 * bar on one seeded half and scoring it on the other.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { join } from "node:path";
import {
  type CommandSpec,
  intFlag,
  parseCommand,
  pathFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import {
  curveTable,
  itemsFromDecisionStream,
  type LabelledItem,
  readLabels,
  sweepTable,
  thresholdSweep,
} from "../lib/audit/mod.ts";
import { type DecisionRecord, readDecisionLines, resolveRunDir } from "../lib/record/mod.ts";

async function* decisionStream(path: string): AsyncGenerator<DecisionRecord> {
  for await (const { record } of readDecisionLines(path)) yield record;
}

const COMMAND: CommandSpec = {
  name: "sweep",
  args: "RUN | --labels FILE",
  summary:
    `Sweep pass bars over labelled yes/no items — a stored run's noul decisions (P(yes) against the
gold label; a Typed Decisions run or a run of your own question set, lanes workflow/question or
lane/question, unlabelled rows left out) or a JSONL file of {"id", "lane", "p_yes", "label"} lines —
choosing each lane's bar on one seeded half and scoring it on the other. RUN is a run directory or
a run id under runs/.`,
  options: {
    labels: {
      type: "string",
      value: "FILE",
      help:
        "labelled items instead of a run (ids unique within a lane): a JSONL file of\n{id, lane, p_yes, label}, or a gate's gate.jsonl, directory or id under runs/",
    },
    seed: { type: "string", value: "N", help: "seed of the split (a whole number ≥ 0; default 0)" },
    curve: { type: "boolean", help: "print the curve at every bar (0.01 steps) instead of 0.1" },
    markdown: { type: "boolean", help: "print Markdown tables" },
    json: { type: "boolean", help: "print one JSON object" },
  },
  more: `Examples:
  deno task sweep runs/<run-id>
  deno task sweep --labels labels.jsonl --curve

Exit status: 0 printed; 2 a usage error or input that cannot be swept.`,
};

/** Input errors (a missing file, a bad line, no run there) become usage errors: exit 2. */
async function asInput<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  const labels = pathFlag(values.labels, "labels");
  if (labels === undefined && positionals.length === 0) {
    throw new UsageError(
      "Cannot sweep: give a run directory (deno task sweep runs/<run-id>) or a labels file (deno task sweep --labels FILE)",
    );
  }
  if (labels !== undefined && positionals.length > 0) {
    throw new UsageError(
      `Cannot sweep: give a run directory or --labels FILE, not both (got "${
        positionals[0]
      }" and --labels "${labels}")`,
    );
  }
  if (positionals.length > 1) {
    throw new UsageError(`Cannot sweep: expected one run directory, got ${positionals.length}`);
  }
  const seed = intFlag(values.seed, "seed", 0) ?? 0;
  let items: LabelledItem[];
  let source: string;
  let excluded = 0;
  let unlabelled = 0;
  if (labels !== undefined) {
    // A labels file, or a gate's gate.jsonl (or its directory): undecided and unlabelled verdicts
    // are left out and counted.
    ({ items, excluded, unlabelled } = await asInput(async () =>
      readLabels(await resolveRunDir(labels))
    ));
    source = labels;
  } else {
    // A run directory, or a run id under runs/ (as compare and export take it).
    const dir = await resolveRunDir(positionals[0] as string);
    // Streamed: only the labelled items are held, never the run's decisions.
    const path = join(dir, "decisions.jsonl");
    const read = await asInput(() => itemsFromDecisionStream(decisionStream(path)));
    if (read.decisions === 0) {
      throw new UsageError(
        `Cannot sweep "${dir}": no decisions.jsonl with decisions there; give a run directory such as runs/<run-id>, or a run id`,
      );
    }
    ({ items, excluded, unlabelled } = read);
    source = `${dir} (noul decisions: P(yes) = predicted.true, label = gold)`;
  }
  if (items.length === 0) {
    throw new UsageError(`Cannot sweep "${source}": it holds no answered yes/no items`);
  }
  const sweep = thresholdSweep(items, { seed });
  if (values.json === true) {
    console.log(JSON.stringify({ source, excluded, unlabelled, ...sweep }));
    return 0;
  }
  const markdown = values.markdown === true;
  console.log(
    `Threshold sweep of ${items.length} labelled yes/no items from ${source}${
      excluded
        ? `; ${excluded} ${
          labels === undefined ? "errored decisions" : "undecided verdicts"
        } excluded`
        : ""
    }${
      unlabelled
        ? `; ${unlabelled} ${
          labels === undefined ? "decisions without gold" : "verdicts without a label"
        } left out`
        : ""
    }.`,
  );
  console.log(
    `Each lane is split with seed ${seed}: the bar that maximises agreement on the selection half is chosen (ties: the highest bar), then scored on the held-out half. A pass is P(yes) ≥ bar; a false pass is a no-labelled item that passes. FP ≤ is a one-sided ${
      Math.round(sweep.confidence * 100)
    }% exact (Clopper–Pearson) upper bound.\n`,
  );
  console.log(sweepTable(sweep, { markdown }));
  const step = values.curve === true ? 0.01 : 0.1;
  for (const lane of [...sweep.lanes, sweep.overall]) {
    console.log(`\ncurve: ${lane.lane}${lane.chosen === null ? "" : ` (◀ chosen bar)`}`);
    console.log(curveTable(lane, { step, markdown }));
  }
  return 0;
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
