import assert from "node:assert/strict";
import { DATASET_ID, LICENSE_NAME, PINNED, REVISION, WORKFLOWS } from "./constants.ts";
import { loadDataset } from "./load.ts";
import { optionsOf } from "./questions.ts";
import type { Case } from "./schemas.ts";

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function decisions(cases: Case[]): { type: string; top: number }[] {
  return cases.flatMap((c) =>
    Object.entries(c.questions).map(([name, question]) => {
      const p = Object.values(c.gold[name]!.probabilities);
      const max = Math.max(...p);
      return { type: question.type, top: p.filter((x) => x === max).length };
    })
  );
}

Deno.test("`loadDataset()` loads the vendored test split with its provenance", async () => {
  const { cases, info } = await loadDataset();
  assert.deepEqual(info, {
    dataset: DATASET_ID,
    revision: REVISION,
    license: LICENSE_NAME,
    split: "test",
    url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
    sha256: PINNED.test.sha256,
    rows: 400,
  });
  assert.equal(cases.length, 400);
  assert.equal(new Set(cases.map((c) => c.id)).size, 400);
  assert.deepEqual(
    countBy(cases, (c) => c.workflow),
    Object.fromEntries(WORKFLOWS.map((w) => [w, 100])),
  );
  assert.equal(cases[0]!.id, "agent_trace_observability_000000");
});

Deno.test("`loadDataset()` test split holds 2,000 decisions: 600 noul, 600 choice, 800 score, 35 gold ties", async () => {
  const { cases } = await loadDataset();
  const all = decisions(cases);
  assert.equal(all.length, 2000);
  assert.deepEqual(countBy(all, (d) => d.type), { choice: 600, noul: 600, score: 800 });
  assert.equal(all.filter((d) => d.top === 2).length, 35);
  assert.equal(all.filter((d) => d.top > 2).length, 0);
});

Deno.test("`loadDataset()` keeps option order and the 20 question schemas", async () => {
  const { cases } = await loadDataset();
  const schemas = new Set(
    cases.flatMap((c) =>
      Object.entries(c.questions).map(([n, q]) => `${c.workflow}/${n}/${JSON.stringify(q)}`)
    ),
  );
  assert.equal(schemas.size, 20);
  const first = cases[0]!;
  assert.deepEqual(Object.keys(first.questions), [
    "action",
    "needs_review",
    "outcome",
    "risk",
    "urgency",
  ]);
  assert.deepEqual(optionsOf(first.questions.action!), [
    "continue",
    "human_review",
    "observe",
    "stop",
  ]);
  const security = cases.find((c) => c.workflow === "security_incidents")!;
  assert.deepEqual(optionsOf(security.questions.severity!), ["0", "1", "2", "3", "4"]);
  for (const c of cases) {
    for (const [name, q] of Object.entries(c.questions)) {
      if (q.type === "score" && name !== "severity") assert.equal(q.criteria.length, 4);
    }
  }
});

Deno.test("`loadDataset()` loads the train split: 1,200 cases, 300 per workflow, none shared with test", async () => {
  const [{ cases, info }, test] = await Promise.all([
    loadDataset({ split: "train" }),
    loadDataset({ split: "test" }),
  ]);
  assert.equal(info.split, "train");
  assert.equal(info.sha256, PINNED.train.sha256);
  assert.equal(cases.length, 1200);
  assert.deepEqual(
    countBy(cases, (c) => c.workflow),
    Object.fromEntries(WORKFLOWS.map((w) => [w, 300])),
  );
  const testIds = new Set(test.cases.map((c) => c.id));
  assert.equal(cases.filter((c) => testIds.has(c.id)).length, 0);
  assert.ok(cases.every((c) => c.id.startsWith(`tr_${c.workflow}_`)));
});

Deno.test("`loadDataset()` rejects an unknown split", async () => {
  await assert.rejects(loadDataset({ split: "dev" as "test" }), RangeError);
});

