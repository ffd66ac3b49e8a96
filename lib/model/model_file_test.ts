import assert from "node:assert/strict";
import { join } from "node:path";
import type { Case } from "../dataset/schemas.ts";
import { ModelIntegrityError } from "./integrity_error.ts";
import {
  encodeModel,
  loadModel,
  MANIFEST_FILE,
  type TrainingData,
  WEIGHTS_FILE,
  writeModel,
} from "./model_file.ts";
import { trainModel, type TrainResult } from "./train.ts";

const data: TrainingData = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "r1",
  sha256: "0".repeat(64),
  rows: 10,
};

function syntheticCases(): Case[] {
  return Array.from({ length: 10 }, (_, i) => {
    const p = i % 2 === 0 ? 0.9 : 0.2;
    return {
      id: `c${i}`,
      workflow: "w",
      state: { colour: i % 2 === 0 ? "red" : "blue", n: i },
      questions: { hot: { type: "noul", instructions: "Is it hot?" } },
      gold: {
        hot: {
          type: "noul",
          label: p > 0.5 ? "true" : "false",
          probabilities: { false: 1 - p, true: p },
          confidence: 0,
        },
      },
    } satisfies Case;
  });
}

function trained(): TrainResult {
  return trainModel(syntheticCases(), { minCount: 1, maxIterations: 50 });
}

async function writtenModel(): Promise<string> {
  const dir = await Deno.makeTempDir();
  await writeModel(await encodeModel(trained(), data), { dir });
  return dir;
}

async function expectIntegrityError(dir: string, message: RegExp): Promise<void> {
  try {
    await assert.rejects(() => loadModel({ dir }), (error: unknown) => {
      assert.ok(error instanceof ModelIntegrityError, String(error));
      assert.match(error.message, message);
      assert.match(error.message, /deno task train/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("`encodeModel()` gives the same bytes for the same training result", async () => {
  const a = await encodeModel(trained(), data);
  const b = await encodeModel(trained(), data);
  assert.deepEqual(a.weights, b.weights);
  assert.deepEqual(a.manifest, b.manifest);
});

Deno.test("`loadModel()` reads back what `writeModel()` wrote, with its manifest", async () => {
  const result = trained();
  const dir = await Deno.makeTempDir();
  await writeModel(await encodeModel(result, data), { dir });
  const loaded = await loadModel({ dir });
  await Deno.remove(dir, { recursive: true });
  assert.deepEqual(loaded.model, result.model);
  assert.equal(loaded.manifest.trainedOn.split, "train");
  assert.equal(loaded.manifest.trainedOn.sha256, data.sha256);
  assert.equal(loaded.manifest.hyperParameters.minCount, 1);
  assert.equal(loaded.manifest.heldOut.heldOut, 2);
});

Deno.test("`loadModel()` refuses missing, edited or corrupt files", async (t) => {
  await t.step("missing manifest", async () => {
    const dir = await writtenModel();
    await Deno.remove(join(dir, MANIFEST_FILE));
    await expectIntegrityError(dir, /manifest\.json' is missing/);
  });
  await t.step("missing weights", async () => {
    const dir = await writtenModel();
    await Deno.remove(join(dir, WEIGHTS_FILE));
    await expectIntegrityError(dir, /fitted\.json\.gz' is missing/);
  });
  await t.step("edited weights", async () => {
    const dir = await writtenModel();
    const path = join(dir, WEIGHTS_FILE);
    const bytes = await Deno.readFile(path);
    bytes[bytes.length - 12] = bytes[bytes.length - 12]! ^ 0xff;
    await Deno.writeFile(path, bytes);
    await expectIntegrityError(dir, /sha256 [0-9a-f]{64}, the manifest says/);
  });
  await t.step("truncated weights", async () => {
    const dir = await writtenModel();
    const path = join(dir, WEIGHTS_FILE);
    await Deno.writeFile(path, (await Deno.readFile(path)).slice(0, 40));
    await expectIntegrityError(dir, /bytes with sha256/);
  });
  await t.step("manifest not JSON", async () => {
    const dir = await writtenModel();
    await Deno.writeTextFile(join(dir, MANIFEST_FILE), "{not json");
    await expectIntegrityError(dir, /is not valid JSON/);
  });
  await t.step("manifest field wrong", async () => {
    const dir = await writtenModel();
    const path = join(dir, MANIFEST_FILE);
    const manifest = JSON.parse(await Deno.readTextFile(path));
    manifest.trainedOn.split = "test";
    await Deno.writeTextFile(path, JSON.stringify(manifest));
    await expectIntegrityError(dir, /field 'trainedOn\.split'/);
  });
});
