/**
 * Choosing a decision policy on a labelled run: the labelled answers of one question are split
 * (seeded, stratified by lane) into fit, select and held-out parts; a calibration is fitted on the
 * fit part; each lane's bar is chosen on the select part by Learn then Test (fixed-sequence
 * testing of exact binomial p-values, δ split over the lanes by Bonferroni) and reported on the
 * held-out part. Nothing is sent to a model.
 *
 * @module
 */
import {
  calibrationFigures,
  fitCalibration,
  type FittedCalibration,
  type LabelledDistribution,
  RECALIBRATION_METHODS,
  recalibrationMethod,
  seededRandom,
  shuffle,
} from "../metrics/mod.ts";
import type { QuestionType } from "../dataset/mod.ts";
import { TOOL_NAME, TOOL_VERSION } from "../version.ts";
import { clopperPearsonUpper } from "./binomial.ts";
import { binomialPValue, learnThenTest, type LttCandidate, neededTrials } from "./ltt.ts";
import { calibrate, decideWithPolicy, ESCALATE, expectedCost } from "./policy_apply.ts";
import {
  type Policy,
  POLICY_OBJECTIVES,
  POLICY_VERSION,
  type PolicyCalibration,
  type PolicyFigure,
  type PolicyHeldout,
  type PolicyLane,
  type PolicyObjective,
} from "./policy_schema.ts";

/** One labelled answer of the policy's question. */
export interface PolicyItem {
  /** Case id. */
  id: string;
  /** The case's lane. */
  lane: string;
  /** The distribution as returned, keyed by option. */
  predicted: Readonly<Record<string, number>>;
  /** The gold option. */
  gold: string;
}

/** Options of {@linkcode choosePolicy}. */
export interface ChoosePolicyOptions {
  /** The question's name. */
  question: string;
  /** Its type. */
  type: QuestionType;
  /** Its options, in order. */
  options: readonly string[];
  /**
   * The question as asked (type, instructions, criteria or levels), when known.
   * @default null
   */
  definition?: Record<string, unknown> | null;
  /**
   * What the bars control.
   * @default "false-pass"
   */
  objective?: PolicyObjective;
  /**
   * The rate each certified lane keeps below, in (0, 1).
   * @default 0.05
   */
  alpha?: number;
  /**
   * The chance the guarantee fails, in (0, 1), split over the lanes.
   * @default 0.05
   */
  delta?: number;
  /**
   * The calibration fitted on the fit part (`none`: probabilities as returned).
   * @default "temperature"
   */
  calibrate?: string;
  /**
   * Fit the calibration per lane too, on each lane's own fit part (the calibration fitted on all
   * lanes still serves a lane without one).
   * @default false
   */
  perLane?: boolean;
  /**
   * `cost`: gold option → action (the options and `escalate`) → cost.
   * @default undefined
   */
  costs?: Record<string, Record<string, number>> | undefined;
  /**
   * The fit : select : held-out ratio.
   * @default [1, 1, 1]
   */
  split?: readonly [number, number, number];
  /**
   * Seed of the split and of the bootstrap intervals.
   * @default 0
   */
  seed?: number;
  /**
   * Bootstrap replicates of the held-out intervals (0: none).
   * @default 200
   */
  replicates?: number;
  /**
   * The run the items come from.
   * @default a source with empty fields
   */
  source?: Policy["source"];
  /**
   * Decisions of the question without gold, and that errored (recorded in the split).
   * @default { unlabelled: 0, errors: 0 }
   */
  left?: { unlabelled: number; errors: number };
  /**
   * The time written into the policy.
   * @default now
   */
  now?: Date;
}

const NO_FIGURE: PolicyFigure = { value: null, interval: null };

/**
 * The candidate bars, strict to loose: 1, 0.99999, 0.9999, 0.9995, 0.999, then 0.998 to 0.900 in
 * steps of 0.001 and 0.89 to 0.00 in steps of 0.01 (finer near 1, where an over-confident model's
 * probabilities crowd). The order is fixed before any label is seen, as fixed-sequence testing
 * requires; more candidates cost the guarantee nothing.
 */
export const POLICY_BARS: readonly number[] = [
  1,
  0.99999,
  0.9999,
  0.9995,
  0.999,
  ...Array.from({ length: 99 }, (_, j) => (998 - j) / 1000),
  ...Array.from({ length: 90 }, (_, j) => (89 - j) / 100),
];

