/**
 * Every way the vendored dataset can be damaged stops `loadDataset()` with a
 * `DatasetIntegrityError` that names the file, the problem and the fix. Each case copies
 * `vendor/typed-decisions/` to a temporary folder and damages the copy.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DatasetIntegrityError, loadDataset, type Split } from "../lib/dataset/mod.ts";

const VENDORED = fileURLToPath(new URL("../vendor/typed-decisions/", import.meta.url));

async function copyVendored(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "decibench_dataset_" });
  for await (const entry of Deno.readDir(VENDORED)) {
    if (entry.isFile) await Deno.copyFile(join(VENDORED, entry.name), join(dir, entry.name));
  }
  return dir;
}

async function gzipText(text: string): Promise<Uint8Array> {
  const body = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(body).arrayBuffer());
}

async function gunzipText(bytes: Uint8Array): Promise<string> {
  const body = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return await new Response(body).text();
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

type Manifest = Record<string, unknown> & {
  revision: string;
  dataset: string;
  splits: Record<string, Record<string, unknown>>;
};

async function readManifest(dir: string): Promise<Manifest> {
  return JSON.parse(await Deno.readTextFile(join(dir, "manifest.json")));
}

async function editManifest(dir: string, edit: (manifest: Manifest) => void): Promise<void> {
  const manifest = await readManifest(dir);
  edit(manifest);
  await Deno.writeTextFile(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
}

async function readLines(dir: string, split: Split): Promise<string[]> {
  const text = await gunzipText(await Deno.readFile(join(dir, `${split}.jsonl.gz`)));
  return text.slice(0, -1).split("\n");
}

/** Rewrites the rows and, unless `keepManifest`, a manifest that vouches for them under a
 * non-pinned revision, so only the content checks can catch the damage. */
async function rewriteRows(
  dir: string,
  split: Split,
  edit: (lines: string[]) => string[],
  options: { keepManifest?: boolean; rows?: number; text?: (text: string) => string } = {},
): Promise<void> {
  const lines = edit(await readLines(dir, split));
  const text = (options.text ?? ((t) => t))(lines.map((line) => line + "\n").join(""));
  await Deno.writeFile(join(dir, `${split}.jsonl.gz`), await gzipText(text));
  if (options.keepManifest) return;
  const hash = await sha256(text);
  await editManifest(dir, (manifest) => {
    manifest.revision = "0000000000000000000000000000000000000000";
    manifest.splits[split]!.sha256 = hash;
    manifest.splits[split]!.rows = options.rows ?? lines.length;
  });
}

// Rows are edited freely to damage them; their shape is what is under test.
// deno-lint-ignore no-explicit-any
type AnyRow = Record<string, any>;

function editRow(
  lines: string[],
  index: number,
  edit: (row: AnyRow) => void,
): string[] {
  const copy = [...lines];
  const row = JSON.parse(copy[index]!);
  edit(row);
  copy[index] = JSON.stringify(row);
  return copy;
}

interface Damage {
  name: string;
  split?: Split;
  file: string;
  message: RegExp;
  damage: (dir: string) => Promise<void>;
}

