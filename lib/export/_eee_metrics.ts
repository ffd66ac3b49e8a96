/**
 * How decibench's metrics are named and described in an Every Eval Ever record. Accuracy keeps
 * the field's common id; every other measure is decibench's own (Brier against the gold
 * distributions on [0, 2], KL from the gold distribution with a floor, a 10-bin ECE, …), so its id
 * is namespaced (`decibench.<id>`) and its `metric_parameters` say how it was computed.
 *
 * @module
 */
import { KL_FLOOR, type MetricDefinition } from "../metrics/mod.ts";

/** The namespace of decibench-specific metric ids. */
export const EEE_METRIC_NAMESPACE = "decibench";

/** Ids that say more than the registry's short names. */
const RENAMED: Readonly<Record<string, string>> = {
  kl: "kl_gold_vs_predicted",
  brier: "brier_vs_gold",
  ece: "ece_10bin",
  nll: "nll_gold_label",
};

/** The tie rule every decision follows. */
export const TIE_RULE = "argmax; on a tie the option listed first in the question wins";

/**
 * The id of a metric in an Every Eval Ever record (`metric_id` and `evaluation_result_id`).
 *
 * @param name The registry name, e.g. `brier`.
 * @returns `accuracy`, or `decibench.<id>` (e.g. `decibench.brier_vs_gold`).
 */
export function eeeMetricId(name: string): string {
  if (name === "accuracy") return "accuracy";
  return `${EEE_METRIC_NAMESPACE}.${RENAMED[name] ?? name}`;
}

/** Parameters shared by every metric, then each metric's own. */
const OWN: Readonly<Record<string, Record<string, string | number | boolean>>> = {
  accuracy: {
    target: "the gold label (the dataset's pick when two gold answers tie)",
    errors: "count as incorrect",
  },
  kl: {
    divergence: "KL(gold || predicted)",
    unit: "nats",
    kl_floor: KL_FLOOR,
    support: "answers whose gold probability is above 0",
  },
  brier: {
    target: "the gold probability distribution, not a one-hot label",
    sum_over: "the union of the answers of both distributions",
    min: 0,
    max: 2,
  },
  ece: {
    bins: 10,
    binning: "equal-width; bin = min(floor(confidence * 10), 9)",
    empty_bins: "skipped",
    confidence: "probability of the predicted answer",
    comparable_with_dataset_card: false,
  },
  nll: { unit: "nats", probability_floor: KL_FLOOR, target: "the gold label" },
  ece_15: { bins: 15, binning: "equal-width", empty_bins: "skipped" },
  ece_em: { bins: 15, binning: "equal-mass by confidence rank, ties kept in one bin" },
  ece_debiased: { bins: 15, binning: "equal-mass (as ece_em)" },
  mce: { bins: 10, binning: "equal-width", empty_bins: "skipped" },
};

/**
 * The `metric_parameters` of a metric: how it pools, what it covers, the tie rule and its own
 * settings (bins, KL floor).
 *
 * @param metric The registry definition.
 * @returns String, number or boolean values only (as the schema requires).
 */
export function eeeMetricParameters(
  metric: MetricDefinition,
): Record<string, string | number | boolean> {
  return {
    registry_name: metric.name,
    unit_of_analysis: "decision (one question of one case)",
    pooling: "mean over all decisions of the run, not averaged per question",
    covers: metric.over === "all"
      ? "every decision, errors included"
      : "answered decisions with a gold label",
    tie_rule: TIE_RULE,
    ...OWN[metric.name],
  };
}