/** How many of `sorted` (descending) are ≥ each bar of `bars` (descending), in one pass. */
function countsAtBars(sorted: readonly number[], bars: readonly number[]): number[] {
  const out: number[] = [];
  let at = 0;
  for (const t of bars) {
    while (at < sorted.length && (sorted[at] as number) >= t) at++;
    out.push(at);
  }
  return out;
}

function checkRange(name: string, value: number): void {
  if (!(value > 0 && value < 1)) {
    throw new RangeError(`Cannot choose a policy: ${name} "${value}" is not in (0, 1)`);
  }
}

/**
 * Checks a cost matrix against the question's options: a row per gold option, a column per
 * option and `escalate`, finite numbers.
 *
 * @param costs The matrix.
 * @param options The question's options.
 * @param file The file it came from, for messages.
 * @throws {TypeError} Naming the missing row or column, or the bad value.
 */
export function checkCosts(
  costs: unknown,
  options: readonly string[],
  file: string,
): asserts costs is Record<string, Record<string, number>> {
  const actions = [...options, ESCALATE];
  if (typeof costs !== "object" || costs === null || Array.isArray(costs)) {
    throw new TypeError(
      `Cannot read costs "${file}": expected an object of gold option → {action: cost} with rows ${
        options.join(", ")
      }`,
    );
  }
  const rows = costs as Record<string, unknown>;
  for (const gold of options) {
    const row = rows[gold];
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      throw new TypeError(
        `Cannot read costs "${file}": gold option "${gold}" has no row; give {"${gold}": {${
          actions.map((a) => `"${a}": cost`).join(", ")
        }}}`,
      );
    }
    for (const action of actions) {
      const cost = (row as Record<string, unknown>)[action];
      if (typeof cost !== "number" || !Number.isFinite(cost)) {
        throw new TypeError(
          `Cannot read costs "${file}": field "${gold}.${action}" is ${
            cost === undefined ? "missing" : `"${String(cost)}", not a number`
          }; give the cost of action "${action}" when the gold option is "${gold}"`,
        );
      }
    }
  }
  for (const gold of Object.keys(rows)) {
    if (!options.includes(gold)) {
      throw new TypeError(
        `Cannot read costs "${file}": row "${gold}" is not an option of the question (${
          options.join(", ")
        })`,
      );
    }
  }
}

/** A lane's labelled items cut into the three parts. */
export interface LaneParts {
  /** Items the calibration is fitted on. */
  fit: PolicyItem[];
  /** Items the lane's bar is chosen on. */
  select: PolicyItem[];
  /** Items the policy is reported on. */
  heldout: PolicyItem[];
}

/**
 * The split `choosePolicy` makes: per lane (sorted by name), the items sorted by id, shuffled with
 * the seed and cut in the ratio (fit and select rounded, the rest held out).
 *
 * @param items The labelled items.
 * @param ratio The fit : select : held-out ratio.
 * @param seed The shuffle's seed.
 * @returns The parts per lane.
 */
export function splitPolicyItems(
  items: readonly PolicyItem[],
  ratio: readonly [number, number, number],
  seed: number,
): Map<string, LaneParts> {
  return splitLanes(items, ratio, seed);
}

function splitLanes(
  items: readonly PolicyItem[],
  ratio: readonly [number, number, number],
  seed: number,
): Map<string, LaneParts> {
  const byLane = new Map<string, PolicyItem[]>();
  for (const item of items) {
    const lane = byLane.get(item.lane);
    if (lane) lane.push(item);
    else byLane.set(item.lane, [item]);
  }
  const total = ratio[0] + ratio[1] + ratio[2];
  const out = new Map<string, LaneParts>();
  for (const lane of [...byLane.keys()].sort()) {
    // Sorted by id first: the split does not depend on the order cases were answered in.
    const sorted = (byLane.get(lane) ?? []).slice().sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0
    );
    const shuffled = shuffle(sorted, seed);
    const fitN = Math.round((shuffled.length * ratio[0]) / total);
    const selectN = Math.round((shuffled.length * ratio[1]) / total);
    out.set(lane, {
      fit: shuffled.slice(0, fitN),
      select: shuffled.slice(fitN, fitN + selectN),
      heldout: shuffled.slice(fitN + selectN),
    });
  }
  return out;
}

