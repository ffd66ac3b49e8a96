import assert from "node:assert/strict";
import { interruptHandler } from "./signals.ts";

function clock(): { now: () => number; advance(ms: number): void } {
  let t = 0;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

Deno.test("`interruptHandler()` takes a Ctrl+C delivered twice (terminal and deno task) as one interrupt", () => {
  const time = clock();
  const exits: number[] = [];
  const logged: string[] = [];
  const handler = interruptHandler("stopping", {
    now: time.now,
    exit: (code) => exits.push(code),
    log: (line) => logged.push(line),
  });
  handler.onSignal();
  time.advance(3);
  handler.onSignal(); // the same Ctrl+C, forwarded by deno task
  assert.equal(handler.signal.aborted, true);
  assert.deepEqual(exits, [], "the forwarded copy does not quit at once");
  assert.equal(logged.length, 1);
});

Deno.test("`interruptHandler()` quits with 130 at a second Ctrl+C after the repeat window", () => {
  const time = clock();
  const exits: number[] = [];
  const handler = interruptHandler("stopping", {
    now: time.now,
    exit: (code) => exits.push(code),
    log: () => {},
    repeatWindowMs: 500,
  });
  handler.onSignal();
  time.advance(800);
  handler.onSignal();
  assert.deepEqual(exits, [130]);
});
