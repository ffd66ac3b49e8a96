import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { BRIER_REL, BRIER_RES, BRIER_UNC, murphyDecomposition } from "./murphy.ts";
import { computeMetric, type MetricInput } from "./registry.ts";

function noul(p: number | null, gold: "true" | "false", type = "noul"): MetricInput {
  return {
    case: `c${p}${gold}`,
    type,
    correct: false,
    confidence: p === null ? null : Math.max(p, 1 - p),
    kl: null,
    brier: null,
    predicted: p === null ? null : { true: p, false: 1 - p },
    gold,
    error: p === null ? { kind: "timeout" } : null,
  };
}

// forecasts 0.8 ×3 (outcomes 1, 1, 0) and 0.3 ×2 (0, 1): ō = 3/5
const table = [
  noul(0.8, "true"),
  noul(0.8, "true"),
  noul(0.8, "false"),
  noul(0.3, "false"),
  noul(0.3, "true"),
];

Deno.test("the Murphy decomposition against hand-computed values", () => {
  const m = murphyDecomposition(table)!;
  assert.equal(m.n, 5);
  assert.equal(m.groups, 2);
  // rel = (3·(0.8 − 2/3)² + 2·(0.3 − 1/2)²)/5 = 2/75
  assertClose(m.reliability, 2 / 75, 1e-12);
  // res = (3·(2/3 − 3/5)² + 2·(1/2 − 3/5)²)/5 = 1/150
  assertClose(m.resolution, 1 / 150, 1e-12);
  assertClose(m.uncertainty, 0.24, 1e-12);
  // (0.04 + 0.04 + 0.64 + 0.09 + 0.49)/5
  assertClose(m.brier, 0.26, 1e-12);
  assertClose(m.reliability - m.resolution + m.uncertainty, m.brier, 1e-15);
});

Deno.test("`brier_rel`, `brier_res`, `brier_unc` cover answered yes/no decisions only", () => {
  const mixed = [...table, noul(0.9, "true", "choice"), noul(null, "false")];
  assertClose(computeMetric(BRIER_REL, mixed), 2 / 75, 1e-12);
  assertClose(computeMetric(BRIER_RES, mixed), 1 / 150, 1e-12);
  assertClose(computeMetric(BRIER_UNC, mixed), 0.24, 1e-12);
  assert.equal(computeMetric(BRIER_REL, [noul(null, "true")]), null);
  assert.equal(computeMetric(BRIER_UNC, [noul(0.4, "true", "score")]), null);
});

Deno.test("rel − res + unc equals the label Brier exactly for many distinct forecasts", () => {
  // 500 decisions, forecasts on a grid of 37 values, pseudo-random outcomes
  const many: MetricInput[] = [];
  let x = 7;
  for (let i = 0; i < 500; i++) {
    x = (x * 48271) % 2147483647;
    const p = (x % 37) / 36;
    many.push(noul(p, x % 5 < 2 ? "true" : "false"));
  }
  const m = murphyDecomposition(many)!;
  let brier = 0;
  for (const d of many) {
    const f = d.predicted!.true!;
    const o = d.gold === "true" ? 1 : 0;
    brier += (f - o) ** 2;
  }
  assertClose(m.brier, brier / 500, 1e-12);
  assertClose(m.reliability - m.resolution + m.uncertainty, brier / 500, 1e-12);
});