function topProbability(
  distribution: Readonly<Record<string, number>>,
  options: readonly string[],
) {
  let top = options[0] ?? "";
  let p = -1;
  for (const option of options) {
    const q = distribution[option] ?? 0;
    if (q > p) [top, p] = [option, q];
  }
  return { top, p };
}

function mean(values: readonly number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

function bootstrapMean(values: readonly number[], replicates: number, seed: number): PolicyFigure {
  const value = mean(values);
  if (value === null || replicates === 0) return { value, interval: null };
  const random = seededRandom(seed);
  const means: number[] = [];
  for (let r = 0; r < replicates; r++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) {
      sum += values[Math.floor(random() * values.length)] as number;
    }
    means.push(sum / values.length);
  }
  means.sort((a, b) => a - b);
  const at = (q: number) =>
    means[Math.min(means.length - 1, Math.floor(q * means.length))] as number;
  return { value, interval: [at(0.025), at(0.975)] };
}

function guaranteeText(
  objective: PolicyObjective,
  alpha: number,
  delta: number,
  lanes: number,
): string {
  if (objective === "cost") {
    return "No guarantee: each case takes the action of least expected cost under the calibrated distribution; the held-out part reports the expected and the realised cost per case";
  }
  const rate = objective === "false-pass"
    ? 'false-pass rate (passes among gold "no" cases)'
    : "error rate among the cases it answers";
  return `With probability at least 1 − δ = ${
    1 - delta
  } over the labelled cases, every certified lane's ${rate} on new cases like these is at most α = ${alpha}, for all lanes at once: Learn then Test with exact binomial p-values, fixed-sequence testing from the strictest bar to looser ones, each lane at δ/${lanes} = ${
    delta / lanes
  } (Bonferroni over ${lanes} lane${
    lanes === 1 ? "" : "s"
  }). An uncertified lane escalates every case`;
}

/**
 * Chooses a decision policy on labelled answers of one question (see the module's description).
 *
 * @param items The question's labelled, answered decisions.
 * @param options Question, objective, α, δ, calibration, costs, split, seed, source.
 * @returns The policy, as `policy.json` holds it.
 * @throws {RangeError} When α or δ is not in (0, 1), the objective or the calibration does not fit
 *   the question's type, the split is not three non-negative numbers with a positive select part,
 *   or there are no items.
 * @throws {TypeError} When the `cost` objective has no (complete) cost matrix.
 */
