// A user's own question set as a new user meets it on the command line: a quick --limit run with
// lane thresholds, the embedded oracle over rows that share a state, run ids where run
// directories are taken, the CSV and JSONL copies of one set compared, a semicolon-separated CSV,
// a mistyped metric, a case too large for the server, and the audit summary. Real scripts, the
// embedded reference server over loopback, temp directories.
import assert from "node:assert/strict";
import { join } from "node:path";
import { readDecisions } from "../lib/record/mod.ts";
import { readRunJson, ROOT, runScript } from "./bench_cli_helpers.ts";
import {
  ticketRows,
  writeCsv,
  writeJsonl,
  writeParquet,
  writeTicketWorkflow,
} from "./_ticket_set.ts";

Deno.test("bench --limit 3 with a lane threshold: not evaluated when no selected case has the lane, refused when the set has no such lane", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-limit-" });
  try {
    await writeCsv(join(dir, "tickets.csv"), await ticketRows(40));
    const workflow = await writeTicketWorkflow(dir, {
      thresholds: [
        '{ metric: accuracy, lane: chat, op: ">=", limit: 0.2, bound: lower }',
        '{ metric: accuracy, lane: email, op: ">=", limit: 0 }',
      ],
    });
    await t.step("the first 3 cases have no chat ticket: the run works and says so", async () => {
      const out = join(dir, "limit3");
      const r = await runScript("bench.ts", [workflow, "--limit", "3", "--out", out, "--no-db"]);
      assert.equal(r.code, 0, r.stderr);
      const run = await readRunJson(out);
      const [chat, email] = run.thresholds;
      assert.equal(chat?.pass, null);
      assert.equal(chat?.value, null);
      assert.equal(chat?.not_evaluated, 'no case selected by --limit 3 has lane "chat"');
      assert.equal(email?.pass, true);
      const text = r.lines.join("\n");
      assert.match(
        text,
        /threshold +accuracy \(lane chat, lower bound\) >= 0\.2: .*not evaluated \(no case selected by --limit 3 has lane "chat"\)/,
      );
      const md = await Deno.readTextFile(join(out, "report.md"));
      assert.match(md, /not evaluated \(no case selected by --limit 3 has lane "chat"\)/);
    });
    await t.step("the whole set: a lane it does not have is still refused (exit 2)", async () => {
      const typo = await writeTicketWorkflow(dir, {
        name: "typo.yaml",
        thresholds: ['{ metric: accuracy, lane: fax, op: ">=", limit: 0.2 }'],
      });
      for (const args of [[], ["--limit", "3"]]) {
        const r = await runScript("bench.ts", [typo, ...args, "--out", join(dir, "x"), "--no-db"]);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /field "thresholds\.0\.lane": no selected case has lane "fax"/);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the embedded oracle answers rows that share a state: their gold when it agrees, its average when not, and no case fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-oracle-" });
  try {
    const [a, b, c] = await ticketRows(3) as [
      Record<string, string>,
      Record<string, string>,
      Record<string, string>,
    ];
    // A duplicate of a (equal gold), and a row with a's state but another topic and severity.
    const rows = [
      a,
      b,
      c,
      { ...a, ticket_id: "T-DUP" },
      { ...a, ticket_id: "T-OTHER", channel: "chat", topic: "other", severity: "0" },
    ];
    assert.notEqual(a.topic, "other");
    await writeCsv(join(dir, "tickets.csv"), rows);
    const workflow = await writeTicketWorkflow(dir, { predictor: "oracle" });
    const out = join(dir, "run");
    const r = await runScript("bench.ts", [workflow, "--out", out, "--no-db"]);
    const decisions = await readDecisions(join(out, "decisions.jsonl"));
    assert.equal(decisions.filter((d) => d.error !== null).length, 0, r.stderr);
    assert.equal(r.code, 0, r.stderr);
    const of = (id: string, q: string) => decisions.find((d) => d.case === id && d.question === q);
    // Rows b and c have states of their own: their gold, one-hot.
    assert.equal(of(b.ticket_id!, "topic")?.correct, true);
    // The three rows with a's state agree on urgent: its gold, one-hot, for each of them.
    for (const id of [a.ticket_id!, "T-DUP", "T-OTHER"]) {
      assert.equal(of(id, "urgent")?.confidence, 1);
      // Topic: two rows say a's topic, one says other: P = 2/3 and 1/3.
      const topic = of(id, "topic")?.predicted as Record<string, number>;
      assert.ok(Math.abs(topic[a.topic!]! - 2 / 3) < 1e-12, JSON.stringify(topic));
      assert.ok(Math.abs(topic.other! - 1 / 3) < 1e-12, JSON.stringify(topic));
    }
    assert.equal(of(a.ticket_id!, "topic")?.correct, true);
    assert.equal(of("T-OTHER", "topic")?.correct, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Runs a script from `cwd` with the package's configuration. */
async function runIn(
  cwd: string,
  script: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      join(ROOT, "deno.json"),
      join(ROOT, "scripts", script),
      ...args,
    ],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("a bare run id works wherever a run directory is taken: sweep, bench --resume and compare", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-runid-" });
  try {
    await writeCsv(join(dir, "tickets.csv"), await ticketRows(20));
    const workflow = await writeTicketWorkflow(dir);
    const id = "ticket-run";
    const made = await runIn(dir, "bench.ts", [workflow, "--out", `runs/${id}`, "--no-db"]);
    assert.equal(made.code, 0, made.stderr);
    const sweep = await runIn(dir, "sweep.ts", [id, "--json"]);
    assert.equal(sweep.code, 0, sweep.stderr);
    assert.equal(JSON.parse(sweep.stdout).source.startsWith(join("runs", id)), true);
    const resume = await runIn(dir, "bench.ts", ["--resume", id, "--no-db"]);
    assert.equal(resume.code, 0, resume.stderr);
    assert.match(resume.stderr, /resumed: 20 cases already answered/);
    const compare = await runIn(dir, "compare.ts", [id, id, "--out", join(dir, "c.md")]);
    assert.equal(compare.code, 0, compare.stderr);
    const missing = await runIn(dir, "sweep.ts", ["no-such-run"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no-such-run/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const copy of ["jsonl", "parquet"] as const) {
  Deno.test(`compare on the CSV and ${copy} copies of one set names both files and compares by case id`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "decibench-copies-" });
    try {
      const rows = await ticketRows(30);
      await writeCsv(join(dir, "tickets.csv"), rows);
      await (copy === "jsonl" ? writeJsonl : writeParquet)(join(dir, `tickets.${copy}`), rows);
      const csv = await writeTicketWorkflow(dir, { name: "csv.yaml" });
      const other = await writeTicketWorkflow(dir, { name: "other.yaml", path: `tickets.${copy}` });
      for (const [file, out] of [[csv, "a"], [other, "b"]]) {
        const r = await runScript("bench.ts", [file!, "--out", join(dir, out!), "--no-db"]);
        assert.equal(r.code, 0, r.stderr);
      }
      const a = await readRunJson(join(dir, "a"));
      const b = await readRunJson(join(dir, "b"));
      const fa = a.spec.question_set?.kind === "file" ? a.spec.question_set : undefined;
      const fb = b.spec.question_set?.kind === "file" ? b.spec.question_set : undefined;
      assert.ok(fa && fb && fa.sha256 !== fb.sha256);
      const r = await runScript("compare.ts", [join(dir, "a"), join(dir, "b"), "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const c = JSON.parse(r.lines.join("\n"));
      const file = c.differences.find((d: { field: string }) => d.field === "question set file");
      assert.ok(file.a.includes("tickets.csv") && file.a.includes(fa.sha256.slice(0, 12)), file.a);
      assert.ok(
        file.b.includes(`tickets.${copy}`) && file.b.includes(fb.sha256.slice(0, 12)),
        file.b,
      );
      const labelled = (await readDecisions(join(dir, "a", "decisions.jsonl")))
        .filter((d) => d.gold !== null).length;
      assert.equal(c.paired.shared, labelled);
      assert.equal(c.paired.onlyInA + c.paired.onlyInB, 0);
      assert.equal(c.paired.difference, 0, "the same answers on the same cases");
      const text = await runScript("compare.ts", [join(dir, "a"), join(dir, "b")]);
      assert.equal(text.code, 0, text.stderr);
      assert.doesNotMatch(text.lines.join("\n") + text.stderr, /changed/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a semicolon-separated CSV is read as its comma copy", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-semicolon-" });
  try {
    const rows = await ticketRows(12);
    await writeCsv(join(dir, "comma.csv"), rows);
    await writeCsv(join(dir, "semicolon.csv"), rows, ";");
    assert.match(await Deno.readTextFile(join(dir, "semicolon.csv")), /^ticket_id;channel;/);
    const figures = [];
    for (const name of ["comma", "semicolon"]) {
      const file = await writeTicketWorkflow(dir, { name: `${name}.yaml`, path: `${name}.csv` });
      const r = await runScript("bench.ts", [file, "--out", join(dir, name), "--no-db"]);
      assert.equal(r.code, 0, r.stderr);
      const run = await readRunJson(join(dir, name));
      figures.push([
        run.summary?.decisions,
        run.summary?.metrics.accuracy,
        run.spec.case_ids_sha256,
      ]);
    }
    assert.deepEqual(figures[0], figures[1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a mistyped metric suggests the one meant instead of listing every name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-typo-" });
  try {
    await writeCsv(join(dir, "tickets.csv"), await ticketRows(3));
    const workflow = await writeTicketWorkflow(dir, {
      thresholds: ['{ metric: acuracy, op: ">=", limit: 0.2 }'],
    });
    const r = await runScript("bench.ts", [workflow, "--no-db", "--out", join(dir, "r")]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /field "thresholds\.0\.metric" \(line \d+\): "acuracy" is not one of the \d+ allowed values \(did you mean "accuracy"\?\)/,
    );
    assert.doesNotMatch(r.stderr, /score_within_one/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a case too large for the server is named, and --resume is not suggested", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-413-" });
  try {
    const rows = await ticketRows(4);
    // Over the reference server's 1 MiB request limit.
    rows[2] = { ...rows[2]!, message: "x".repeat(2 * 1024 * 1024) };
    await writeCsv(join(dir, "tickets.csv"), rows);
    const workflow = await writeTicketWorkflow(dir, { questions: "urgent" });
    const r = await runScript("bench.ts", [workflow, "--out", join(dir, "r"), "--no-db"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `case "${
          rows[2]!.ticket_id
        }" is too large for the server \\(HTTP 413 .*\\); asking again sends the same request`,
      ),
    );
    assert.doesNotMatch(r.stderr, /--resume/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the audit summary names its workflow once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-audit-" });
  try {
    const r = await runScript("audit.ts", ["workflows/audit.ts", "--out", join(dir, "a")]);
    assert.equal(r.code, 0, r.stderr);
    const text = r.lines.join("\n");
    assert.match(text, /^audit of workflow "audit": judge /m);
    assert.doesNotMatch(text, /audit audit/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
