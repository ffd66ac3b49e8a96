import assert from "node:assert/strict";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { sha256Hex } from "../bytes.ts";
import { TICKET_QUESTIONS, type TicketRow, ticketSpec, writeTickets } from "./_fixtures.ts";
import { fileBuffer, readRows } from "./_read_rows.ts";
import { loadQuestionSet, openQuestionSet } from "./question_set.ts";
import { QuestionSetError } from "./question_set_error.ts";
import { questionsJson } from "./questions.ts";
import type { Case, QuestionDefinition } from "./schemas.ts";

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof QuestionSetError) return error.message.split("\n");
    throw error;
  }
  throw new Error("expected a QuestionSetError");
}

/** The digests a run took before the question set was streamed, from the case array. */
async function arrayDigests(cases: readonly Case[]) {
  return {
    caseIdsSha256: await sha256Hex(cases.map((c) => c.id).join("\n")),
    questionsSha256: await sha256Hex(`[${cases.map((c) => questionsJson(c.questions)).join(",")}]`),
  };
}

function manyTickets(n: number): TicketRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `T-${i}`,
    body: `Ticket number ${i}, with a comma and "quotes"`,
    queue: i % 3 === 0 ? "billing" : "shipping",
    urgent: i % 5 === 0 ? null : i % 2 === 0,
    team: i % 3 === 0 ? "billing" : "shipping",
    mood: i % 3,
  }));
}

Deno.test("`openQuestionSet()` knows count, lanes, questions and the run digests before any case is read, equal to the array's", async (t) => {
  const dir = await Deno.makeTempDir();
  const rows = manyTickets(2500);
  for (const format of ["jsonl", "csv", "parquet"] as const) {
    await t.step(format, async () => {
      const path = await writeTickets(dir, format, rows);
      const source = { dataset: ticketSpec(path), questions: TICKET_QUESTIONS };
      const whole = await loadQuestionSet(source);
      const selection = { lanes: ["shipping"], limit: 1000 };
      const set = await openQuestionSet(source, { selection });
      const expected = whole.cases.filter((c) => c.workflow === "shipping").slice(0, 1000);
      assert.equal(set.count, 1000);
      assert.equal(set.decisions, 3000);
      assert.deepEqual([...set.lanes], [["shipping", 1000]]);
      assert.deepEqual(set.questions, ["urgent", "team", "mood"]);
      const digests = await arrayDigests(expected);
      assert.equal(set.caseIdsSha256, digests.caseIdsSha256);
      assert.equal(set.questionsSha256, digests.questionsSha256);
      assert.deepEqual(set.info, whole.info, "info describes the whole set");
      assert.equal(set.info.rows, 2500);
      const streamed = await Array.fromAsync(set.cases());
      assert.deepEqual(streamed, expected);
      assert.deepEqual(await Array.fromAsync(set.cases()), expected, "each call reads again");
    });
  }
});

Deno.test("`openQuestionSet()` gives Typed Decisions the same shape, with the same digests", async () => {
  const whole = await loadQuestionSet({});
  const lanes = [...new Set(whole.cases.map((c) => c.workflow))].slice(1, 3);
  const set = await openQuestionSet({}, { selection: { lanes, limit: 150 } });
  const expected = whole.cases.filter((c) => lanes.includes(c.workflow)).slice(0, 150);
  assert.equal(set.count, 150);
  assert.equal(
    set.decisions,
    expected.reduce((n, c) => n + Object.keys(c.questions).length, 0),
  );
  assert.deepEqual([...set.lanes.keys()], [...new Set(expected.map((c) => c.workflow))]);
  const digests = await arrayDigests(expected);
  assert.equal(set.caseIdsSha256, digests.caseIdsSha256);
  assert.equal(set.questionsSha256, digests.questionsSha256);
  assert.deepEqual(await Array.fromAsync(set.cases()), expected);
  await assert.rejects(
    openQuestionSet({}, { selection: { ids: ["nope"] } }),
    RangeError,
    'Cannot select cases: unknown id "nope"',
  );
  await assert.rejects(
    openQuestionSet({}, { selection: { lanes: ["no_such_lane"] } }),
    RangeError,
    "Cannot run: the case selection matches no case",
  );
});

