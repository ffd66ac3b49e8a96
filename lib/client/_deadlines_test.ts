import assert from "node:assert/strict";
import { trackedCount } from "./_deadlines.ts";
import { EndpointError } from "./errors.ts";
import { send } from "./transport.ts";

/** A server that answers `/fast` at once and holds `/slow` until the client goes away. */
function holdingServer(): Deno.HttpServer<Deno.NetAddr> & { url: string } {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    if (new URL(request.url).pathname === "/fast") return new Response("{}");
    return new Promise<Response>((resolve) => {
      request.signal.addEventListener("abort", () => resolve(new Response("gone")));
    });
  });
  return Object.assign(server, { url: `http://127.0.0.1:${server.addr.port}` });
}

const post = (url: string) => ({ url, headers: {}, body: "{}" });

Deno.test("one sweep times out each request at its own deadline", async () => {
  await using server = holdingServer();
  const started = performance.now();
  const ended: Record<string, number> = {};
  const outcome = (name: string, timeoutMs: number) =>
    send(post(`${server.url}/slow`), { timeoutMs }).then(
      () => "answered",
      (error) => {
        ended[name] = performance.now() - started;
        return error instanceof EndpointError ? error.kind : String(error);
      },
    );
  const [late, early, fast] = await Promise.all([
    outcome("late", 400),
    outcome("early", 100),
    send(post(`${server.url}/fast`), { timeoutMs: 50 }).then((r) => r.body),
  ]);
  assert.deepEqual([late, early, fast], ["timeout", "timeout", "{}"]);
  assert.ok(ended.early! >= 95 && ended.early! < ended.late!, JSON.stringify(ended));
  assert.ok(ended.late! >= 395, JSON.stringify(ended));
  assert.equal(trackedCount(), 0);
});

Deno.test("the caller's signal aborts every request it covers, and only those", async () => {
  await using server = holdingServer();
  const stop = new AbortController();
  const covered = [1, 2, 3].map(() =>
    send(post(`${server.url}/slow`), { timeoutMs: 10_000, signal: stop.signal }).then(
      () => "answered",
      (error) => (error as Error).name,
    )
  );
  const other = send(post(`${server.url}/slow`), { timeoutMs: 300 }).then(
    () => "answered",
    (error) => (error as EndpointError).kind,
  );
  await new Promise((r) => setTimeout(r, 50));
  stop.abort(new DOMException("stopped", "AbortError"));
  assert.deepEqual(await Promise.all(covered), ["AbortError", "AbortError", "AbortError"]);
  assert.equal(await other, "timeout");
  assert.equal(trackedCount(), 0);
});

Deno.test("a signal aborted before sending sends nothing", async () => {
  await using server = holdingServer();
  const stop = new AbortController();
  stop.abort(new DOMException("stopped", "AbortError"));
  await assert.rejects(send(post(`${server.url}/fast`), { signal: stop.signal }), {
    name: "AbortError",
  });
  assert.equal(trackedCount(), 0);
});
