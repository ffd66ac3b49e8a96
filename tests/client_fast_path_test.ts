/**
 * The validation fast path keeps the spec's strict verdicts: on every reply of the reference
 * server's fault matrix (every answer fault, every predictor, every test case, over real HTTP),
 * and on systematic corruptions of valid replies, `parseSystemOneReply` (fast path first) gives
 * exactly what the full zod path gives — the same answers, or the same `AnswerValidationError`.
 */
import assert from "node:assert/strict";
import { loadDataset, optionsOf } from "../lib/dataset/mod.ts";
import type { Case } from "../lib/dataset/mod.ts";
import {
  fullParseSystemOneReply,
  parseJsonBody,
  parseSystemOneReply,
} from "../lib/client/schemas.ts";
import { systemOneEngine } from "../lib/client/systemone.ts";
import { startReferenceServer } from "../lib/server/mod.ts";

type Verdict = { ok: true; reply: unknown } | { ok: false; issues: string[] };

function verdict(parse: () => unknown): Verdict {
  try {
    return { ok: true, reply: parse() };
  } catch (error) {
    const issues = (error as { issues?: string[] }).issues;
    assert.ok(Array.isArray(issues), `not an AnswerValidationError: ${error}`);
    return { ok: false, issues };
  }
}

function sameVerdict(body: unknown, item: Case, options: { decimals?: number } = {}): boolean {
  const fast = verdict(() => parseSystemOneReply(body, item.questions, options));
  const full = verdict(() => fullParseSystemOneReply(body, item.questions, options));
  assert.deepEqual(fast, full);
  return fast.ok;
}

Deno.test("the fast path gives the zod path's verdict on every reply of the fault matrix", async (t) => {
  const { cases } = await loadDataset();
  for (const predictor of ["uniform", "oracle", "fitted"]) {
    for (const fault of ["", "malformed", "truncated", "out_of_range", "missing_option"]) {
      await t.step(`${predictor} ${fault || "no fault"}`, async () => {
        await using server = await startReferenceServer({
          predictor,
          ...(fault ? { faults: `${fault}=1` } : {}),
        });
        for (const route of ["", "/api"]) {
          const engine = systemOneEngine(`${server.url}${route}`);
          let accepted = 0;
          for (const item of cases) {
            const request = engine.build({
              state: item.state,
              questions: item.questions,
              model: "m",
              stateEncoding: "json",
            });
            const text = await (await fetch(request.url, {
              method: "POST",
              headers: request.headers,
              body: request.body,
            })).text();
            let body: unknown;
            try {
              body = parseJsonBody(text);
            } catch {
              continue; // malformed and truncated bodies never reach the answer checks
            }
            if (sameVerdict(body, item)) accepted++;
          }
          // Every case answered when nothing is injected; none when an answer is broken.
          const broken = fault === "out_of_range" || fault === "missing_option";
          if (fault === "") assert.equal(accepted, cases.length);
          if (broken) assert.equal(accepted, 0);
        }
      });
    }
  }
});

Deno.test("the fast path gives the zod path's verdict on corrupted replies", async () => {
  const { cases } = await loadDataset();
  const item = cases.find((c) => c.workflow === "security_incidents")!;
  const valid = () => {
    const answers: Record<string, Record<string, unknown>> = {};
    for (const [name, question] of Object.entries(item.questions)) {
      if (question.type === "noul") answers[name] = { type: "noul", noul: 0.3 };
      else {
        const options = optionsOf(question);
        answers[name] = {
          type: question.type,
          probabilities: Object.fromEntries(options.map((o) => [o, 1 / options.length])),
          confidence: 0,
        };
      }
    }
    return { model: "m", answers, usage: { input_tokens: 10, output_tokens: 0 } } as Record<
      string,
      // deno-lint-ignore no-explicit-any
      any
    >;
  };
  const [choice, score, noul] = ["choice", "score", "noul"].map((type) =>
    Object.keys(item.questions).find((n) => item.questions[n]!.type === type)!
  );
  const edits: [string, (r: ReturnType<typeof valid>) => void][] = [
    ["valid", () => {}],
    ["bool alias", (r) => (r.answers[noul!].type = "bool")],
    ["no type", (r) => delete r.answers[choice!].type],
    ["wrong type", (r) => (r.answers[choice!].type = "score")],
    ["bool on a choice", (r) => (r.answers[choice!].type = "bool")],
    ["missing answer", (r) => delete r.answers[score!]],
    ["extra answer", (r) => (r.answers.extra = { type: "noul", noul: 1 })],
    ["answer is a list", (r) => (r.answers[choice!] = [1])],
    ["answers is a list", (r) => (r.answers = [])],
    ["no answers", (r) => delete r.answers],
    ["model not a string", (r) => (r.model = 7)],
    ["usage not numbers", (r) => (r.usage.input_tokens = "10")],
    ["id not a string", (r) => (r.id = 1)],
    ["relay fields", (r) => Object.assign(r, { id: "gen", provider: "p", extra: true })],
    ["noul as a string", (r) => (r.answers[noul!].noul = "0.3")],
    ["noul negative", (r) => (r.answers[noul!].noul = -0.01)],
    ["noul exactly 1", (r) => (r.answers[noul!].noul = 1)],
    ["extra option", (r) => (r.answers[choice!].probabilities.other = 0)],
    ["missing option", (r) => {
      const p = r.answers[score!].probabilities;
      delete p[Object.keys(p).at(-1)!];
    }],
    ["probabilities a list", (r) => (r.answers[score!].probabilities = [0.5, 0.5])],
    ["sum 1.0009 (inside)", (r) => {
      const p = r.answers[choice!].probabilities;
      p[Object.keys(p)[0]!] += 0.0009;
    }],
    ["sum 1.0011 (outside)", (r) => {
      const p = r.answers[choice!].probabilities;
      p[Object.keys(p)[0]!] += 0.0011;
    }],
    ["a probability above 1", (r) => {
      const p = r.answers[score!].probabilities;
      p[Object.keys(p)[0]!] = 1.5;
    }],
    ["a null probability", (r) => {
      const p = r.answers[score!].probabilities;
      p[Object.keys(p)[0]!] = null;
    }],
    ["options out of order", (r) => {
      const p = r.answers[choice!].probabilities;
      r.answers[choice!].probabilities = Object.fromEntries(Object.entries(p).reverse());
    }],
    ["native with a low fit_mass", (r) => (r.answers[score!].native = { fit_mass: 0.3 })],
    ["native not an object", (r) => (r.answers[score!].native = "x")],
  ];
  for (const [name, edit] of edits) {
    const reply = valid();
    edit(reply);
    for (const decimals of [undefined, 4]) {
      assert.doesNotThrow(
        () => sameVerdict(reply, item, decimals === undefined ? {} : { decimals }),
        name,
      );
    }
  }
});
