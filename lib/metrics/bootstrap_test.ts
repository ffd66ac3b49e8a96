import assert from "node:assert/strict";
import { accuracy, ece, meanBrier, meanKl, percentile } from "./aggregate.ts";
import { BootstrapAccumulator, type BootstrapInput, bootstrapIntervals } from "./bootstrap.ts";
import { seededRandom } from "./rng.ts";
import { poissonWeights } from "./_poisson.ts";
import { assertClose } from "./_assert_close.ts";
import { METRIC_NAMES, METRIC_REGISTRY } from "./registry.ts";

/** Every registered metric's interval n/a, with `overrides`. */
function allNull(overrides: Record<string, [number, number]> = {}): Record<string, unknown> {
  return { ...Object.fromEntries(METRIC_NAMES.map((name) => [name, null])), ...overrides };
}

const timeout = { kind: "timeout" as const, message: "Timed out" };

/** A synthetic run: `cases` cases of 5 decisions, some errors, varied confidences. */
function synthetic(cases: number, seed: number): BootstrapInput[] {
  const random = seededRandom(seed);
  const out: BootstrapInput[] = [];
  for (let c = 0; c < cases; c++) {
    const failed = random() < 0.05;
    for (let q = 0; q < 5; q++) {
      if (failed) {
        out.push({
          case: `c${c}`,
          correct: false,
          confidence: null,
          kl: null,
          brier: null,
          error: timeout,
        });
        continue;
      }
      const confidence = 0.3 + 0.7 * random();
      out.push({
        case: `c${c}`,
        correct: random() < confidence,
        confidence,
        kl: random(),
        brier: 2 * random() * random(),
        error: null,
      });
    }
  }
  return out;
}

Deno.test("`bootstrapIntervals()` gives the same intervals for the same seed", () => {
  const d = synthetic(100, 1);
  assert.deepEqual(bootstrapIntervals(d, { seed: 5 }), bootstrapIntervals(d, { seed: 5 }));
  assert.notDeepEqual(bootstrapIntervals(d, { seed: 5 }), bootstrapIntervals(d, { seed: 6 }));
});

Deno.test("`bootstrapIntervals()` intervals contain the point estimates", () => {
  const d = synthetic(400, 2);
  const iv = bootstrapIntervals(d);
  const points = { accuracy: accuracy(d), kl: meanKl(d), brier: meanBrier(d), ece: ece(d) };
  for (const [name, point] of Object.entries(points)) {
    const interval = iv[name as keyof typeof points];
    assert.ok(interval !== null && point !== null, `${name} interval missing`);
    assert.ok(
      interval[0] <= point && point <= interval[1],
      `${name} ${point} outside [${interval}]`,
    );
    assert.ok(interval[0] < interval[1], `${name} interval is degenerate`);
  }
});

Deno.test("`bootstrapIntervals()` equals a naive Poisson bootstrap with the same weights", () => {
  // Replicate r repeats each case's decisions w times, w its Poisson weight for (seed, case, r);
  // each metric is recomputed over that multiset with the aggregate functions.
  const d = synthetic(30, 3);
  const resamples = 50;
  const byCase = new Map<string, BootstrapInput[]>();
  for (const x of d) byCase.set(x.case, [...(byCase.get(x.case) ?? []), x]);
  const weights = new Map(
    [...byCase.keys()].map((id) => [id, poissonWeights(9, id, new Uint8Array(resamples))]),
  );
  const stats = {
    accuracy: [] as number[],
    kl: [] as number[],
    brier: [] as number[],
    ece: [] as number[],
  };
  for (let r = 0; r < resamples; r++) {
    const drawn: BootstrapInput[] = [];
    for (const [id, list] of byCase) {
      for (let k = 0; k < weights.get(id)![r]!; k++) drawn.push(...list);
    }
    stats.accuracy.push(accuracy(drawn) ?? Number.NaN);
    stats.kl.push(meanKl(drawn) ?? Number.NaN);
    stats.brier.push(meanBrier(drawn) ?? Number.NaN);
    stats.ece.push(ece(drawn) ?? Number.NaN);
  }
  const iv = bootstrapIntervals(d, { resamples, seed: 9 });
  for (const name of ["accuracy", "kl", "brier", "ece"] as const) {
    const interval = iv[name];
    assert.ok(interval !== null);
    // Replicate sums add values rounded to 2^-24.
    assertClose(interval[0], percentile(stats[name], 2.5) ?? Number.NaN, 1e-7, `${name} lower`);
    assertClose(interval[1], percentile(stats[name], 97.5) ?? Number.NaN, 1e-7, `${name} upper`);
  }
});