Deno.test("`readRows()` yields the first rows before it has read the whole file", async () => {
  const dir = await Deno.makeTempDir();
  const path = await writeTickets(dir, "jsonl", manyTickets(40_000));
  const size = (await Deno.stat(path)).size;
  const rows = readRows(path, { problem: () => {} });
  const first = await rows.next();
  assert.equal(first.done, false);
  const batch = first.value as { line: number }[];
  // One 256 KiB chunk holds about 2,000 of these 120-byte rows: far from the file's 40,000.
  assert.ok(size > 4 * 1024 * 1024, `a ${size}-byte file`);
  assert.ok(batch.length < 4000, `first batch: ${batch.length} rows`);
  assert.equal(batch[0]?.line, 1);
  await rows.return(undefined as never);
});

Deno.test("the Parquet file buffer answers slices asked at once with their own bytes", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "bytes.bin");
  const data = new Uint8Array(300_000).map((_, i) => (i * 31) % 256);
  await Deno.writeFile(path, data);
  using file = await Deno.open(path);
  const buffer = fileBuffer(file, data.length);
  const ranges = [[0, 100_000], [100_000, 250_000], [250_000, 300_000], [5, 10]] as const;
  const slices = await Promise.all(ranges.map(([start, end]) => buffer.slice(start, end)));
  for (const [i, [start, end]] of ranges.entries()) {
    assert.deepEqual(
      new Uint8Array(slices[i]!),
      data.subarray(start, end),
      `slice ${start}-${end}`,
    );
  }
});

Deno.test("a Parquet set of several row groups reads whole and in order", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "groups.parquet");
  const n = 12_000;
  const ids = Array.from({ length: n }, (_, i) => `row-${i}`);
  let seed = 7;
  const noise = () =>
    Array.from({ length: 160 }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return String.fromCharCode(33 + (seed % 90));
    }).join("");
  await Deno.writeFile(
    path,
    new Uint8Array(parquetWriteBuffer({
      rowGroupSize: 4_000,
      columnData: [
        { name: "ticket_id", data: ids, type: "STRING" },
        { name: "body", data: ids.map(noise), type: "STRING" },
        { name: "queue", data: ids.map((_, i) => `lane_${i % 7}`), type: "STRING" },
        { name: "is_urgent", data: ids.map((_, i) => i % 2 === 0), type: "BOOLEAN" },
      ],
    })),
  );
  const questions: Record<string, QuestionDefinition> = {
    urgent: { type: "noul", instructions: "Today?", gold: "is_urgent" },
  };
  const set = await openQuestionSet({ dataset: ticketSpec(path), questions });
  assert.equal(set.count, n);
  let i = 0;
  for await (const item of set.cases()) {
    assert.equal(item.id, ids[i]);
    assert.equal(item.workflow, `lane_${i % 7}`);
    assert.equal(item.gold.urgent?.label, i % 2 === 0 ? "true" : "false");
    i++;
  }
  assert.equal(i, n);
});

Deno.test("`cases()` stops reading at the selection's limit, and refuses a file changed since it was opened", async () => {
  const dir = await Deno.makeTempDir();
  const path = await writeTickets(dir, "csv", manyTickets(100));
  const source = { dataset: ticketSpec(path), questions: TICKET_QUESTIONS };
  const set = await openQuestionSet(source, { selection: { limit: 5 } });
  assert.deepEqual((await Array.fromAsync(set.cases())).map((c) => c.id), [
    "T-0",
    "T-1",
    "T-2",
    "T-3",
    "T-4",
  ]);
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, text.replace("T-50,", "T-1,"));
  const lines = await problemsOf(Array.fromAsync(set.cases()));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^.+tickets\.csv: changed while the run read it \(/);
});

