import assert from "node:assert/strict";
import { formatEta, progressBar, progressLine } from "./progress.ts";

// deno-lint-ignore no-control-regex
const CLEAR = /\r\x1b\[2K/g;

function fakeStream(terminal: boolean) {
  const writes: string[] = [];
  const dec = new TextDecoder();
  return {
    writes,
    stream: {
      isTerminal: () => terminal,
      writeSync: (p: Uint8Array) => {
        writes.push(dec.decode(p));
        return p.length;
      },
    },
  };
}

Deno.test("progressLine() never exceeds the width and keeps the count first", async (t) => {
  const state = { done: 123, total: 400, rate: 52.3, text: "accuracy 74.1%  errors 2" };
  for (const width of [10, 20, 30, 39, 60, 79, 119]) {
    await t.step(`${width} columns`, () => {
      const line = progressLine(state, width);
      assert.ok([...line].length <= width, `${line.length}: ${line}`);
      assert.match(line, /123\/400/);
    });
  }
  assert.match(progressLine(state, 39), /123\/400 30% 52\.3\/s ETA 6 s$/);
  assert.match(progressLine(state, 39), /^[█░]+ /, "a bar in the room left");
  assert.match(progressLine(state, 79), /ETA 6 s accuracy 74\.1% {2}errors 2$/);
  assert.equal(progressLine({ ...state, rate: null }, 20), "██░░░░░░ 123/400 30%");
});

Deno.test("formatEta() writes seconds, minutes and hours", () => {
  assert.equal(formatEta(4.2), "5 s");
  assert.equal(formatEta(187), "3:07");
  assert.equal(formatEta(3727), "1:02:07");
});

Deno.test("progressBar() on a terminal redraws at most ten times a second and fits the width", () => {
  const { writes, stream } = fakeStream(true);
  let clock = 0;
  const bar = progressBar({ stream, columns: () => 40, now: () => clock });
  // 400 cases in 4 s, one every 10 ms.
  for (let done = 1; done <= 400; done++) {
    clock = done * 10;
    bar.update(done, 400, "accuracy 50.0%");
  }
  bar.done();
  const draws = writes.filter((w) => /\d+\/400/.test(w));
  assert.ok(draws.length >= 38 && draws.length <= 42, `${draws.length} redraws in 4 s`);
  for (const w of draws) {
    const line = w.replace(CLEAR, "");
    assert.ok([...line].length <= 39, line);
    assert.ok(!line.includes("\n"));
  }
  assert.match(draws.at(-1) ?? "", /400\/400 100%/, "the last item is always drawn");
  assert.match(draws[20] ?? "", /\/s ETA \d/, "rate and ETA once known");
  assert.equal(writes.at(-1), "\r\x1b[2K", "done() clears the line");
});

Deno.test("progressBar() follows a terminal that narrows", () => {
  const { writes, stream } = fakeStream(true);
  let columns = 100;
  let clock = 0;
  const bar = progressBar({ stream, columns: () => columns, now: () => clock });
  bar.update(1, 10);
  columns = 25;
  clock = 1000;
  bar.update(2, 10);
  assert.ok([...(writes.at(-1) ?? "").replace(CLEAR, "")].length <= 24);
});

Deno.test("progressBar() without a terminal writes a line every tenth of the work", () => {
  const { writes, stream } = fakeStream(false);
  let clock = 0;
  const bar = progressBar({ stream, now: () => clock });
  // 400 cases in 8 s, one every 20 ms.
  for (let done = 1; done <= 400; done++) {
    clock = done * 20;
    bar.update(done, 400, "accuracy 50.0%");
  }
  bar.done();
  assert.equal(writes.length, 10, writes.join(""));
  assert.ok(writes.every((w) => w.endsWith("\n") && !w.includes("\x1b")));
  assert.match(writes[0] ?? "", /^progress 40\/400 cases \(10%\), [\d.]+ cases\/s, ETA \d+ s/);
  assert.match(writes.at(-1) ?? "", /^progress 400\/400 cases \(100%\), [\d.]+ cases\/s, accuracy/);
});

Deno.test("progressBar() without a terminal writes a line every ten seconds of slow work", () => {
  const { writes, stream } = fakeStream(false);
  let clock = 0;
  const bar = progressBar({ stream, now: () => clock });
  // 1,000 cases, one every 2.5 s: a tenth takes 250 s, so the clock sets the pace.
  for (let done = 1; done <= 40; done++) {
    clock = done * 2500;
    bar.update(done, 1000);
  }
  assert.equal(writes.length, 10, writes.join(""));
  assert.match(writes[0] ?? "", /^progress 4\/1000 cases \(0%\), 0\.4 cases\/s, ETA 41:30$/m);
});

Deno.test("progressBar() starts counting again for the next run on the same bar", () => {
  const { writes, stream } = fakeStream(false);
  let clock = 0;
  const bar = progressBar({ stream, now: () => clock });
  for (const run of ["a", "b"]) {
    for (let done = 1; done <= 10; done++) {
      clock += 100;
      bar.update(done, 10, run);
    }
  }
  assert.equal(writes.filter((w) => w.includes(", a")).length, 10);
  assert.equal(writes.filter((w) => w.includes(", b")).length, 10);
});
