import assert from "node:assert/strict";
import { ENTER, frameUpdate, LEAVE, openScreen } from "./_screen.ts";

Deno.test("`frameUpdate()` rewrites only the lines that changed, addressed by row", async (t) => {
  await t.step("nothing changed", () => assert.equal(frameUpdate(["a", "b"], ["a", "b"]), ""));
  await t.step("one line changed", () => {
    assert.equal(frameUpdate(["a", "b"], ["a", "c"]), "\x1b[2;1H\x1b[2Kc");
  });
  await t.step("a first frame writes every line", () => {
    assert.equal(frameUpdate([], ["x", ""]), "\x1b[1;1H\x1b[2Kx\x1b[2;1H\x1b[2K");
  });
  await t.step("rows the new frame lacks are erased", () => {
    assert.equal(frameUpdate(["a", "b"], ["a"]), "\x1b[2;1H\x1b[2K");
  });
});

Deno.test("`openScreen()` enters the alternate screen in raw mode and `restore()` undoes both once", () => {
  let written = "";
  const output = (): string => written;
  const rawModes: boolean[] = [];
  const screen = openScreen({
    streams: {
      output: {
        writeSync(bytes: Uint8Array) {
          written += new TextDecoder().decode(bytes);
          return bytes.length;
        },
      },
      input: { isTerminal: () => true, setRaw: (mode: boolean) => void rawModes.push(mode) },
    },
  });
  assert.equal(screen.raw, true);
  assert.equal(output(), ENTER);
  screen.show(["hello"]);
  screen.show(["hello"]);
  assert.equal(output(), `${ENTER}\x1b[1;1H\x1b[2Khello`);
  screen.show(["hello"], true);
  assert.ok(output().endsWith("\x1b[2J\x1b[1;1H\x1b[2Khello"));
  screen.restore();
  screen.restore();
  assert.ok(output().endsWith(LEAVE));
  assert.equal(output().split(LEAVE).length, 2);
  assert.deepEqual(rawModes, [true, false]);
  screen.show(["after"]);
  assert.ok(!output().includes("after"));
});

Deno.test("`openScreen()` leaves raw mode alone when stdin is not a terminal", () => {
  const screen = openScreen({
    streams: {
      output: { writeSync: (bytes: Uint8Array) => bytes.length },
      input: {
        isTerminal: () => false,
        setRaw: () => {
          throw new Error("setRaw must not be called");
        },
      },
    },
  });
  assert.equal(screen.raw, false);
  screen.restore();
});