Deno.test("the pinned content passes every row check, so `loadDataset()` may skip them for it", async () => {
  // loadDataset skips findCaseProblem when the JSONL hash is the pinned one; this is why.
  const { findCaseProblem } = await import("./_check_cases.ts");
  const { gunzip } = await import("../bytes.ts");
  for (const split of ["test", "train"] as const) {
    const gz = await Deno.readFile(
      new URL(`../../vendor/typed-decisions/${PINNED[split].data}`, import.meta.url),
    );
    const text = new TextDecoder().decode(await gunzip(gz));
    const rows = text.slice(0, -1).split("\n").map((line) => JSON.parse(line));
    assert.equal(findCaseProblem(rows, { perWorkflow: PINNED[split].perWorkflow }), undefined);
  }
});

Deno.test("the vendored manifest is the pinned one and passes its schema unchanged, so `loadDataset()` may skip the check for it", async () => {
  const { ManifestSchema } = await import("./schemas.ts");
  const { sha256Hex } = await import("../bytes.ts");
  const { VENDORED_MANIFEST_SHA256 } = await import("./constants.ts");
  const bytes = await Deno.readFile(
    new URL("../../vendor/typed-decisions/manifest.json", import.meta.url),
  );
  assert.equal(
    await sha256Hex(bytes),
    VENDORED_MANIFEST_SHA256,
    "manifest.json was re-vendored: put its sha256 in VENDORED_MANIFEST_SHA256",
  );
  const json = JSON.parse(new TextDecoder().decode(bytes));
  assert.deepEqual(ManifestSchema.parse(json), json);
});

Deno.test("`loadDataset()` verifies once per process but still catches a file changed since", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const vendored = new URL("../../vendor/typed-decisions/", import.meta.url);
    for (const name of ["manifest.json", "test.jsonl.gz", "train.jsonl.gz"]) {
      await Deno.copyFile(new URL(name, vendored), `${dir}/${name}`);
    }
    const first = await loadDataset({ dir });
    const second = await loadDataset({ dir });
    assert.deepEqual(second, first);
    assert.notEqual(second.cases[0], first.cases[0], "each load returns its own case objects");
    // One changed byte in the compressed file: the cached verdict no longer applies.
    const gz = await Deno.readFile(`${dir}/test.jsonl.gz`);
    gz[gz.length >> 1] = gz[gz.length >> 1]! ^ 0xff;
    await Deno.writeFile(`${dir}/test.jsonl.gz`, gz);
    await assert.rejects(loadDataset({ dir }), (error: unknown) => {
      assert.equal((error as Error).name, "DatasetIntegrityError");
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`loadDataset()` shares one frozen questions object per workflow, each the rows' own", async () => {
  for (const split of ["test", "train"] as const) {
    const { cases } = await loadDataset({ split });
    // The vendored rows as written, not shared: every case of a workflow has the same questions.
    const gz = await Deno.readFile(
      new URL(`../../vendor/typed-decisions/${split}.jsonl.gz`, import.meta.url),
    );
    const text = await new Response(
      new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")),
    ).text();
    const rows = text.trim().split("\n").map((line) => JSON.parse(line) as Case);
    const byWorkflow = new Map<string, Set<string>>();
    for (const row of rows) {
      const seen = byWorkflow.get(row.workflow) ?? new Set();
      seen.add(JSON.stringify(row.questions));
      byWorkflow.set(row.workflow, seen);
    }
    assert.deepEqual([...byWorkflow.values()].map((s) => s.size), [1, 1, 1, 1], split);
    const shared = new Map<string, Case["questions"]>();
    cases.forEach((c, i) => {
      assert.deepEqual(c.questions, rows[i]!.questions);
      assert.ok(Object.isFrozen(c.questions));
      assert.equal(c.questions, shared.get(c.workflow) ?? c.questions, `${split} ${c.id}`);
      shared.set(c.workflow, c.questions);
    });
    assert.equal(shared.size, 4);
  }
});
