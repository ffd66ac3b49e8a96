/**
 * A gate run's lanes as CI checks (JUnit test cases, GitHub annotations): a lane passes when every
 * case of it was decided, and its message gives the verdict counts, the agreement and the
 * false-pass rate with its exact upper bound against the bar.
 *
 * @module
 */
import type { CiCheck } from "../report/mod.ts";
import type { GateLane } from "./gate_report.ts";

function figure(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "n/a";
  return String(Math.round(value * 10_000) / 10_000);
}

/**
 * The checks of a gate run: one per lane (the overall row included).
 *
 * @param lanes The gate's lanes (`GateRun.lanes`).
 * @param threshold The pass bar.
 * @returns One check per lane: passed when no case of the lane is undecided.
 * @example
 * ```ts
 * import { gateLaneChecks } from "./gate_ci.ts";
 * const [check] = gateLaneChecks([
 *   { lane: "web", cases: 2, pass: 1, fail: 0, escalate: 0, undecided: 1, labelled: 0, rates: null },
 * ], 0.7);
 * if (check?.pass !== false) throw new Error("an undecided case fails its lane");
 * ```
 */
export function gateLaneChecks(lanes: readonly GateLane[], threshold: number): CiCheck[] {
  return lanes.map((l) => {
    const rates = l.rates;
    const measured = rates === null
      ? "no labelled decided case"
      : `agreement ${figure(rates.agreement)}, false-pass rate ${
        figure(rates.falsePassRate)
      } (one-sided 95% upper bound ${figure(rates.falsePassUpper)}), false-fail rate ${
        figure(rates.falseFailRate)
      } over ${rates.n} labelled`;
    return {
      name: `lane ${l.lane}`,
      group: "gate.lanes",
      pass: l.undecided === 0,
      message: `lane ${l.lane}: ${l.cases} cases at the bar P(yes) >= ${
        figure(threshold)
      }: ${l.pass} pass, ${l.fail} fail, ${l.undecided} undecided (limit 0); ${measured}`,
    };
  });
}
