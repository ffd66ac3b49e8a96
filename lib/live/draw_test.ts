import assert from "node:assert/strict";
import { decision, META, probe } from "./_fixtures.ts";
import { drawLive, type TerminalSize } from "./draw.ts";
import { LLAMACPP_METRICS } from "./server_load.ts";
import { displayWidth } from "./_text.ts";
import { addFailedScrape, addProbe, addScrape, createLiveState, type LiveState } from "./state.ts";

/** A busy state with long and awkward text everywhere. */
function busyState(): LiveState {
  let state = createLiveState(
    {
      ...META,
      endpoint: `http://a-very-long-host-name.example.internal:8080/${"v".repeat(60)}/v1/systemone`,
    },
    0,
    { metricsUrl: "http://127.0.0.1:8080/metrics" },
  );
  for (let i = 0; i < 30; i++) {
    state = addProbe(
      state,
      probe(`customer_service_${String(i).padStart(6, "0")}`, {
        correct: i % 3 === 0,
        confidence: 0.55 + (i % 5) / 10,
      }),
      1000 * i,
    );
  }
  state = addProbe(state, {
    ...probe("customer_service_000777"),
    statePreview: `{"note":"顧客は返金を求めています 🙂 ${"x".repeat(300)}"}`,
    records: [
      decision({
        caseId: "customer_service_000777",
        question: "credential_compromise",
        type: "noul",
        correct: false,
        confidence: 0.97,
      }),
      decision({
        caseId: "customer_service_000777",
        question: "discrepancy_severity",
        type: "score",
        correct: true,
      }),
      decision({
        caseId: "customer_service_000777",
        question: "action",
        type: "choice",
        correct: false,
        confidence: 0.4,
      }),
      decision({
        caseId: "customer_service_000777",
        question: "urgency",
        type: "score",
        correct: true,
      }),
      decision({
        caseId: "customer_service_000777",
        question: "needs_human",
        type: "noul",
        correct: true,
      }),
    ],
  }, 31_000);
  state = addScrape(state, {
    at: 30_000,
    values: { [LLAMACPP_METRICS.decodes]: 10, [LLAMACPP_METRICS.promptTokens]: 5000 },
  });
  state = addScrape(state, {
    at: 31_000,
    values: {
      [LLAMACPP_METRICS.decodes]: 12,
      [LLAMACPP_METRICS.promptTokens]: 6234,
      [LLAMACPP_METRICS.busySlots]: 1,
      [LLAMACPP_METRICS.processing]: 0,
      [LLAMACPP_METRICS.deferred]: 0,
    },
  });
  return state;
}

const SIZES: TerminalSize[] = [
  { columns: 20, rows: 5 },
  { columns: 19, rows: 3 },
  { columns: 40, rows: 10 },
  { columns: 60, rows: 20 },
  { columns: 80, rows: 24 },
  { columns: 99, rows: 30 },
  { columns: 100, rows: 30 },
  { columns: 120, rows: 40 },
  { columns: 133, rows: 17 },
  { columns: 200, rows: 60 },
];

Deno.test("`drawLive()` never draws a line wider than the terminal and fills every row", async (t) => {
  const states: [string, LiveState][] = [
    ["empty", createLiveState(META, 0)],
    ["busy", busyState()],
    [
      "failing",
      addProbe(
        busyState(),
        probe("x", { error: "network" }, {
          error: {
            kind: "network",
            message: `Cannot reach "http://h:1/v1/systemone": ${"refused ".repeat(40)}`,
            status: null,
          },
        }),
        32_000,
      ),
    ],
  ];
  for (const [name, state] of states) {
    for (const size of SIZES) {
      for (const color of [false, true]) {
        await t.step(`${name} at ${size.columns}×${size.rows}${color ? " in colour" : ""}`, () => {
          const lines = drawLive(state, size, { now: 31_500, color });
          assert.equal(lines.length, size.rows);
          for (const line of lines) {
            assert.ok(
              displayWidth(line) <= size.columns,
              `${displayWidth(line)} cells > ${size.columns}: ${JSON.stringify(line)}`,
            );
          }
        });
      }
    }
  }
  await t.step("zero rows draw nothing", () => {
    assert.deepEqual(drawLive(busyState(), { columns: 80, rows: 0 }), []);
  });
});

Deno.test("`drawLive()` shows every panel, the figures and the dataset credit at 120×40", () => {
  const lines = drawLive(busyState(), { columns: 120, rows: 40 }, { now: 31_500 });
  const text = lines.join("\n");
  for (
    const expected of [
      "decibench live · workflow reference",
      "probes 31",
      "── now · customer_service_000777 · 3/5 match gold · latency 10 ms · 500 input tokens",
      "✗ credential_compromise  noul     97%  false  gold true",
      "✓ urgency",
      "── quality · last 100 decisions",
      "── confidence · last 100 answered decisions",
      "── by question type · session accuracy",
      "── server",
      "latency p50 10 ms · p95 10 ms",
      "input tokens sent 15,500 in 31 probes",
      "requests/s 2.00 · input tokens/s 1,234",
      "busy slots 1.00 · processing 0 · queued 0",
      "confident mistakes (wrong at ≥ 90%)",
      "Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)",
    ]
  ) assert.ok(text.includes(expected), `missing ${JSON.stringify(expected)} in\n${text}`);
  assert.match(lines.at(-1) ?? "", /^Ctrl\+R reset · Ctrl\+C quit · data: Typed Decisions/);
  assert.ok(!text.includes("hidden"), "everything fits at 120×40");
});

