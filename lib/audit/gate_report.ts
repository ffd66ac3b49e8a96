/**
 * What a gate run reports beside its verdicts: per lane and overall, how many cases passed,
 * failed or stayed undecided, and — where gold labels exist — agreement, false-pass and
 * false-fail rates with the exact one-sided upper bound on the false-pass rate.
 *
 * @module
 */
import { type BarCounts, metricsOfCounts, OVERALL_LANE, type SweepMetrics } from "./sweep.ts";

/** One case's line of `gate.jsonl`. */
export interface GateRecord {
  /** Case id. */
  id: string;
  /** Lane of the case (Typed Decisions' workflow, or the dataset's lane value). */
  lane: string;
  /** P(yes) exactly as returned; null when undecided (never a 0 in its place). */
  p_yes: number | null;
  /**
   * `pass` when p_yes ≥ threshold, `fail` below, `undecided` when the case could not be asked;
   * with a policy, its decision on the calibrated P(yes), `escalate` when it hands the case to a
   * person.
   */
  verdict: "pass" | "fail" | "escalate" | "undecided";
  /** The gold label (true: the case should pass), or null when the case has none. */
  label: boolean | null;
  /** Why the case is undecided (error kind and message), or null. */
  error: { kind: string; message: string } | null;
  /** With a policy: P(yes) after the policy's calibration (null when undecided). */
  p_calibrated?: number | null | undefined;
  /** With a policy: sha256 of the policy file applied. */
  policy_sha256?: string | undefined;
  /** True when the request cache answered (nothing was sent); absent otherwise. */
  cached?: true | undefined;
  /** What decided. */
  provenance: GateRecordProvenance;
}

/** The provenance of one verdict, as the ADR names it. */
export interface GateRecordProvenance {
  /** Always `atomic-decision`: a decision model answered, not an LLM judge or code. */
  kind: "atomic-decision";
  /** The model id the provider echoed, or null when it did not answer or named none. */
  model: string | null;
  /** The provider's response id, or null when it reported none. */
  response_id: string | null;
  /** The cost the provider reported, or null (never estimated). */
  cost: number | null;
  /** The pass bar (with a policy, the lane's; null when the policy escalates the lane). */
  threshold: number | null;
  /** Whether the user marked the bar as calibrated (chosen on held-out labels). */
  calibrated: boolean;
}

/** One lane's counts and rates. */
export interface GateLane {
  /** Lane name, or `(overall)`. */
  lane: string;
  /** Cases. */
  cases: number;
  /** Verdict `pass`. */
  pass: number;
  /** Verdict `fail`. */
  fail: number;
  /** Verdict `undecided` (left out of every rate). */
  undecided: number;
  /** Verdict `escalate` (a policy handed the case to a person; left out of every rate). */
  escalate: number;
  /** Decided cases with a gold label: what the rates are over. */
  labelled: number;
  /** Rates over the decided, labelled cases (null without any). */
  rates: SweepMetrics | null;
}

/**
 * Per-lane (sorted by name) and overall counts and rates of a gate run. Rates are over decided
 * cases with a gold label: agreement (verdict equals label), false passes (labelled no, verdict
 * pass) over the no-labelled, false fails over the yes-labelled, and the one-sided exact
 * (Clopper–Pearson) upper bound on the false-pass rate.
 *
 * @param records The gate's records.
 * @param _threshold The pass bar (the verdicts already apply it; kept for callers).
 * @param options Confidence of the bound.
 * @returns The lanes, then the overall row.
 * @example
 * ```ts
 * import { gateLanes } from "./gate_report.ts";
 * const p = { kind: "atomic-decision", model: null, response_id: null, cost: null, threshold: 0.7, calibrated: false } as const;
 * const lanes = gateLanes([
 *   { id: "a", lane: "x", p_yes: 0.9, verdict: "pass", label: false, error: null, provenance: p },
 *   { id: "b", lane: "x", p_yes: 0.1, verdict: "fail", label: false, error: null, provenance: p },
 * ], 0.7);
 * lanes[0]?.rates?.falsePassRate; // 0.5
 * ```
 */
export function gateLanes(
  records: Iterable<GateRecord>,
  _threshold: number,
  options: { confidence?: number } = {},
): GateLane[] {
  const tally = new GateLaneTally();
  for (const r of records) tally.add(r);
  return tally.lanes(options);
}

