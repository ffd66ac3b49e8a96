// Every Eval Ever provenance derived from a run's endpoint: the embedded reference server and a
// server on this machine or a private network are self-deployed (engine from the wire format);
// Cloudflare's clef and a hosted relay on a public host are externally managed (the host as the
// platform, the relay's upstream providers named); stated values win over defaults.
import assert from "node:assert/strict";
import type { RunJson } from "../record/mod.ts";
import { eeeProvenance } from "./_eee_provenance.ts";

function runAt(endpoint: string, engine: string, reference: Record<string, unknown> | null) {
  return { tool_version: "9.9.9", spec: { endpoint, engine, reference } } as unknown as RunJson;
}

Deno.test("eeeProvenance derives deployment, platform and engine from the endpoint", () => {
  const cases: [RunJson, string, string | undefined, string | undefined][] = [
    [
      runAt("embedded:reference/fitted", "systemone", { predictor: "fitted" }),
      "self_deployed",
      undefined,
      "decibench-reference",
    ],
    [
      runAt("http://127.0.0.1:8080/v1/decide", "systemone", null),
      "self_deployed",
      undefined,
      "systemone",
    ],
    [
      runAt("http://192.168.1.20:11434/api/chat", "ollama", null),
      "self_deployed",
      undefined,
      "ollama",
    ],
    [runAt("http://gpu-a:9000/decide", "pcd", null), "self_deployed", undefined, "pcdserver"],
    [
      runAt(
        "https://api.cloudflare.com/client/v4/accounts/x/ai/run/@cf/cloudflare/clef",
        "clef",
        null,
      ),
      "externally_managed",
      "cloudflare-workers-ai",
      undefined,
    ],
    [
      runAt("https://openrouter.ai/api/v1/decide", "systemone", null),
      "externally_managed",
      "openrouter.ai",
      undefined,
    ],
  ];
  for (const [run, deployment, platform, engine] of cases) {
    const p = eeeProvenance(run, {}, []);
    assert.equal(p.deployment, deployment, run.spec.endpoint);
    assert.equal(p.platform, platform, run.spec.endpoint);
    assert.equal(p.engine?.name, engine, run.spec.endpoint);
  }
  const relay = eeeProvenance(runAt("https://relay.example.com/x", "systemone", null), {}, [
    "Lambda",
    "Together",
  ]);
  assert.equal(relay.basis.upstream_providers, "Lambda,Together");
  assert.equal(relay.relationship, "third_party");
  assert.equal(relay.availability, "unknown");
  assert.equal(relay.organization, "unknown");
  const stated = eeeProvenance(runAt("embedded:reference/fitted", "systemone", {}), {
    organization: "Acme",
    relationship: "other",
    availability: "closed_weights",
  });
  assert.deepEqual(
    [stated.organization, stated.relationship, stated.availability],
    ["Acme", "other", "closed_weights"],
  );
});
