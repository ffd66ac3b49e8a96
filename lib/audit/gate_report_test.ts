import assert from "node:assert/strict";
import { gateLanes, type GateRecord, gateTableData } from "./gate_report.ts";

const PROVENANCE = {
  kind: "atomic-decision",
  model: "m",
  response_id: null,
  cost: null,
  threshold: 0.7,
  calibrated: false,
} as const;

function record(id: string, lane: string, p: number | null, label: boolean | null): GateRecord {
  return {
    id,
    lane,
    p_yes: p,
    verdict: p === null ? "undecided" : p >= 0.7 ? "pass" : "fail",
    label,
    error: p === null ? { kind: "unavailable", message: "HTTP 500" } : null,
    provenance: PROVENANCE,
  };
}

Deno.test("`gateLanes()` counts per lane and overall; the false-pass bound is Clopper–Pearson's", () => {
  // Lane a: 10 no-labelled cases, 1 passes (false pass); 5 yes-labelled, 4 pass, 1 fails.
  // Lane b: 10 no-labelled, none passes; 1 undecided; 2 unlabelled (counted, not rated).
  const records = [
    ...Array.from({ length: 10 }, (_, i) => record(`a-no-${i}`, "a", i === 0 ? 0.9 : 0.2, false)),
    ...Array.from({ length: 5 }, (_, i) => record(`a-yes-${i}`, "a", i === 0 ? 0.5 : 0.8, true)),
    ...Array.from({ length: 10 }, (_, i) => record(`b-no-${i}`, "b", 0.1, false)),
    record("b-undecided", "b", null, false),
    record("b-new-1", "b", 0.95, null),
    record("b-new-2", "b", 0.05, null),
  ];
  const [a, b, overall] = gateLanes(records, 0.7);
  assert.deepEqual(
    [a?.lane, a?.cases, a?.pass, a?.fail, a?.undecided, a?.labelled],
    ["a", 15, 5, 10, 0, 15],
  );
  assert.equal(a?.rates?.agreement, 13 / 15);
  assert.equal(a?.rates?.falsePassRate, 1 / 10);
  assert.equal(a?.rates?.falseFailRate, 1 / 5);
  // Hand values: scipy.stats.beta.ppf(0.95, k + 1, n − k).
  assert.ok(Math.abs(a!.rates!.falsePassUpper! - 0.39416330243650466) < 1e-9);
  assert.deepEqual([b?.cases, b?.pass, b?.undecided, b?.labelled], [13, 1, 1, 10]);
  assert.ok(Math.abs(b!.rates!.falsePassUpper! - (1 - 0.05 ** (1 / 10))) < 1e-12, "0 in 10");
  assert.ok(Math.abs(b!.rates!.falsePassUpper! - 0.2588655508930522) < 1e-9);
  assert.equal(overall?.lane, "(overall)");
  assert.deepEqual([overall?.cases, overall?.undecided, overall?.labelled], [28, 1, 25]);
  assert.ok(Math.abs(overall!.rates!.falsePassUpper! - 0.2161061642068473) < 1e-9, "1 in 20");
  const table = gateTableData([a!, b!, overall!]);
  assert.deepEqual(table.rows[0], [
    "a",
    "15",
    "5",
    "10",
    "0",
    "15",
    "86.7% (13/15)",
    "10.0% (1/10)",
    "20.0% (1/5)",
    "39.4%",
  ]);
});
