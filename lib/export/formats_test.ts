import assert from "node:assert/strict";
import { EXPORT_FORMAT_REGISTRY, exportFormat } from "./formats.ts";
import { EXPORT_FORMAT_NAMES } from "./types.ts";

Deno.test("the export format registry holds one definition per name of `EXPORT_FORMAT_NAMES`, in order", () => {
  assert.deepEqual(EXPORT_FORMAT_REGISTRY.map((f) => f.name), [...EXPORT_FORMAT_NAMES]);
  assert.equal(exportFormat("csv")?.singleFile, true);
  assert.equal(exportFormat("xlsx"), undefined);
});
