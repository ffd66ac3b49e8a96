import assert from "node:assert/strict";
import {
  checkFaults,
  drawFault,
  FAULT_KINDS,
  jitterDistributions,
  jitterOf,
  parseFaults,
} from "./faults.ts";
import { unitDraw } from "../hash32.ts";

Deno.test("`parseFaults()` reads kind=rate pairs in order", async (t) => {
  const cases: [string, unknown][] = [
    ["", []],
    [" ", []],
    ["http500=0.05", [{ kind: "http500", rate: 0.05 }]],
    [
      "malformed=0.05, http500=0.05,out_of_range=0.03",
      [
        { kind: "malformed", rate: 0.05 },
        { kind: "http500", rate: 0.05 },
        { kind: "out_of_range", rate: 0.03 },
      ],
    ],
    ["http429=0.1:0", [{ kind: "http429", rate: 0.1, retryAfterSeconds: 0 }]],
    ["http429=1:2,", [{ kind: "http429", rate: 1, retryAfterSeconds: 2 }]],
    ["reset=0,timeout=1", [{ kind: "reset", rate: 0 }, { kind: "timeout", rate: 1 }]],
  ];
  for (const [spec, expected] of cases) {
    await t.step(JSON.stringify(spec), () => {
      assert.deepEqual(parseFaults(spec), expected);
    });
  }
});