Deno.test("`drawLive()` raises the confident-mistake banner until it expires", () => {
  const state = busyState();
  const up = drawLive(state, { columns: 160, rows: 40 }, { now: 31_500 });
  assert.match(
    up[1] ?? "",
    /⚠ confident mistake: customer_service_000777 · credential_compromise \(noul\) answered false at 97\.0%, gold true/,
  );
  const later = drawLive(state, { columns: 160, rows: 40 }, { now: 31_000 + 5000 });
  assert.equal(later[1], "");
});

Deno.test('`drawLive()` shows "model unreachable" after three probes in a row without an answer', () => {
  let state = busyState();
  for (let i = 0; i < 3; i++) {
    state = addProbe(state, probe(`f${i}`, { error: "network" }), 40_000 + i);
  }
  const lines = drawLive(state, { columns: 120, rows: 40 }, { now: 40_010 });
  assert.match(
    lines[1] ?? "",
    /⚠ model unreachable: 3 probes in a row got no answer · probing continues/,
  );
  assert.ok(lines.some((l) => l.includes("✗ network: failed: network (1 attempt)")));
  assert.ok(lines.some((l) => l.includes("failed probes 3 of 34")));
});

Deno.test("`drawLive()` without /metrics shows latency and tokens only", async (t) => {
  const base = addProbe(createLiveState(META, 0), probe("a"), 1);
  const cases: [string, LiveState, RegExp][] = [
    ["metrics off", base, /\/metrics off: latency and tokens only/],
    [
      "metrics failing",
      addFailedScrape(
        addProbe(createLiveState(META, 0, { metricsUrl: "http://h/metrics" }), probe("a"), 1),
        "HTTP 404",
      ),
      /\/metrics unavailable: HTTP 404 · latency and tokens only/,
    ],
  ];
  for (const [name, state, expected] of cases) {
    await t.step(name, () => {
      const text = drawLive(state, { columns: 120, rows: 40 }, { now: 2 }).join("\n");
      assert.match(text, expected);
      assert.match(text, /latency p50 10 ms/);
      assert.doesNotMatch(text, /requests\/s/);
    });
  }
});

Deno.test("`drawLive()` leaves out panels that do not fit the height and says so", () => {
  const lines = drawLive(busyState(), { columns: 80, rows: 16 }, { now: 31_500 });
  assert.ok(lines.some((l) => l.includes("── now")));
  assert.ok(!lines.some((l) => l.includes("── confidence")));
  assert.match(lines.at(-3) ?? "", /^\d panels hidden: enlarge the terminal$/);
});

Deno.test("`drawLive()` keeps the whole dataset credit on a narrow terminal", async (t) => {
  await t.step("one footer line when keys and credit fit", () => {
    const lines = drawLive(busyState(), { columns: 140, rows: 40 }, { now: 31_500 });
    assert.equal(
      lines.at(-1),
      "Ctrl+R reset · Ctrl+C quit · data: Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)",
    );
  });
  await t.step("two footer lines at 80 columns", () => {
    const lines = drawLive(busyState(), { columns: 80, rows: 24 }, { now: 31_500 });
    assert.equal(
      lines.at(-2),
      "data: Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)",
    );
    assert.equal(lines.at(-1), "Ctrl+R reset · Ctrl+C quit");
  });
});

Deno.test("`drawLive()` names the workflow when the case id does not start with it", () => {
  const state = addProbe(createLiveState(META, 0), probe("case-9"), 1);
  const lines = drawLive(state, { columns: 120, rows: 30 }, { now: 2 });
  assert.match(lines[2] ?? "", /^── now · case-9 \(customer_service\) · 5\/5 match gold/);
});

Deno.test("`drawLive()` keeps escape characters from a server message off the screen", () => {
  const state = addProbe(
    createLiveState(META, 0),
    probe("a", { error: "unavailable" }, {
      error: { kind: "unavailable", message: "HTTP 500: \x1b[2J\x1b]0;pwned\x07boom", status: 500 },
    }),
    1,
  );
  const lines = drawLive(state, { columns: 120, rows: 30 }, { now: 2, color: false });
  assert.ok(lines.every((l) => !l.includes("\x1b") && !l.includes("\x07")));
  assert.ok(lines.some((l) => l.includes("boom")));
});

Deno.test("`drawLive()` says the terminal is too small below 20 columns or 5 rows", () => {
  assert.deepEqual(drawLive(busyState(), { columns: 30, rows: 3 }), [
    "decibench live: terminal too …",
    "",
    "",
  ]);
});
