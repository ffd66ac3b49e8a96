import assert from "node:assert/strict";
import type { CaseOutcome } from "./ask.ts";
import { watchReplies } from "./not_a_server.ts";

const page: CaseOutcome = {
  reply: null,
  error: { kind: "malformed", message: "reply: body is not valid JSON", status: null },
  fatal: false,
  attempts: 1,
  latencyMs: 1,
  notAReply: { status: 200, contentType: null, start: "<html>" },
};
const malformed: CaseOutcome = {
  reply: null,
  error: { kind: "malformed", message: "answers.x: missing", status: null },
  fatal: false,
  attempts: 1,
  latencyMs: 1,
};
const unavailable: CaseOutcome = {
  reply: null,
  error: { kind: "unavailable", message: "HTTP 500", status: 500 },
  fatal: false,
  attempts: 3,
  latencyMs: 1,
};

Deno.test("watchReplies() stops at the third reply outside the wire format, naming what came", () => {
  const watch = watchReplies("pcd", "http://h:1/v1/pcd/decode");
  assert.equal(watch.observe(page), null);
  assert.equal(watch.observe(unavailable), null, "HTTP errors do not count");
  assert.equal(watch.observe(page), null);
  const message = watch.observe(page) ?? "";
  assert.match(message, /^Cannot benchmark "http:\/\/h:1\/v1\/pcd\/decode": its first 3 answers/);
  assert.match(
    message,
    /not pcdServer replies \(HTTP 200, no content type, body starts "<html>"\)/,
  );
  assert.equal(watch.observe(page), null, "the verdict is given once");
});

Deno.test("watchReplies() never stops a server that sent one reply of the wire format", () => {
  const watch = watchReplies("systemone", "http://h:1/v1/systemone", { after: 2 });
  assert.equal(watch.observe(malformed), null);
  for (let i = 0; i < 5; i++) assert.equal(watch.observe(page), null);
});
