// The example question sets are what their generators write, so a reader can regenerate them and
// trust that the three formats of the tickets hold the same rows.
import assert from "node:assert/strict";
import { files, tickets } from "../examples/tickets/make.ts";

Deno.test("examples/tickets: the committed files are what make.ts writes", async () => {
  for (const [name, bytes] of Object.entries(files(tickets()))) {
    const committed = await Deno.readFile(new URL(`../examples/tickets/${name}`, import.meta.url));
    assert.deepStrictEqual(committed.length, bytes.length, name);
    assert.deepStrictEqual(committed, bytes, name);
  }
});

Deno.test("examples/tickets: about one label in fourteen is blank", () => {
  const rows = tickets();
  const blank = rows.flatMap((r) => [r.topic, r.urgent, r.severity]).filter((v) => v === null);
  assert.deepStrictEqual(rows.length, 3000);
  assert.deepStrictEqual(blank.length, 630);
});
