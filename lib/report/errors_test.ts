import assert from "node:assert/strict";
import { errored, record } from "../../tests/records_fixtures.ts";
import { errorKindData, errorsByKind } from "./errors.ts";

Deno.test("errorsByKind() counts decisions and cases per kind, most first, one example each", () => {
  const records = [
    record({ case: "c0" }),
    errored({ case: "c1", question: "q1" }),
    errored({
      case: "c2",
      question: "q1",
      error: { kind: "malformed", message: "Cannot accept the answers: answers.q1: missing" },
    }),
    errored({
      case: "c2",
      question: "q2",
      error: { kind: "malformed", message: "Cannot accept the answers: answers.q2: missing" },
    }),
    errored({
      case: "c3",
      question: "q1",
      error: { kind: "malformed", message: "a later message" },
    }),
  ];
  assert.deepEqual(errorsByKind(records), [
    {
      kind: "malformed",
      decisions: 3,
      cases: 2,
      example: "Cannot accept the answers: answers.q1: missing",
    },
    { kind: "network", decisions: 1, cases: 1, example: "Cannot reach the server" },
  ]);
  assert.deepEqual(errorsByKind([record()]), []);
});

Deno.test("errorsByKind() redacts bearer tokens and cuts long examples", () => {
  const [row] = errorsByKind([
    errored({
      error: {
        kind: "authentication",
        message: `HTTP 401: header "Authorization: Bearer sk-live-9f8e7d" refused ${
          "x".repeat(300)
        }`,
      },
    }),
  ]);
  assert.ok(row);
  assert.ok(!row.example.includes("sk-live-9f8e7d"), row.example);
  assert.match(row.example, /Bearer \[redacted\]/);
  assert.equal([...row.example].length, 160);
  assert.ok(row.example.endsWith("…"));
});

Deno.test("errorKindData() is the table the three reports render", () => {
  const data = errorKindData(
    errorsByKind([errored({ case: "c1" }), errored({ case: "c1", question: "q2" })]),
  );
  assert.deepEqual(data.header, ["kind", "decisions", "cases", "example"]);
  assert.deepEqual(data.rows, [["network", "2", "1", "Cannot reach the server"]]);
});