Deno.test("`bootstrapIntervals()` resamples whole cases, not single decisions", () => {
  // Case a: 5 right; case b: 5 wrong. Weighing the two cases gives accuracy wa/(wa + wb): 0 or 1
  // whenever one weight is 0 and the other not (about 23% of replicates each), so the 95%
  // interval is exactly [0, 1]. Weighing the 10 decisions independently would give roughly
  // [0.2, 0.8].
  const d = [
    ...Array.from(
      { length: 5 },
      () => ({ case: "a", correct: true, confidence: 0.9, kl: 0.1, brier: 0.1, error: null }),
    ),
    ...Array.from(
      { length: 5 },
      () => ({ case: "b", correct: false, confidence: 0.9, kl: 0.1, brier: 0.1, error: null }),
    ),
  ];
  assert.deepEqual(bootstrapIntervals(d).accuracy, [0, 1]);
});

Deno.test("`bootstrapIntervals()` on a single case collapses to the point estimates", () => {
  const d = synthetic(1, 4).filter((x) => x.error === null);
  assert.ok(d.length === 5);
  const iv = bootstrapIntervals(d);
  const points = { accuracy: accuracy(d), kl: meanKl(d), brier: meanBrier(d), ece: ece(d) };
  // Every replicate that weighs the case at all gives the point estimate (replicate sums add
  // values rounded to 2^-24); those that weigh it 0 are n/a and left out.
  for (const name of ["accuracy", "kl", "brier", "ece"] as const) {
    assertClose(iv[name]?.[0], points[name] ?? Number.NaN, 1e-7, `${name} lower`);
    assertClose(iv[name]?.[1], points[name] ?? Number.NaN, 1e-7, `${name} upper`);
  }
});

Deno.test("`bootstrapIntervals()` gives n/a intervals where the metric is n/a", async (t) => {
  await t.step("no decisions", () => {
    assert.deepEqual(bootstrapIntervals([]), allNull());
  });
  await t.step("only errors: accuracy [0, 0], the rest null", () => {
    const d = [{
      case: "a",
      correct: false,
      confidence: null,
      kl: null,
      brier: null,
      error: timeout,
    }];
    assert.deepEqual(bootstrapIntervals(d), allNull({ accuracy: [0, 0] }));
  });
  await t.step("resamples 0 skips the bootstrap", () => {
    assert.deepEqual(bootstrapIntervals(synthetic(10, 5), { resamples: 0 }), allNull());
  });
});

Deno.test("`bootstrapIntervals()` rejects invalid options", async (t) => {
  const d = synthetic(5, 6);
  for (
    const [name, options] of [
      ["negative resamples", { resamples: -1 }],
      ["fractional resamples", { resamples: 1.5 }],
      ["level 1", { level: 1 }],
      ["level 0", { level: 0 }],
      ["fractional seed", { seed: 0.5 }],
    ] as const
  ) {
    await t.step(name, () => {
      assert.throws(() => bootstrapIntervals(d, options), RangeError);
    });
  }
});

Deno.test("`bootstrapIntervals()` narrows with a lower level", () => {
  const d = synthetic(200, 7);
  const wide = bootstrapIntervals(d, { level: 0.95 }).accuracy;
  const narrow = bootstrapIntervals(d, { level: 0.5 }).accuracy;
  assert.ok(wide !== null && narrow !== null);
  assert.ok(narrow[1] - narrow[0] < wide[1] - wide[0]);
});

Deno.test("bootstrapIntervals gives each metric the same interval alone as with all the others", () => {
  // Together, the additive metrics share one pass over the cases and the rank-based ones one
  // sort: alone, each metric does its own.
  const decisions = synthetic(150, 11);
  const together = bootstrapIntervals(decisions, { resamples: 300, seed: 5 });
  for (const m of METRIC_REGISTRY) {
    const alone = bootstrapIntervals(decisions, { resamples: 300, seed: 5, metrics: [m] });
    assert.deepEqual(alone[m.name], together[m.name], m.name);
  }
});

/** Each case's decisions, cases in order of first appearance. */
function casesOf(decisions: BootstrapInput[]): BootstrapInput[][] {
  const byCase = new Map<string, BootstrapInput[]>();
  for (const d of decisions) byCase.set(d.case, [...byCase.get(d.case) ?? [], d]);
  return [...byCase.values()];
}

