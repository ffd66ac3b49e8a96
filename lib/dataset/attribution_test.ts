import assert from "node:assert/strict";
import { attribution } from "./attribution.ts";
import { DATASET_ID, DATASET_URL, LICENSE_NAME, REVISION } from "./constants.ts";

const info = { dataset: DATASET_ID, revision: REVISION, license: LICENSE_NAME, url: DATASET_URL };

Deno.test("`attribution()` names the dataset, short revision and licence", () => {
  assert.equal(
    attribution(info),
    "Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)",
  );
});

Deno.test("`attribution()` links the dataset page in markdown", () => {
  assert.equal(
    attribution(info, { format: "markdown" }),
    "[Typed Decisions](https://huggingface.co/datasets/LocalLLaMA/typed-decisions) " +
      "(`LocalLLaMA/typed-decisions`, revision `e039ebf`, Apache-2.0)",
  );
});
