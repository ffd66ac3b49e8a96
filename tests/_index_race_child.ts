// Child of index_race_test.ts: for each stdin line "<index path>\t<run id>" it opens the index
// (creating it when absent), indexes a run of two decisions under that id, closes it and prints
// "ok" or "error <message>" on one line.
import { indexRun, openIndex } from "../lib/record/mod.ts";
import { errored, record, runJson } from "./records_fixtures.ts";

const records = [record({ case: "c1" }), errored({ case: "c2" })];
const encoder = new TextEncoder();
let pending = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  pending += chunk;
  let end: number;
  while ((end = pending.indexOf("\n")) >= 0) {
    const [path, id] = pending.slice(0, end).split("\t") as [string, string];
    pending = pending.slice(end + 1);
    let reply = "ok";
    try {
      const index = openIndex(path);
      try {
        indexRun(index, runJson(records, { id }), records);
      } finally {
        index.close();
      }
    } catch (error) {
      reply = `error ${(error as Error).message}`;
    }
    await Deno.stdout.write(encoder.encode(`${reply}\n`));
  }
}