Deno.test("a `BootstrapAccumulator` fed case by case gives the intervals computed at once", () => {
  const decisions = synthetic(80, 13);
  const cases = casesOf(decisions);
  const options = { resamples: 300, seed: 2 };
  const sums = new BootstrapAccumulator(cases.length, options);
  for (const list of cases) sums.add(list);
  assert.equal(sums.added, 80);
  const fed = bootstrapIntervals(decisions, { ...options, accumulated: sums });
  assert.deepEqual(fed, bootstrapIntervals(decisions, options));
  assert.throws(() => new BootstrapAccumulator(-1), /case count "-1" is not a count/);
});

Deno.test("sums fed other cases, or made with other options, are not read", async (t) => {
  const decisions = synthetic(40, 14);
  const cases = casesOf(decisions);
  const fresh = bootstrapIntervals(decisions, { resamples: 200, seed: 3 });
  const fed = (sums: BootstrapAccumulator, lists: BootstrapInput[][]) => {
    for (const list of lists) sums.add(list);
    return bootstrapIntervals(decisions, { resamples: 200, seed: 3, accumulated: sums });
  };
  // Every KL fed as 9: read, the KL interval would be [9, 9].
  const nine = cases.map((list) => list.map((d) => (d.kl === null ? d : { ...d, kl: 9 })));
  await t.step("the same cases are read", () => {
    const sums = new BootstrapAccumulator(40, { resamples: 200, seed: 3 });
    assert.deepEqual(fed(sums, nine).kl, [9, 9]);
  });
  await t.step("another seed", () => {
    assert.deepEqual(fed(new BootstrapAccumulator(40, { resamples: 200, seed: 4 }), nine), fresh);
  });
  await t.step("other resamples", () => {
    assert.deepEqual(fed(new BootstrapAccumulator(40, { resamples: 100, seed: 3 }), nine), fresh);
  });
  await t.step("the same cases in another order are read", () => {
    const sums = new BootstrapAccumulator(40, { resamples: 200, seed: 3 });
    assert.deepEqual(fed(sums, nine.toReversed()).kl, [9, 9]);
  });
  await t.step("not every case", () => {
    const sums = new BootstrapAccumulator(40, { resamples: 200, seed: 3 });
    for (const list of nine.slice(0, 39)) sums.add(list);
    assert.deepEqual(
      bootstrapIntervals(decisions, { resamples: 200, seed: 3, accumulated: sums }),
      fresh,
    );
  });
  await t.step("other metrics", () => {
    const metrics = METRIC_REGISTRY.filter((m) => m.name !== "nll");
    assert.deepEqual(
      fed(new BootstrapAccumulator(40, { resamples: 200, seed: 3, metrics }), nine),
      fresh,
    );
  });
});

Deno.test("a metric that reads another's totals (`totalsOf`: mce reads ece's) adds exactly the totals its owner adds", () => {
  const readers = METRIC_REGISTRY.filter((m) => m.kind === "additive" && m.totalsOf !== undefined);
  assert.ok(readers.some((m) => m.name === "mce"));
  const edges = [0, 0.1, 0.5, 0.95, 0.99999, 1].map((confidence, i) => ({
    case: `e${i}`,
    correct: i % 2 === 0,
    confidence,
    kl: 0.1,
    brier: 0.2,
    error: null,
  }));
  const decisions = [...synthetic(60, 3), ...edges];
  for (const m of readers) {
    if (m.kind !== "additive") continue;
    const owner = METRIC_REGISTRY.find((o) => o.name === m.totalsOf);
    assert.ok(owner?.kind === "additive", `${m.name} reads "${m.totalsOf}"`);
    assert.equal(m.width, owner.width);
    assert.equal(m.over, owner.over);
    const mine = new Float64Array(m.width);
    const theirs = new Float64Array(owner.width);
    for (const d of decisions) {
      m.add(mine, 0, d);
      owner.add(theirs, 0, d);
    }
    assert.deepEqual([...mine], [...theirs], m.name);
  }
  // Read off the shared sums or off its own (alone), the interval is the same.
  const both = bootstrapIntervals(decisions, { resamples: 200, seed: 2 });
  const mce = METRIC_REGISTRY.filter((m) => m.name === "mce");
  assert.deepEqual(
    bootstrapIntervals(decisions, { resamples: 200, seed: 2, metrics: mce }).mce,
    both.mce,
  );
});