export function choosePolicy(items: readonly PolicyItem[], options: ChoosePolicyOptions): Policy {
  const objective = options.objective ?? "false-pass";
  const alpha = options.alpha ?? 0.05;
  const delta = options.delta ?? 0.05;
  const method = options.calibrate ?? "temperature";
  const ratio = options.split ?? [1, 1, 1];
  const seed = options.seed ?? 0;
  const replicates = options.replicates ?? 200;
  const { question, type } = options;
  const questionOptions = [...options.options];
  if (!POLICY_OBJECTIVES.includes(objective)) {
    throw new RangeError(
      `Cannot choose a policy: objective "${objective}" is not one of ${
        POLICY_OBJECTIVES.join(", ")
      }`,
    );
  }
  checkRange("alpha", alpha);
  checkRange("delta", delta);
  if (objective === "false-pass" && type !== "noul") {
    throw new RangeError(
      `Cannot choose a false-pass policy for "${question}": it is a ${type} question; false-pass needs a yes/no (noul) question (use --objective selective-risk or cost)`,
    );
  }
  if (method !== "none") {
    if (!(RECALIBRATION_METHODS as readonly string[]).includes(method)) {
      throw new RangeError(
        `Cannot calibrate with "${method}": methods are ${RECALIBRATION_METHODS.join(", ")}, none`,
      );
    }
    if (recalibrationMethod(method).yesNoOnly && type !== "noul") {
      throw new RangeError(
        `Cannot calibrate "${question}" with ${method}: it fits yes/no questions only and "${question}" is a ${type} question (use temperature)`,
      );
    }
  }
  if (
    ratio.length !== 3 || ratio.some((r) => !(r >= 0 && Number.isFinite(r))) || !(ratio[1] > 0)
  ) {
    throw new RangeError(
      `Cannot split "${
        ratio.join(",")
      }": give three non-negative numbers fit,select,heldout with select > 0, e.g. 1,1,1`,
    );
  }
  if (objective === "cost") {
    if (options.costs === undefined) {
      throw new TypeError("Cannot choose a cost policy: give the cost matrix (--costs FILE)");
    }
    checkCosts(options.costs, questionOptions, "costs");
  }
  if (items.length === 0) {
    throw new RangeError(`Cannot choose a policy for "${question}": no labelled answers`);
  }
  const parts = splitLanes(items, ratio, seed);
  const fitItems = [...parts.values()].flatMap((p) => p.fit);
  const heldoutItems = [...parts.values()].flatMap((p) => p.heldout);
  const labelled = (list: readonly PolicyItem[]): LabelledDistribution[] =>
    list.map((i) => ({ predicted: i.predicted, gold: i.gold }));
  let fitted: FittedCalibration | null = null;
  if (method !== "none") {
    if (fitItems.length === 0) {
      throw new RangeError(
        `Cannot calibrate with ${method}: the fit part is empty; give it a share (--split 1,1,1) or --calibrate none`,
      );
    }
    fitted = fitCalibration(method, labelled(fitItems));
  }
  const calibration: PolicyCalibration = {
    method: fitted?.method ?? "none",
    params: fitted?.params ?? {},
    fitN: fitted?.fitN ?? 0,
    heldout: {
      n: 0,
      ece: { before: NO_FIGURE, after: NO_FIGURE },
      nll: { before: NO_FIGURE, after: NO_FIGURE },
      brier: { before: NO_FIGURE, after: NO_FIGURE },
    },
  };
  if (fitted !== null && options.perLane === true) {
    calibration.lanes = {};
    for (const [lane, part] of parts) {
      if (part.fit.length === 0) continue;
      const own = fitCalibration(fitted.method, labelled(part.fit));
      calibration.lanes[lane] = { params: own.params, fitN: own.fitN };
    }
  }
  const figures = calibrationFigures(
    fitted === null ? null : (_item, index) => {
      const item = heldoutItems[index] as PolicyItem;
      return calibrate({ calibration }, item.predicted, item.lane);
    },
    labelled(heldoutItems),
    { replicates, seed },
  );
  calibration.heldout = { n: figures.n, ece: figures.ece, nll: figures.nll, brier: figures.brier };
  const laneCount = parts.size;
  const deltaPerLane = delta / laneCount;
  const policy: Policy = {
    version: POLICY_VERSION,
    tool: TOOL_NAME,
    tool_version: TOOL_VERSION,
    created_at: (options.now ?? new Date()).toISOString(),
    question,
    type,
    definition: options.definition ?? null,
    options: questionOptions,
    objective,
    alpha,
    delta,
    deltaPerLane,
    guarantee: guaranteeText(objective, alpha, delta, laneCount),
    costs: objective === "cost" ? options.costs ?? null : null,
    source: options.source ??
      { run: "", fingerprint: "", questionSetSha256: null, questionsSha256: "" },
    split: {
      ratio: [ratio[0], ratio[1], ratio[2]],
      seed,
      fit: fitItems.length,
      select: [...parts.values()].reduce((n, p) => n + p.select.length, 0),
      heldout: heldoutItems.length,
      unlabelled: options.left?.unlabelled ?? 0,
      errors: options.left?.errors ?? 0,
    },
    calibration,
    lanes: {},
  };
  const calibrated = (item: PolicyItem) =>
    decideWithPolicy(policy, item.lane, item.predicted).calibrated;
  for (const [lane, part] of parts) {
    policy.lanes[lane] = chooseLane(policy, part, calibrated, replicates);
  }
  // Held-out figures with the bars in place (decided by the function the gate applies).
  for (const [lane, part] of parts) {
    const entry = policy.lanes[lane] as PolicyLane;
    entry.heldout = heldoutOf(policy, lane, part.heldout, replicates, seed);
  }
  return policy;
}

