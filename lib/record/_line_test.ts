import assert from "node:assert/strict";
import { loadDataset } from "../dataset/load.ts";
import { optionsOf } from "../dataset/questions.ts";
import type { Case } from "../dataset/schemas.ts";
import type { CaseOutcome } from "../client/ask.ts";
import type { EngineReply } from "../client/engine.ts";
import { seededRandom } from "../metrics/rng.ts";
import { recordLine } from "./_line.ts";
import { decisionRecords } from "./decisions.ts";

type Outcome = Pick<CaseOutcome, "reply" | "error" | "attempts" | "latencyMs">;

function randomReply(item: Case, random: () => number, extras: Partial<EngineReply> = {}) {
  const answers: EngineReply["answers"] = {};
  for (const [name, question] of Object.entries(item.questions)) {
    const options = optionsOf(question);
    const raw = options.map(() => random());
    const sum = raw.reduce((a, b) => a + b, 0);
    const probabilities = Object.fromEntries(options.map((o, i) => [o, raw[i]! / sum]));
    answers[name] = {
      type: question.type,
      probabilities,
      probability: Math.max(...Object.values(probabilities)),
      calibrated: random() < 0.8,
    };
  }
  return { answers, ...extras };
}

function assertLines(item: Case, outcome: Outcome, options: { endpoint?: string } = {}): void {
  for (const record of decisionRecords(item, outcome, options)) {
    assert.equal(recordLine(record), JSON.stringify(record));
  }
}

Deno.test("`recordLine()` is `JSON.stringify` on every test-split case, answered and failed", async () => {
  const { cases } = await loadDataset();
  const random = seededRandom(3);
  for (const item of cases) {
    assertLines(item, {
      reply: randomReply(item, random, { inputTokens: 431, model: "m" }),
      error: null,
      attempts: 1,
      latencyMs: random() * 100,
    });
    // The same case again: its cached parts are reused.
    assertLines(item, {
      reply: randomReply(item, random),
      error: null,
      attempts: 3,
      latencyMs: null,
    }, { endpoint: "llama.cpp" });
    assertLines(item, {
      reply: null,
      error: { kind: "malformed", message: `answers.risk: "x" is not a number — ünïcode \u2028` },
      attempts: 1,
      latencyMs: 12.3456789,
    });
  }
});

Deno.test("`recordLine()` builds the line from the parts cached for the case question", async () => {
  const { cases } = await loadDataset();
  const [record] = decisionRecords(cases[0]!, {
    reply: null,
    error: null,
    attempts: 0,
    latencyMs: null,
  });
  // Proof the cached head is used: a record changed after it was built keeps its old head.
  record!.case = "changed";
  assert.match(recordLine(record!), /^\{"case":"agent_trace_observability_000000"/);
});

Deno.test("`recordLine()` is `JSON.stringify` with every optional field and odd names", async (t) => {
  const item: Case = {
    id: 'case "7"\\é',
    workflow: "my_flow",
    state: { x: 1 },
    questions: {
      "größe": {
        type: "choice",
        instructions: "Which?",
        criteria: ["b", "10", "2", 'quote"d', "\u2028"],
      },
      ok: { type: "noul", instructions: "Fine?" },
      level: { type: "score", instructions: "How much?", criteria: ["none", "some", "lots"] },
    },
    gold: {
      "größe": {
        type: "choice",
        label: "10",
        confidence: 0.5,
        probabilities: { "10": 0.5, b: 0.25, "2": 0.25, 'quote"d': 0, "\u2028": 0 },
      },
      ok: {
        type: "noul",
        label: "false",
        confidence: 0.2,
        noul: 0.4,
        probabilities: { false: 0.6, true: 0.4 },
      },
      level: {
        type: "score",
        label: "1",
        confidence: 0.1,
        score: 1,
        probabilities: { "0": 0.2, "1": 0.5, "2": 0.3 },
      },
    },
  } as unknown as Case;
  const random = seededRandom(9);
  const outcomes: [string, Outcome, { endpoint?: string }][] = [
    ["plain", { reply: randomReply(item, random), error: null, attempts: 1, latencyMs: 0 }, {}],
    ["relay fields", {
      reply: randomReply(item, random, {
        responseId: "gen-1",
        provider: "TypeSafe",
        cost: 0.000123,
        inputTokens: 12.5,
      }),
      error: null,
      attempts: 2,
      latencyMs: 1e-7,
    }, { endpoint: "openrouter" }],
    ["native and warnings", {
      reply: {
        answers: Object.fromEntries(
          Object.entries(randomReply(item, random).answers).map(([k, a]) => [k, {
            ...a,
            native: { confidence: 0.9, fit_mass: 0.4, nested: { list: [1, "two", null] } },
            warnings: ["low fit_mass 0.40: no level describes the state well"],
          }]),
        ),
      },
      error: null,
      attempts: 1,
      latencyMs: 123456.789,
    }, {}],
    ["an error with a status", {
      reply: null,
      error: { kind: "invalid_request", message: "HTTP 400", status: 400 } as Outcome["error"],
      attempts: 1,
      latencyMs: 4,
    }, { endpoint: "x" }],
    ["a tie and a zero", {
      reply: {
        answers: {
          "größe": {
            type: "choice",
            probabilities: { b: 0.5, "10": 0.5, "2": 0, 'quote"d': 0, "\u2028": 0 },
            probability: 0.5,
            calibrated: false,
          },
          ok: {
            type: "noul",
            probabilities: { true: 0.5, false: 0.5 },
            probability: 0.5,
            calibrated: true,
          },
        },
      },
      error: null,
      attempts: 1,
      latencyMs: 2,
    }, {}],
  ];
  for (const [name, outcome, options] of outcomes) {
    await t.step(name, () => assertLines(item, outcome, options));
  }
});
