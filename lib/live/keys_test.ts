import assert from "node:assert/strict";
import { type KeyAction, keyActions } from "./keys.ts";

Deno.test("`keyActions()` maps raw-mode bytes to reset and quit", async (t) => {
  const cases: [string, number[], KeyAction[]][] = [
    ["Ctrl+R resets", [0x12], ["reset"]],
    ["Ctrl+C quits", [0x03], ["quit"]],
    ["Ctrl+D quits", [0x04], ["quit"]],
    ["q quits", [0x71], ["quit"]],
    ["several keys in one read keep their order", [0x12, 0x61, 0x03], ["reset", "quit"]],
    ["other letters do nothing", [0x72, 0x61, 0x0d], []],
    ["an arrow key's escape sequence is skipped", [0x1b, 0x5b, 0x41, 0x12], ["reset"]],
    ["Alt+q is not q", [0x1b, 0x71], []],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.deepEqual(keyActions(new Uint8Array(bytes)), expected));
  }
});
