/**
 * The headline metrics as registry definitions: accuracy, mean KL, mean Brier, the
 * standard 10-bin ECE, and the mean negative log-likelihood of the gold label.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import { addAt, BIN_COUNT, binOf, eceFromBins } from "./_bins.ts";
import type { AdditiveMetric, MetricInput } from "./registry.ts";
import { KL_FLOOR } from "./score.ts";

/**
 * A mean over covered decisions of one number per decision (null: left out): totals `[n, sum]`.
 * For the additive metrics that are plain means, here and in the other definition files.
 *
 * @param base The definition's metadata.
 * @param valueOf A covered decision's number, or null to leave it out.
 * @returns The definition.
 */
export function meanMetric(
  base: Omit<AdditiveMetric, "kind" | "width" | "add" | "value">,
  valueOf: (d: MetricInput) => number | null,
): AdditiveMetric {
  return {
    ...base,
    kind: "additive",
    width: 2,
    add(totals, offset, d) {
      const v = valueOf(d);
      if (v === null) return;
      addAt(totals, offset, 1);
      addAt(totals, offset + 1, v);
    },
    value(totals, offset) {
      const n = totals[offset] as number;
      return n === 0 ? null : (totals[offset + 1] as number) / n;
    },
  };
}

/** Accuracy: correct decisions over all decisions, errors counting as misses. */
export const ACCURACY: AdditiveMetric = {
  name: "accuracy",
  label: "accuracy",
  column: true,
  description: "Share of decisions whose predicted answer is the gold label; errors are misses",
  over: "all",
  higherIsBetter: true,
  range: [0, 1],
  format: "percent",
  kind: "additive",
  width: 2,
  add(totals, offset, d) {
    addAt(totals, offset, 1);
    if (d.correct && isAnswered(d)) addAt(totals, offset + 1, 1);
  },
  value(totals, offset) {
    const n = totals[offset] as number;
    return n === 0 ? null : (totals[offset + 1] as number) / n;
  },
};

/** Mean KL(gold ‖ predicted) in nats over answered decisions. */
export const KL: AdditiveMetric = meanMetric({
  name: "kl",
  label: "KL(gold ‖ pred), nats",
  short: "KL",
  column: true,
  description: "Mean KL(gold ‖ predicted) in nats over answered decisions, floor 1e-12",
  over: "answered",
  higherIsBetter: false,
  range: [0, Infinity],
  format: "number",
}, (d) => d.kl ?? null);

/** Mean Brier score over answered decisions. */
export const BRIER: AdditiveMetric = meanMetric({
  name: "brier",
  label: "Brier",
  column: true,
  description: "Mean Brier score (squared distance between distributions) over answered decisions",
  over: "answered",
  higherIsBetter: false,
  range: [0, 2],
  format: "number",
}, (d) => d.brier ?? null);

/** Top-label ECE with 10 equal-width bins: totals are per-bin count, correct and confidence. */
export const ECE: AdditiveMetric = {
  name: "ece",
  label: "ECE (10-bin)",
  short: "ECE",
  note: "standard 10-bin; not the card's ECE",
  column: true,
  description: "Top-label expected calibration error, 10 equal-width bins, answered decisions",
  over: "answered",
  higherIsBetter: false,
  range: [0, 1],
  format: "number",
  kind: "additive",
  width: 3 * BIN_COUNT,
  add(totals, offset, d) {
    if (d.confidence === null || d.confidence === undefined) return;
    const b = offset + binOf(d.confidence);
    addAt(totals, b, 1);
    if (d.correct) addAt(totals, b + BIN_COUNT, 1);
    addAt(totals, b + 2 * BIN_COUNT, d.confidence);
  },
  value(totals, offset) {
    return eceFromBins(totals, offset);
  },
};

/**
 * Negative log-likelihood of the gold label: −ln max(p(label), 1e-12), averaged over answered
 * decisions.
 */
export const NLL: AdditiveMetric = meanMetric({
  name: "nll",
  label: "NLL, −ln p(gold label), nats",
  short: "NLL",
  column: true,
  description: "Mean −ln p(gold label) in nats over answered decisions, floor 1e-12",
  over: "answered",
  higherIsBetter: false,
  range: [0, -Math.log(KL_FLOOR)],
  format: "number",
}, (d) => {
  if (!d.predicted || d.gold === undefined || d.gold === null) return null;
  const p = Object.hasOwn(d.predicted, d.gold) ? d.predicted[d.gold] as number : 0;
  return -Math.log(Math.max(p, KL_FLOOR));
});

/** The headline metrics, in report order (the order of `HEADLINE_METRIC_NAMES`). */
export const HEADLINE_METRICS: readonly AdditiveMetric[] = [ACCURACY, KL, BRIER, ECE, NLL];
