import assert from "node:assert/strict";
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

Deno.test("`send()` ends a request without an answer at its timeout, and answers the others", async () => {
  await using server = holdingServer();
  const [slow, fast] = await Promise.all([
    send(post(`${server.url}/slow`), { timeoutMs: 100 }).then(
      () => "answered",
      (error) => error instanceof EndpointError ? [error.kind, error.message] : String(error),
    ),
    send(post(`${server.url}/fast`), { timeoutMs: 10_000 }).then((r) => r.body),
  ]);
  assert.deepEqual(slow, ["timeout", `No answer from "${server.url}/slow" within 100 ms`]);
  assert.equal(fast, "{}");
});

Deno.test("`send()` stops the requests its caller's signal covers, and only those", async () => {
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
  stop.abort(new DOMException("stopped", "AbortError"));
  assert.deepEqual(await Promise.all(covered), ["AbortError", "AbortError", "AbortError"]);
  assert.equal(await other, "timeout");
});

Deno.test("`send()` with a signal aborted before sending sends nothing", async () => {
  await using server = holdingServer();
  const stop = new AbortController();
  stop.abort(new DOMException("stopped", "AbortError"));
  await assert.rejects(send(post(`${server.url}/fast`), { signal: stop.signal }), {
    name: "AbortError",
  });
});