function chooseLane(
  policy: Policy,
  part: LaneParts,
  calibrated: (item: PolicyItem) => Record<string, number>,
  _replicates: number,
): PolicyLane {
  const empty: PolicyHeldout = {
    n: 0,
    events: null,
    trials: null,
    rate: null,
    upper95: null,
    coverage: null,
  };
  if (policy.objective === "cost") {
    return {
      certified: false,
      threshold: null,
      selectN: part.select.length,
      selectFailures: null,
      neededSelectN: null,
      heldout: empty,
    };
  }
  let candidates: LttCandidate[];
  let bars: readonly number[] = POLICY_BARS;
  let selectN: number;
  if (policy.objective === "false-pass") {
    const negatives = part.select.filter((i) => i.gold === "false").map((i) =>
      calibrated(i).true ?? 0
    );
    selectN = negatives.length;
    candidates = countsAtBars(negatives.sort((a, b) => b - a), bars).map((events) => ({
      events,
      trials: negatives.length,
    }));
  } else {
    const scored = part.select.map((i) => {
      const { top, p } = topProbability(calibrated(i), policy.options);
      return { p, wrong: top !== i.gold };
    });
    selectN = scored.length;
    // Where the sequence starts is chosen on the fit part, which the select part never sees: the
    // bar whose fit-part counts, scaled to the select part's size, give the smallest p-value (the
    // strictest on a tie). Stricter bars answer too few cases to be rejected; the order stays
    // fixed before the select part is read.
    const fitScored = part.fit.map((i) => {
      const { top, p } = topProbability(calibrated(i), policy.options);
      return { p, wrong: top !== i.gold };
    }).sort((x, y) => y.p - x.p);
    let start = 0;
    if (fitScored.length) {
      const scale = selectN / fitScored.length;
      let best = Infinity;
      let at = 0;
      let wrong = 0;
      for (let j = 0; j < bars.length; j++) {
        const t = bars[j] as number;
        while (at < fitScored.length && (fitScored[at] as { p: number }).p >= t) {
          if ((fitScored[at] as { wrong: boolean }).wrong) wrong++;
          at++;
        }
        const p = binomialPValue(Math.round(wrong * scale), Math.round(at * scale), policy.alpha);
        if (p < best) [best, start] = [p, j];
      }
    }
    bars = bars.slice(start);
    scored.sort((a, b) => b.p - a.p);
    candidates = [];
    let at = 0;
    let wrong = 0;
    for (const t of bars) {
      while (at < scored.length && (scored[at] as { p: number }).p >= t) {
        if ((scored[at] as { wrong: boolean }).wrong) wrong++;
        at++;
      }
      candidates.push({ events: wrong, trials: at });
    }
  }
  const chosen = learnThenTest(candidates, policy.alpha, policy.deltaPerLane);
  if (chosen === null) {
    return {
      certified: false,
      threshold: null,
      selectN,
      selectFailures: null,
      neededSelectN: neededTrials(policy.alpha, policy.deltaPerLane),
      heldout: empty,
    };
  }
  return {
    certified: true,
    threshold: bars[chosen] as number,
    selectN: policy.objective === "false-pass"
      ? selectN
      : (candidates[chosen] as LttCandidate).trials,
    selectFailures: (candidates[chosen] as LttCandidate).events,
    neededSelectN: null,
    heldout: empty,
  };
}

function heldoutOf(
  policy: Policy,
  lane: string,
  items: readonly PolicyItem[],
  replicates: number,
  seed: number,
): PolicyHeldout {
  const decisions = items.map((item) => ({
    item,
    ...decideWithPolicy(policy, lane, item.predicted),
  }));
  const decided = decisions.filter((d) => d.action !== ESCALATE);
  const coverage = items.length ? decided.length / items.length : null;
  let events: number;
  let trials: number;
  const extra: Partial<PolicyHeldout> = {};
  if (policy.objective === "false-pass") {
    const negatives = decisions.filter((d) => d.item.gold === "false");
    trials = negatives.length;
    events = negatives.filter((d) => d.action === "true").length;
    extra.passRate = coverage
      ? decisions.filter((d) => d.action === "true").length / items.length
      : null;
    if (coverage === 0) {
      return {
        n: items.length,
        events: null,
        trials: null,
        rate: null,
        upper95: null,
        coverage,
        passRate: null,
      };
    }
  } else {
    trials = decided.length;
    events = decided.filter((d) => d.action !== d.item.gold).length;
    if (policy.objective === "cost") {
      const costs = policy.costs ?? {};
      extra.expectedCost = bootstrapMean(
        decisions.map((d) => expectedCost(costs, policy.options, d.calibrated, d.action)),
        replicates,
        seed,
      );
      extra.realisedCost = bootstrapMean(
        decisions.map((d) => costs[d.item.gold]?.[d.action] ?? 0),
        replicates,
        seed,
      );
    }
  }
  return {
    n: items.length,
    events,
    trials,
    rate: trials ? events / trials : null,
    upper95: trials ? clopperPearsonUpper(events, trials) : null,
    coverage,
    ...extra,
  };
}
