// The fingerprint a run records: what identifies the configuration (never credentials), stable
// for the embedded reference server whose port changes on every start.
import assert from "node:assert/strict";
import { sha256Hex } from "../lib/bytes.ts";
import { loadDataset } from "../lib/dataset/mod.ts";
import {
  describeRun,
  prepareEndpoint,
  selectCases,
  validateWorkflow,
  type Workflow,
} from "../lib/workflow/mod.ts";

const dataset = await loadDataset();
const cases = selectCases(dataset.cases, {}, 10);

async function specOf(workflow: Workflow, env: Record<string, string> = {}) {
  const endpoint = await prepareEndpoint(workflow.endpoint!, { env: (name) => env[name] });
  try {
    return {
      spec: await describeRun(workflow, { dataset, cases, endpoint }),
      url: endpoint.baseUrl,
    };
  } finally {
    await endpoint.close();
  }
}

Deno.test("`describeRun()` gives the embedded reference server one identity whatever its port", async () => {
  const workflow = validateWorkflow({
    name: "ref",
    endpoint: { reference: { predictor: "uniform" }, model: "r" },
  }, "ref");
  const a = await specOf(workflow);
  const b = await specOf(workflow);
  assert.notEqual(a.url, b.url, "two servers on two ports");
  assert.equal(a.spec.endpoint, "embedded:reference/uniform");
  assert.equal(a.spec.fingerprint, b.spec.fingerprint);
  const faulty = await specOf(validateWorkflow({
    name: "ref",
    endpoint: { reference: { predictor: "uniform", faults: "http500=0.1", seed: 3 }, model: "r" },
  }, "ref"));
  assert.equal(faulty.spec.endpoint, "embedded:reference/uniform?faults=http500%3D0.1&seed=3");
  assert.notEqual(faulty.spec.fingerprint, a.spec.fingerprint);
});

Deno.test("`describeRun()` identifies a URL endpoint by scheme, host, port and path, never the key or query", async () => {
  const make = (over: Record<string, unknown> = {}) =>
    validateWorkflow({
      name: "w",
      endpoint: {
        baseUrl: "https://models.example:8443/api/?token=hidden",
        model: "m",
        apiKeyEnv: "FP_TEST_KEY",
        ...over,
      },
    }, "w");
  const { spec } = await specOf(make(), { FP_TEST_KEY: "sekret-key-123" });
  assert.equal(spec.endpoint, "https://models.example:8443/api/v1/systemone");
  const text = JSON.stringify(spec);
  assert.ok(!text.includes("sekret-key-123"));
  assert.ok(!text.includes("hidden"));
  const same = await specOf(make(), { FP_TEST_KEY: "another-key" });
  assert.equal(same.spec.fingerprint, spec.fingerprint, "the key is not part of the identity");
  for (
    const over of [
      { baseUrl: "http://models.example:8443/api/" },
      { baseUrl: "https://models.example:8444/api/" },
      { baseUrl: "https://other.example:8443/api/" },
      { baseUrl: "https://models.example:8443/v2/" },
      { model: "n" },
      { stateEncoding: "text" },
    ]
  ) {
    const other = await specOf(make(over));
    assert.notEqual(other.spec.fingerprint, spec.fingerprint, JSON.stringify(over));
  }
});

Deno.test("`describeRun()` hashes the questions asked as JSON.stringify of every case's questions, in case order", async () => {
  const workflow = validateWorkflow({
    name: "ref",
    endpoint: { reference: { predictor: "uniform" }, model: "r" },
  }, "ref");
  // Cases of two workflows, so two shared questions objects, interleaved.
  const mixed = [dataset.cases[0]!, dataset.cases[399]!, dataset.cases[1]!];
  assert.equal(new Set(mixed.map((c) => c.questions)).size, 2);
  const endpoint = await prepareEndpoint(workflow.endpoint!);
  try {
    const spec = await describeRun(workflow, { dataset, cases: mixed, endpoint });
    assert.equal(
      spec.questions_sha256,
      await sha256Hex(JSON.stringify(mixed.map((c) => c.questions))),
    );
  } finally {
    await endpoint.close();
  }
});
