import assert from "node:assert/strict";
import { uniformPredictor } from "./uniform.ts";

Deno.test("`uniformPredictor()` puts equal probability on every option", () => {
  const distributions = uniformPredictor().predict("state", {
    pick: {
      type: "choice",
      instructions: "Which?",
      criteria: { a: null, b: null, c: null, d: "" },
    },
    level: { type: "score", instructions: "How bad?", criteria: ["0", "1", "2", "3", "4"] },
    ok: { type: "noul", instructions: "Fine?" },
  });
  assert.deepEqual(distributions, {
    pick: { a: 0.25, b: 0.25, c: 0.25, d: 0.25 },
    level: { "0": 0.2, "1": 0.2, "2": 0.2, "3": 0.2, "4": 0.2 },
    ok: { true: 0.5, false: 0.5 },
  });
});