Deno.test("question set input hardening", async (t) => {
  const dir = await Deno.makeTempDir();
  const load = (path: string, questions = TICKET_QUESTIONS) =>
    problemsOf(openQuestionSet({ dataset: ticketSpec(path), questions }));
  const jsonl = async (name: string, rows: unknown[]) => {
    const path = join(dir, name);
    await Deno.writeTextFile(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return path;
  };
  const row = { ticket_id: "a", body: "x", queue: "q", is_urgent: true, team: "billing", mood: 0 };

  await t.step("a FIFO and a device are refused at once, naming the path", async () => {
    const fifo = join(dir, "pipe.jsonl");
    assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
    assert.deepEqual(await load(fifo), [
      `${fifo}: is a FIFO (named pipe), not a regular file; name a .jsonl, .csv or .parquet file`,
    ]);
    const zero = join(dir, "zero.jsonl");
    await Deno.symlink("/dev/zero", zero);
    assert.deepEqual(await load(zero), [
      `${zero}: is a device, not a regular file; name a .jsonl, .csv or .parquet file`,
    ]);
  });

  await t.step("messages quote at most 60 characters of the file", async () => {
    const long = "x".repeat(5000);
    const path = await jsonl("long.jsonl", [
      { ...row, ticket_id: long },
      { ...row, ticket_id: long },
      { ...row, ticket_id: "b", team: long },
      { ...row, ticket_id: "c", team: { [long]: 1 } },
      { ...row, ticket_id: "d", mood: long },
    ]);
    await Deno.writeTextFile(path, `{"ticket_id": ${long}}\n`, { append: true });
    const lines = await load(path);
    assert.equal(lines.length, 5, lines.join("\n"));
    for (const line of lines) assert.doesNotMatch(line, /x{61}/, line.slice(0, 200));
    assert.match(lines[1]!, /:2: field "ticket_id": "x+…" repeats the id of line 1/);
    const header = join(dir, "header.csv");
    await Deno.writeTextFile(header, `${long},${"y".repeat(100)}\n1,2\n`);
    for (const line of await load(header)) assert.doesNotMatch(line, /x{61}|y{61}/);
  });

  await t.step("a state nested 5,000 deep is refused with file, line and field", async () => {
    const path = join(dir, "deep.jsonl");
    const deep = "[".repeat(5000) + "]".repeat(5000);
    await Deno.writeTextFile(
      path,
      `${JSON.stringify(row)}\n{"ticket_id": "b", "body": ${deep}, "queue": "q"}\n`,
    );
    assert.deepEqual(await load(path), [
      `${path}:2: field "body": is nested more than 256 levels deep; flatten the state`,
    ]);
  });

  await t.step("a gold probability of 1e999 is named as not a finite number", async () => {
    const path = join(dir, "inf.jsonl");
    await Deno.writeTextFile(
      path,
      '{"ticket_id": "a", "body": "x", "queue": "q", "is_urgent": {"true": 1e999, "false": 0}, "team": null, "mood": null}\n',
    );
    assert.deepEqual(await load(path), [
      `${path}:1: field "is_urgent": probability of "true" is not a finite number (it reads as Infinity); give a number in [0, 1]`,
    ]);
  });

  await t.step("binary Parquet cells are refused, not read as text", async () => {
    const path = join(dir, "binary.parquet");
    const bytes = new TextEncoder().encode("looks like text");
    await Deno.writeFile(
      path,
      new Uint8Array(parquetWriteBuffer({
        columnData: [
          { name: "ticket_id", data: ["a"], type: "STRING" },
          { name: "body", data: [bytes], type: "BYTE_ARRAY" },
          { name: "queue", data: ["q"], type: "STRING" },
        ],
      })),
    );
    const questions: Record<string, QuestionDefinition> = {
      urgent: { type: "noul", instructions: "Today?" },
    };
    assert.deepEqual(await load(path, questions), [
      `${path}:1: field "body": holds binary data (a BYTE_ARRAY column without a STRING annotation), which cannot be sent as JSON; store it as a string column`,
    ]);
  });

  await t.step("an id holding a NUL character is refused", async () => {
    const path = await jsonl("nul.jsonl", [{ ...row, ticket_id: "a\u0000b" }]);
    assert.deepEqual(await load(path), [
      `${path}:1: field "ticket_id": "a\\u0000b" holds a control character (U+0000); an id must be one line of printable text`,
    ]);
  });

  await t.step(
    "a semicolon-separated CSV is read with its delimiter, as its comma copy",
    async () => {
      const semicolon = join(dir, "semicolon.csv");
      const comma = join(dir, "comma.csv");
      await Deno.writeTextFile(
        semicolon,
        'ticket_id;body;queue;is_urgent;team;mood\nT-1;"Refund, now";billing;yes;billing;2\n',
      );
      await Deno.writeTextFile(
        comma,
        'ticket_id,body,queue,is_urgent,team,mood\nT-1,"Refund, now",billing,yes,billing,2\n',
      );
      const read = async (path: string) => {
        const set = await openQuestionSet({
          dataset: ticketSpec(path),
          questions: TICKET_QUESTIONS,
        });
        return await Array.fromAsync(set.cases());
      };
      const cases = await read(semicolon);
      assert.equal(cases.length, 1);
      assert.deepEqual(cases, await read(comma));
      assert.deepEqual(cases[0]?.state, (await read(comma))[0]?.state);
    },
  );

  await t.step("more problems than are kept: the count is still exact", async () => {
    const rows = Array.from(
      { length: 2500 },
      (_, i) => ({ ...row, ticket_id: `r${i}`, team: "x" }),
    );
    const lines = await load(await jsonl("many.jsonl", rows));
    assert.equal(lines.length, 11);
    assert.equal(lines[10], "… and 2490 more problems");
  });
});