Deno.test("`parseFaults()` refuses a bad part with a RangeError naming it", async (t) => {
  const cases: [string, RegExp][] = [
    ["http500", /Cannot parse fault "http500": expected kind=rate/],
    ["http500=", /Cannot parse fault "http500=": rate "" is not a number in \[0,1\]/],
    ["http500=abc", /rate "abc" is not a number/],
    ["http500=1.5", /Cannot parse fault "http500=1.5": rate "1.5"/],
    ["http500=-0.1", /rate "-0.1"/],
    ["nope=0.1", /Cannot parse fault "nope=0.1": unknown kind "nope"; known kinds are http500,/],
    ["http500=0.1,http500=0.2", /Cannot parse fault "http500=0.2": "http500" is given twice/],
    ["http500=0.1:3", /only http429 takes ":seconds"/],
    ["http429=0.1:x", /Retry-After "x" is not a whole number of seconds/],
    ["http429=0.1:1.5", /Retry-After "1.5"/],
    ["http500=0.6,reset=0.6", /the rates sum to 1.2, more than 1/],
  ];
  for (const [spec, message] of cases) {
    await t.step(spec, () => {
      assert.throws(() => parseFaults(spec), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});

Deno.test("`checkFaults()` validates faults given as data", () => {
  assert.deepEqual(checkFaults([{ kind: "reset", rate: 0.5 }]), [{ kind: "reset", rate: 0.5 }]);
  assert.throws(
    () => checkFaults([{ kind: "reset", rate: 2 }]),
    /Cannot use fault "reset": rate "2" is not a number in \[0,1\]/,
  );
  assert.throws(
    // @ts-expect-error: an unknown kind, as a caller without types could pass
    () => checkFaults([{ kind: "boom", rate: 0.1 }]),
    /unknown kind "boom"/,
  );
});

Deno.test("`drawFault()` depends only on seed and index", () => {
  const faults = parseFaults("http500=0.2,reset=0.2,malformed=0.2");
  const run = (seed: number) =>
    Array.from({ length: 200 }, (_, i) => drawFault(faults, seed, i)?.kind ?? "-");
  assert.deepEqual(run(7), run(7));
  assert.notDeepEqual(run(7), run(8));
  // Drawing out of order gives the same fault for the same index.
  assert.equal(drawFault(faults, 7, 150)?.kind ?? "-", run(7)[150]);
});

Deno.test("`drawFault()` injects each fault at about its rate", () => {
  const faults = parseFaults("http500=0.1,timeout=0.3");
  const counts = new Map<string, number>();
  const n = 20_000;
  for (let i = 0; i < n; i++) {
    const kind = drawFault(faults, 42, i)?.kind ?? "none";
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  // Binomial standard deviations are ~42 and ~65: allow 5 of them.
  assert.ok(Math.abs((counts.get("http500") ?? 0) - 2_000) < 250, `${counts.get("http500")}`);
  assert.ok(Math.abs((counts.get("timeout") ?? 0) - 6_000) < 350, `${counts.get("timeout")}`);
  assert.ok(Math.abs((counts.get("none") ?? 0) - 12_000) < 400, `${counts.get("none")}`);
});

Deno.test("`drawFault()` always or never injects at rates 1 and 0", () => {
  for (let i = 0; i < 100; i++) {
    assert.equal(drawFault(parseFaults("http404=1"), 3, i)?.kind, "http404");
    assert.equal(drawFault(parseFaults("http404=0"), 3, i), undefined);
  }
  assert.equal(drawFault([], 3, 0), undefined);
});

Deno.test("`unitDraw()` stays in [0,1) for large seeds and indices", () => {
  for (const seed of [0, 1, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
    for (const index of [0, 1, 2 ** 31, 2 ** 40]) {
      const u = unitDraw(seed, index);
      assert.ok(u >= 0 && u < 1, `${seed}/${index}: ${u}`);
    }
  }
  assert.notEqual(unitDraw(2 ** 32, 0), unitDraw(0, 0));
});

Deno.test("`FAULT_KINDS` lists every kind the spec names", () => {
  for (
    const kind of [
      "http500",
      "http503",
      "http429",
      "http404",
      "timeout",
      "reset",
      "malformed",
      "truncated",
      "out_of_range",
      "missing_option",
    ]
  ) {
    assert.ok((FAULT_KINDS as readonly string[]).includes(kind), kind);
  }
});

Deno.test("`parseFaults()` reads jitter=SD beside rate faults, outside the sum of rates", () => {
  assert.deepEqual(parseFaults("jitter=0.02"), [{ kind: "jitter", rate: 1, sd: 0.02 }]);
  const faults = parseFaults("http500=1,jitter=0.5");
  assert.equal(jitterOf(faults), 0.5);
  assert.equal(jitterOf(parseFaults("http500=0.1")), 0);
  // jitter is never the per-request fault
  for (let i = 0; i < 50; i++) assert.equal(drawFault(faults, 1, i)?.kind, "http500");
  assert.equal(drawFault(parseFaults("jitter=0.1"), 1, 0), undefined);
  assert.throws(() => parseFaults("jitter=2"), /Cannot parse fault "jitter=2": rate "2"/);
  assert.throws(
    () => checkFaults([{ kind: "jitter", rate: 1, sd: -1 }]),
    /Cannot use fault "jitter": standard deviation "-1" is not a number in \[0,1\]/,
  );
});

Deno.test("`jitterDistributions()` adds seeded noise of about SD and keeps distributions valid", () => {
  const questions = {
    pick: { type: "choice" as const, instructions: "Pick", criteria: ["a", "b", "c"] },
    ok: { type: "noul" as const, instructions: "Fine?" },
  };
  const clean = { pick: { a: 0.5, b: 0.3, c: 0.2 }, ok: { true: 0.7, false: 0.3 } };
  const options = { sd: 0.02, seed: 4 };
  const noisy = jitterDistributions(clean, questions, { ...options, index: 9 });
  assert.deepEqual(noisy, jitterDistributions(clean, questions, { ...options, index: 9 }));
  assert.notDeepEqual(noisy, jitterDistributions(clean, questions, { ...options, index: 10 }));
  assert.deepEqual(Object.keys(noisy.pick!), ["a", "b", "c"]);
  assert.deepEqual(clean.pick, { a: 0.5, b: 0.3, c: 0.2 });
  // over many requests: every distribution sums to 1, and P(yes) moves by about sd·√2/2
  let squared = 0;
  const n = 4000;
  for (let i = 0; i < n; i++) {
    const d = jitterDistributions(clean, questions, { ...options, index: i });
    for (const dist of Object.values(d)) {
      const values = Object.values(dist);
      assert.ok(values.every((p) => p >= 0 && p <= 1));
      assert.ok(Math.abs(values.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    }
    squared += (d.ok!.true! - 0.7) ** 2;
  }
  // (p + e1)/(1 + e1 + e2) − p ≈ (1 − p)·e1 − p·e2: sd·√(0.3² + 0.7²) ≈ 0.0152
  const rms = Math.sqrt(squared / n);
  assert.ok(rms > 0.013 && rms < 0.0175, `rms ${rms}`);
  // sd 0 changes nothing
  assert.deepEqual(jitterDistributions(clean, questions, { sd: 0, seed: 1, index: 0 }), clean);
});