const DAMAGES: Damage[] = [
  {
    name: "a missing manifest",
    file: "manifest.json",
    message: /'[^']*manifest\.json' is missing \(the dataset manifest\)/,
    damage: (dir) => Deno.remove(join(dir, "manifest.json")),
  },
  {
    name: "a manifest that is not JSON",
    file: "manifest.json",
    message: /manifest\.json' is not valid JSON: /,
    damage: (dir) => Deno.writeTextFile(join(dir, "manifest.json"), '{"dataset": '),
  },
  {
    name: "a manifest with a malformed hash",
    file: "manifest.json",
    message: /manifest\.json' is invalid: field 'splits\.test\.sha256': /,
    damage: (dir) => editManifest(dir, (m) => void (m.splits.test!.sha256 = "not-a-hash")),
  },
  {
    name: "a manifest without splits",
    file: "manifest.json",
    message: /manifest\.json' is invalid: field 'splits': /,
    damage: (dir) => editManifest(dir, (m) => void delete (m as Record<string, unknown>).splits),
  },
  {
    name: "a manifest for another dataset",
    file: "manifest.json",
    message: /describes dataset 'someone\/else', expected 'LocalLLaMA\/typed-decisions'/,
    damage: (dir) => editManifest(dir, (m) => void (m.dataset = "someone/else")),
  },
  {
    name: "a manifest without the train split",
    split: "train",
    file: "manifest.json",
    message: /manifest\.json' has no 'train' split/,
    damage: (dir) => editManifest(dir, (m) => void delete m.splits.train),
  },
  {
    name: "a manifest that claims the pinned revision with another hash",
    file: "manifest.json",
    message:
      /claims the pinned revision 'e039ebf[0-9a-f]+' but gives the test split sha256 '0{64}'/,
    damage: (dir) => editManifest(dir, (m) => void (m.splits.test!.sha256 = "0".repeat(64))),
  },
  {
    name: "an edited row with a matching manifest hash under the pinned revision",
    file: "manifest.json",
    message: /claims the pinned revision/,
    damage: async (dir) => {
      await rewriteRows(dir, "test", (lines) => editRow(lines, 0, (r) => (r.state.task = "x")));
      await editManifest(
        dir,
        (m) => void (m.revision = "e039ebffcc280174dd354227424fb2b249f191de"),
      );
    },
  },
  {
    name: "a missing data file",
    file: "test.jsonl.gz",
    message: /test\.jsonl\.gz' is missing \(the vendored data\)/,
    damage: (dir) => Deno.remove(join(dir, "test.jsonl.gz")),
  },
  {
    name: "a missing train data file",
    split: "train",
    file: "train.jsonl.gz",
    message: /train\.jsonl\.gz' is missing/,
    damage: (dir) => Deno.remove(join(dir, "train.jsonl.gz")),
  },
  {
    name: "an empty data file",
    file: "test.jsonl.gz",
    message: /test\.jsonl\.gz' is empty/,
    damage: (dir) => Deno.writeFile(join(dir, "test.jsonl.gz"), new Uint8Array()),
  },
  {
    name: "a truncated data file",
    file: "test.jsonl.gz",
    message: /test\.jsonl\.gz' is truncated or corrupt: /,
    damage: async (dir) => {
      const bytes = await Deno.readFile(join(dir, "test.jsonl.gz"));
      await Deno.writeFile(join(dir, "test.jsonl.gz"), bytes.subarray(0, bytes.length - 1000));
    },
  },
  {
    name: "a changed byte in the compressed data",
    file: "test.jsonl.gz",
    message: /test\.jsonl\.gz' is truncated or corrupt: /,
    damage: async (dir) => {
      const bytes = await Deno.readFile(join(dir, "test.jsonl.gz"));
      bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0x20;
      await Deno.writeFile(join(dir, "test.jsonl.gz"), bytes);
    },
  },
  {
    name: "an edited row, recompressed",
    file: "test.jsonl.gz",
    message:
      /test\.jsonl\.gz' has been changed: its content has sha256 '[0-9a-f]{64}', the manifest says '78a228c8/,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 7, (r) => (r.gold.action.label = "stop")),
        {
          keepManifest: true,
        },
      ),
  },
  {
    name: "a removed train row, recompressed",
    split: "train",
    file: "train.jsonl.gz",
    message: /train\.jsonl\.gz' has been changed: .* the manifest says 'e6725ca8/,
    damage: (dir) => rewriteRows(dir, "train", (lines) => lines.slice(1), { keepManifest: true }),
  },
  {
    name: "a row count that differs from the manifest",
    file: "test.jsonl.gz",
    message: /test\.jsonl\.gz' has 400 rows, the manifest says 401/,
    damage: (dir) => rewriteRows(dir, "test", (lines) => lines, { rows: 401 }),
  },
  {
    name: "a duplicate id",
    file: "test.jsonl.gz",
    message: /line 2 \(case 'agent_trace_observability_000000'\) repeats the id of line 1/,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 1, (r) => (r.id = "agent_trace_observability_000000")),
      ),
  },
  {
    name: "a workflow with 99 cases",
    file: "test.jsonl.gz",
    message: /workflow 'security_incidents' has 99 cases, expected 100/,
    damage: (dir) => rewriteRows(dir, "test", (lines) => lines.slice(0, -1)),
  },
  {
    name: "a train workflow with 299 cases",
    split: "train",
    file: "train.jsonl.gz",
    message: /workflow 'agent_trace_observability' has 299 cases, expected 300/,
    damage: (dir) => rewriteRows(dir, "train", (lines) => lines.slice(1)),
  },
  {
    name: "an unknown workflow",
    file: "test.jsonl.gz",
    message: /line 5 \(case '[^']+'\) has unknown workflow 'payroll'/,
    damage: (dir) =>
      rewriteRows(dir, "test", (lines) => editRow(lines, 4, (r) => (r.workflow = "payroll"))),
  },
  {
    name: "a case with four questions",
    file: "test.jsonl.gz",
    message: /line 3 \(case '[^']+'\) has 4 questions, expected 5/,
    damage: (dir) =>
      rewriteRows(dir, "test", (lines) =>
        editRow(lines, 2, (r) => {
          delete r.questions.risk;
          delete r.gold.risk;
        })),
  },
  {
    name: "a question without gold",
    file: "test.jsonl.gz",
    message: /has no gold for question 'outcome'/,
    damage: (dir) =>
      rewriteRows(dir, "test", (lines) => editRow(lines, 2, (r) => delete r.gold.outcome)),
  },
  {
    name: "gold for a question that is not asked",
    file: "test.jsonl.gz",
    message: /has gold for 'extra', which is not one of its questions/,
    damage: (dir) =>
      rewriteRows(dir, "test", (lines) => editRow(lines, 2, (r) => (r.gold.extra = r.gold.risk))),
  },
  {
    name: "a malformed question",
    file: "test.jsonl.gz",
    message: /question 'risk' is malformed: field 'criteria': /,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 0, (r) => (r.questions.risk.criteria = ["only one"])),
      ),
  },
  {
    name: "a question of an unknown type",
    file: "test.jsonl.gz",
    message: /question 'action' is malformed: /,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 0, (r) => (r.questions.action.type = "rank")),
      ),
  },
  {
    name: "gold that does not cover the question's options",
    file: "test.jsonl.gz",
    message:
      /gold of 'action' has probabilities for 'continue, human_review, observe' but the options are 'continue, human_review, observe, stop'/,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 0, (r) => delete r.gold.action.probabilities.stop),
      ),
  },
  {
    name: "gold with a probability above 1",
    file: "test.jsonl.gz",
    message: /gold of 'risk' is malformed: field 'probabilities\.0': /,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 0, (r) => (r.gold.risk.probabilities["0"] = 1.5)),
      ),
  },
  {
    name: "gold whose type differs from its question's",
    file: "test.jsonl.gz",
    message: /gold of 'needs_review' has type 'choice' but the question is 'noul'/,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 0, (r) => (r.gold.needs_review.type = "choice")),
      ),
  },
  {
    name: "a gold label that is not an option",
    file: "test.jsonl.gz",
    message: /gold of 'action' has label 'escalate', which is not an option/,
    damage: (dir) =>
      rewriteRows(
        dir,
        "test",
        (lines) => editRow(lines, 0, (r) => (r.gold.action.label = "escalate")),
      ),
  },
  {
    name: "an extra column",
    file: "test.jsonl.gz",
    message:
      /line 1 \(case '[^']+'\) has columns 'id, workflow, state, questions, gold, factors', expected 'id, workflow, state, questions, gold'/,
    damage: (dir) =>
      rewriteRows(dir, "test", (lines) => editRow(lines, 0, (r) => (r.factors = {}))),
  },
  {
    name: "a row that is not JSON",
    file: "test.jsonl.gz",
    message: /line 3 is not valid JSON: /,
    damage: (dir) =>
      rewriteRows(dir, "test", (lines) => lines.map((l, i) => (i === 2 ? l.slice(0, 50) : l))),
  },
  {
    name: "data without a final newline",
    file: "test.jsonl.gz",
    message: /test\.jsonl\.gz' does not end with a newline/,
    damage: (dir) => rewriteRows(dir, "test", (lines) => lines, { text: (t) => t.slice(0, -1) }),
  },
];

