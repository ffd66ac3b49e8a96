/**
 * `deno task sweep RUN_DIR | --labels FILE [--seed N] [--curve] [--markdown] [--json]`: sweep
 * pass bars over labelled yes/no items — a stored run's `noul` decisions (P(yes) against the gold
 * label; a Typed Decisions run or a run of a workflow's own question set, lane `lane/question`,
 * unlabelled rows left out) or a JSONL file of `{id, lane, p_yes, label}` — choosing each lane's
 * bar on one seeded half and scoring it on the other.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { join } from "node:path";
import { intFlag, parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import {
  curveTable,
  itemsFromDecisions,
  type LabelledItem,
  readLabelledItems,
  sweepTable,
  thresholdSweep,
} from "../lib/audit/mod.ts";
import { readDecisions } from "../lib/record/recorder.ts";

const USAGE =
  "usage: deno task sweep RUN_DIR | --labels FILE [--seed N] [--curve] [--markdown] [--json]";

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    labels: { type: "string" },
    seed: { type: "string" },
    curve: { type: "boolean" },
    markdown: { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const labels = stringFlag(values.labels);
  if ((labels === undefined) === (positionals.length === 0) || positionals.length > 1) {
    throw new UsageError("give one run directory or --labels FILE, not both");
  }
  const seed = intFlag(values.seed, "seed", 0) ?? 0;
  let items: LabelledItem[];
  let source: string;
  let excluded = 0;
  let unlabelled = 0;
  if (labels !== undefined) {
    items = await readLabelledItems(labels);
    source = labels;
  } else {
    const dir = positionals[0] as string;
    const decisions = await readDecisions(join(dir, "decisions.jsonl"));
    if (decisions.length === 0) {
      throw new TypeError(
        `Cannot sweep "${dir}": no decisions.jsonl with decisions there; give a run directory such as runs/<run-id>`,
      );
    }
    ({ items, excluded, unlabelled } = itemsFromDecisions(decisions));
    source = `${dir} (noul decisions: P(yes) = predicted.true, label = gold; lane = lane/question)`;
  }
  if (items.length === 0) {
    throw new TypeError(`Cannot sweep "${source}": it holds no answered yes/no items`);
  }
  const sweep = thresholdSweep(items, { seed });
  if (values.json === true) {
    console.log(JSON.stringify({ source, excluded, unlabelled, ...sweep }));
    return 0;
  }
  const markdown = values.markdown === true;
  console.log(
    `Threshold sweep of ${items.length} labelled yes/no items from ${source}${
      excluded ? `; ${excluded} errored decisions excluded` : ""
    }${unlabelled ? `; ${unlabelled} decisions without gold left out` : ""}.`,
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

if (import.meta.main) await runMain(main, { usage: USAGE });
