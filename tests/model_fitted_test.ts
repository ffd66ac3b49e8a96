/**
 * The vendored fitted model and the train-split prior, end to end: their figures on the test
 * split, the predictors the reference server registers, and the training script's `--check`.
 * Both models are fitted on the train split only; the test split is only scored here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { loadDataset } from "../lib/dataset/mod.ts";
import { optionsOf } from "../lib/dataset/questions.ts";
import type { Question } from "../lib/dataset/schemas.ts";
import { figuresBy, figuresOf, scoreCases } from "../lib/model/evaluate.ts";
import { loadModel } from "../lib/model/model_file.ts";
import { createPredictor, startReferenceServer } from "../lib/server/mod.ts";
import "../lib/server/predictors/mod.ts";

const test = (await loadDataset({ split: "test" })).cases;

Deno.test("the vendored fitted model meets its targets on the test split", async () => {
  const fitted = await createPredictor("fitted");
  const figures = figuresOf(scoreCases(fitted, test));
  assert.equal(figures.n, 2000);
  assert.ok(figures.accuracy >= 0.70, `accuracy ${figures.accuracy}`);
  assert.ok(figures.kl <= 0.20, `KL ${figures.kl}`);
  assert.ok(figures.brier <= 0.11, `Brier ${figures.brier}`);
});

Deno.test("the fitted model beats the prior in every workflow on the test split", async () => {
  const fitted = figuresBy(scoreCases(await createPredictor("fitted"), test), "workflow");
  const prior = figuresBy(scoreCases(await createPredictor("prior"), test), "workflow");
  assert.equal(fitted.size, 4);
  for (const [workflow, figures] of fitted) {
    const base = prior.get(workflow)!;
    assert.ok(figures.accuracy > base.accuracy, `${workflow} accuracy`);
    assert.ok(figures.kl < base.kl, `${workflow} KL`);
  }
});

Deno.test("the prior from train reproduces the independent scorer's Prior row on the test split", async () => {
  const figures = figuresOf(scoreCases(await createPredictor("prior"), test));
  assert.equal(figures.accuracyTieAware.toFixed(4), "0.4865");
  assert.equal(figures.kl.toFixed(3), "0.327");
  assert.equal(figures.brier.toFixed(3), "0.181");
  // strict labels (ties to the dataset's pick) count 16 decisions fewer
  assert.equal(figures.accuracy.toFixed(4), "0.4785");
});

Deno.test("`prior` and `fitted` return a valid distribution for every test decision", async (t) => {
  for (const name of ["prior", "fitted"]) {
    await t.step(name, async () => {
      const predictor = await createPredictor(name);
      assert.equal(predictor.name, name);
      for (const c of test) {
        const answers = predictor.predict(c.state, c.questions);
        assert.deepEqual(Object.keys(answers), Object.keys(c.questions), c.id);
        for (const [question, spec] of Object.entries(c.questions)) {
          const distribution = answers[question]!;
          assert.deepEqual(Object.keys(distribution), optionsOf(spec), `${c.id}/${question}`);
          const values = Object.values(distribution);
          assert.ok(values.every((p) => Number.isFinite(p) && p >= 0 && p <= 1), c.id);
          assert.ok(Math.abs(values.reduce((s, p) => s + p, 0) - 1) < 1e-9, c.id);
        }
      }
    });
  }
});

Deno.test("`fitted` answers a state sent as JSON text like the same state sent as JSON", async () => {
  const fitted = await createPredictor("fitted");
  for (const c of test.slice(0, 40)) {
    assert.deepEqual(
      fitted.predict(JSON.stringify(c.state), c.questions),
      fitted.predict(c.state, c.questions),
    );
  }
});

Deno.test("`prior` and `fitted` refuse questions that match no trained workflow", async (t) => {
  const unknown: Record<string, Question> = {
    colour: { type: "choice", instructions: "Which colour?", criteria: ["red", "blue"] },
  };
  const ambiguous: Record<string, Question> = { urgency: test[0]!.questions.urgency! };
  for (const name of ["prior", "fitted"]) {
    await t.step(name, async () => {
      const predictor = await createPredictor(name);
      assert.throws(() => predictor.predict({}, unknown), /Cannot answer questions "colour"/);
      assert.throws(() => predictor.predict({}, ambiguous), RangeError);
    });
  }
});

Deno.test("the reference server serves `fitted` over HTTP with the in-process answers", async () => {
  await using server = await startReferenceServer({ predictor: "fitted" });
  const fitted = await createPredictor("fitted");
  for (const c of test.filter((_, i) => i % 100 === 0)) {
    const response = await fetch(`${server.url}/v1/systemone`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ state: c.state, questions: c.questions }),
    });
    assert.equal(response.status, 200);
    const reply = await response.json();
    const expected = fitted.predict(c.state, c.questions);
    for (const [question, spec] of Object.entries(c.questions)) {
      const answer = reply.answers[question];
      if (spec.type === "noul") {
        assert.ok(Math.abs(answer.noul - expected[question]!.true!) < 1e-9, c.id);
      } else {
        assert.deepEqual(Object.keys(answer.probabilities), optionsOf(spec));
        for (const option of optionsOf(spec)) {
          assert.ok(Math.abs(answer.probabilities[option] - expected[question]![option]!) < 1e-9);
        }
      }
    }
  }
  const bad = await fetch(`${server.url}/v1/systemone`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      state: {},
      questions: { colour: { type: "noul", instructions: "Red?" } },
    }),
  });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error.message, /no trained workflow/);
});

Deno.test("the vendored model records train-split provenance and held-out figures", async () => {
  const { manifest } = await loadModel();
  const train = await loadDataset({ split: "train" });
  assert.equal(manifest.trainedOn.split, "train");
  assert.equal(manifest.trainedOn.sha256, train.info.sha256);
  assert.equal(manifest.trainedOn.rows, 1200);
  assert.equal(manifest.heldOut.fit + manifest.heldOut.heldOut, 1200);
  assert.equal(Object.keys(manifest.heldOut.byQuestion).length, 20);
});

Deno.test("`deno task train --check` reproduces the vendored model byte for byte", async () => {
  const script = fromFileUrl(new URL("../scripts/train.ts", import.meta.url));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "--check"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `${stdout}\n${stderr}`);
  assert.match(stdout, /Check passed: retraining reproduces the vendored files byte for byte/);
});

Deno.test("`train.ts --check` fails when the vendored weights differ", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const vendored = fromFileUrl(new URL("../vendor/model/", import.meta.url));
    await Deno.copyFile(join(vendored, "manifest.json"), join(dir, "manifest.json"));
    await Deno.writeFile(join(dir, "fitted.json.gz"), new Uint8Array([0x1f, 0x8b, 0]));
    const script = fromFileUrl(new URL("../scripts/train.ts", import.meta.url));
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, "--check", "--dir", dir],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 1);
    assert.match(new TextDecoder().decode(output.stderr), /fitted\.json\.gz' differs/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