Deno.test("`loadDataset()` refuses damaged vendored files with a `DatasetIntegrityError`", async (t) => {
  for (const damage of DAMAGES) {
    await t.step(`refuses ${damage.name}`, async () => {
      const dir = await copyVendored();
      try {
        const split = damage.split ?? "test";
        await damage.damage(dir);
        await assert.rejects(loadDataset({ dir, split }), (error: unknown) => {
          assert.ok(error instanceof DatasetIntegrityError, String(error));
          assert.equal(error.name, "DatasetIntegrityError");
          assert.ok(error.file.endsWith(damage.file), `file ${error.file}`);
          assert.match(error.message, new RegExp(`^Cannot load the ${split} split: '`));
          assert.match(error.message, damage.message);
          assert.match(error.message, /; run `deno task vendor` to regenerate it$/);
          return true;
        });
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});

Deno.test("`loadDataset()` accepts an undamaged copy, so the damage cases test the damage", async () => {
  const dir = await copyVendored();
  try {
    const [test, train] = await Promise.all([
      loadDataset({ dir }),
      loadDataset({ dir, split: "train" }),
    ]);
    assert.equal(test.cases.length, 400);
    assert.equal(train.cases.length, 1200);
    // The helper's own rewrite (new revision, recomputed hash) loads when nothing is damaged.
    await rewriteRows(dir, "test", (lines) => lines);
    const rewritten = await loadDataset({ dir });
    assert.equal(rewritten.info.revision, "0".repeat(40));
    assert.equal(rewritten.cases.length, 400);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