/** One lane's counts, as records arrive. */
interface LaneCounts extends BarCounts {
  cases: number;
  pass: number;
  fail: number;
  escalate: number;
  undecided: number;
}

/**
 * {@linkcode gateLanes} fed one record at a time: a few counts per lane, never the records.
 */
export class GateLaneTally {
  readonly #lanes = new Map<string, LaneCounts>();
  readonly #overall = emptyLane();

  /**
   * Counts one record.
   *
   * @param r The record.
   */
  add(r: GateRecord): void {
    let lane = this.#lanes.get(r.lane);
    if (lane === undefined) this.#lanes.set(r.lane, lane = emptyLane());
    for (const c of [lane, this.#overall]) {
      c.cases++;
      if (r.verdict === "pass") c.pass++;
      else if (r.verdict === "fail") c.fail++;
      else if (r.verdict === "escalate") c.escalate++;
      else c.undecided++;
      // Rates follow the verdicts (a policy's bar applies to the calibrated P(yes), not p_yes).
      if ((r.verdict !== "pass" && r.verdict !== "fail") || r.label === null) continue;
      const pass = r.verdict === "pass";
      c.n++;
      if (r.label) {
        c.positives++;
        if (!pass) c.falseFails++;
      } else if (pass) c.falsePasses++;
    }
  }

  /** Records counted `undecided`. */
  get undecided(): number {
    return this.#overall.undecided;
  }

  /** Records counted. */
  get cases(): number {
    return this.#overall.cases;
  }

  /**
   * The lanes (sorted by name), then the overall row.
   *
   * @param options Confidence of the bound.
   * @returns The rows.
   */
  lanes(options: { confidence?: number } = {}): GateLane[] {
    const names = [...this.#lanes.keys()].sort();
    return [
      ...names.map((name) => laneOf(name, this.#lanes.get(name) as LaneCounts, options)),
      laneOf(OVERALL_LANE, this.#overall, options),
    ];
  }
}

function emptyLane(): LaneCounts {
  return {
    cases: 0,
    pass: 0,
    fail: 0,
    escalate: 0,
    undecided: 0,
    n: 0,
    positives: 0,
    falsePasses: 0,
    falseFails: 0,
  };
}

function laneOf(lane: string, c: LaneCounts, options: { confidence?: number }): GateLane {
  return {
    lane,
    cases: c.cases,
    pass: c.pass,
    fail: c.fail,
    undecided: c.undecided,
    escalate: c.escalate,
    labelled: c.n,
    rates: c.n
      ? metricsOfCounts(
        c,
        options.confidence !== undefined ? { confidence: options.confidence } : {},
      )
      : null,
  };
}

function rate(value: number | null, k: number, n: number): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}% (${k}/${n})`;
}

/**
 * The per-lane table of a gate run as rows of text (header first).
 *
 * @param lanes From {@linkcode gateLanes}.
 * @returns Header and rows.
 */
export function gateTableData(lanes: readonly GateLane[]): { header: string[]; rows: string[][] } {
  // The escalate column appears only when a policy escalated a case.
  const escalated = lanes.some((l) => l.escalate > 0);
  return {
    header: [
      "lane",
      "cases",
      "pass",
      "fail",
      ...(escalated ? ["escalate"] : []),
      "undecided",
      "labelled",
      "agreement",
      "false pass",
      "false fail",
      "false pass ≤ (95%)",
    ],
    rows: lanes.map((l) => {
      const m = l.rates;
      return [
        l.lane,
        String(l.cases),
        String(l.pass),
        String(l.fail),
        ...(escalated ? [String(l.escalate)] : []),
        String(l.undecided),
        String(l.labelled),
        m ? rate(m.agreement, m.n - m.falsePasses - m.falseFails, m.n) : "n/a",
        m ? rate(m.falsePassRate, m.falsePasses, m.negatives) : "n/a",
        m ? rate(m.falseFailRate, m.falseFails, m.positives) : "n/a",
        m?.falsePassUpper == null ? "n/a" : `${(m.falsePassUpper * 100).toFixed(1)}%`,
      ];
    }),
  };
}
