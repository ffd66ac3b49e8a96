// End-to-end: `deno task export --format every-eval-ever` on runs of the user's own question set:
// a copy of examples/tickets (3,000 rows, about 630 blank labels) and a copy of its first rows
// whose subjects and messages hold accented letters, CJK and astral characters (emoji with a skin
// tone, a musical symbol). For each, the aggregate and every sample validate against the vendored
// schemas (ajv, independently of the exporter); every `sample_hash` equals Every Eval Ever's recipe
// run by python3 (`json.dumps(..., sort_keys=True, separators=(",", ":"))`, ASCII-escaped); the
// samples are exactly the labelled decisions (an unlabelled one has no score to give) and the
// aggregate's row count and checksum describe that file; every sample carries the state read from
// the recorded file. Once the file changes, the export is refused naming it.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { DecisionRecord } from "../lib/record/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";
import {
  assertValid,
  exportEee,
  pythonRecipe,
  type Validators,
  validators,
} from "./eee_helpers.ts";
import { ticketRows, writeCsv, writeTicketWorkflow } from "./_ticket_set.ts";
import { ticketsRun } from "./user_set_helpers.ts";

/** A parsed export, read field by field by the assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

/** Text no ASCII escape leaves alone: accents, a euro sign, CJK, astral emoji and a clef. */
const WIDE = "Café crème, naïve façade — ça coûte 12 € 😀👍🏽 𝄞 東京";

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Exports a run as every-eval-ever and checks it as its consumers would.
 *
 * @returns The samples file's text.
 */
async function checkExport(
  v: Validators,
  dir: string,
  out: string,
  rows: readonly Record<string, unknown>[],
): Promise<string> {
  const run: Json = JSON.parse(await Deno.readTextFile(join(dir, "run.json")));
  const decisions = (await Deno.readTextFile(join(dir, "decisions.jsonl"))).trim().split("\n")
    .map((l) => JSON.parse(l) as DecisionRecord);
  const id = (d: DecisionRecord) => `${d.case}/${d.question}`;
  const labelled = decisions.filter((d) => d.gold !== null);
  const unlabelled = decisions.filter((d) => d.gold === null).map(id);
  assert.ok(unlabelled.length > 0, "the set has unlabelled decisions");

  const { samples, aggregate, path } = await exportEee(dir, out);
  assert.match(path, /^data\/tickets\//);
  assertValid(v.aggregate, aggregate, "aggregate");
  const source = aggregate.evaluation_results[0].source_data;
  assert.equal(source.source_type, "other");
  assert.equal(source.dataset_name, "tickets.csv");
  assert.equal(source.additional_details.sha256, run.spec.revision);

  // Python's recipe over the file: every hash, and the rows it holds.
  const recipe = await pythonRecipe(samples);
  assert.equal(recipe.mismatched, 0, `sample_hash differs: ${recipe.first_mismatches.join(", ")}`);
  assert.equal(recipe.rows, labelled.length);
  assert.deepEqual([...recipe.ids].sort(), labelled.map(id).sort());
  const exported = new Set(recipe.ids);
  assert.deepEqual(unlabelled.filter((u) => exported.has(u)), [], "unlabelled decisions exported");
  const details = aggregate.detailed_evaluation_results;
  assert.equal(details.total_rows, labelled.length);
  assert.equal(details.checksum, await sha256(samples));

  const text = await Deno.readTextFile(samples);
  const byDecision = new Map(labelled.map((d) => [id(d), d]));
  const byRow = new Map(rows.map((r) => [String(r.ticket_id), r]));
  for (const line of text.trimEnd().split("\n")) {
    const sample: Json = JSON.parse(line);
    assertValid(v.instance, sample, sample.sample_id);
    const d = byDecision.get(sample.sample_id)!;
    const row = byRow.get(sample.metadata.case)!;
    const raw = JSON.parse(sample.input.raw);
    assert.deepEqual(raw.state, { tier: row.tier, subject: row.subject, message: row.message });
    assert.equal(raw.question.name, d.question);
    assert.deepEqual(sample.input.reference, [d.gold]);
    assert.equal(sample.evaluation.is_correct, d.correct, sample.sample_id);
  }
  return text;
}

Deno.test("`export --format every-eval-ever` on user question sets: valid, EEE's hashes, labelled decisions only, states from the file", async (t) => {
  const v = await validators();
  const tickets = await ticketsRun({ rows: 3000 });
  const wide = await Deno.makeTempDir({ prefix: "decibench-user-set-wide-" });
  try {
    await t.step("examples/tickets: 3,000 rows with blank labels", async () => {
      assert.equal(tickets.rows.length, 3000);
      await checkExport(v, tickets.dir, join(tickets.tmp, "eee"), tickets.rows);
    });

    await t.step("non-ASCII and astral text in the states", async () => {
      const rows = (await ticketRows(60)).map((r, i) =>
        i % 3 === 0
          ? { ...r, subject: `${r.subject} — Zürich ✈️`, message: `${r.message} ${WIDE}` }
          : r
      );
      await writeCsv(join(wide, "tickets.csv"), rows);
      const workflow = await writeTicketWorkflow(wide);
      const dir = join(wide, "runs", "tickets");
      const bench = await runScript("bench.ts", [workflow, "--out", dir, "--no-db"]);
      assert.ok(bench.code === 0 || bench.code === 1, bench.stderr);
      const text = await checkExport(v, dir, join(wide, "eee"), rows);
      // The file holds the characters themselves; the recipe hashes their \u escapes.
      assert.ok(
        text.includes("😀👍🏽") && text.includes("𝄞") && text.includes("東京"),
        "astral text",
      );
    });

    await t.step("a changed file is refused, naming it", async () => {
      await Deno.writeTextFile(tickets.file, "\n", { append: true });
      const result = await runScript("export.ts", [
        tickets.dir,
        "--format",
        "every-eval-ever",
        "--out",
        join(tickets.tmp, "eee2"),
      ]);
      assert.equal(result.code, 2);
      assert.ok(result.stderr.includes(tickets.file), result.stderr);
      assert.match(result.stderr, /changed since the run/);
    });
  } finally {
    await Deno.remove(tickets.tmp, { recursive: true });
    await Deno.remove(wide, { recursive: true });
  }
});
