import assert from "node:assert/strict";
import {
  chooseParallel,
  FALLBACK_PARALLEL,
  MAX_PARALLEL,
  probeSlots,
  serverRoot,
} from "./slots.ts";

/** A loopback server answering `routes[path]` (status, JSON body) and 404 for anything else. */
function serverWith(
  routes: Record<string, [number, unknown]>,
  seen: { path: string; authorization: string | null }[] = [],
): Deno.HttpServer<Deno.NetAddr> & { url: string } {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    seen.push({ path, authorization: request.headers.get("authorization") });
    const route = routes[path];
    if (!route) {
      return Response.json({ error: { code: 404, message: "File Not Found" } }, { status: 404 });
    }
    return Response.json(route[1], { status: route[0] });
  });
  return Object.assign(server, { url: `http://127.0.0.1:${server.addr.port}` });
}

Deno.test("`serverRoot()` strips the decision route to reach /props", async (t) => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080"],
    ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"],
    ["http://127.0.0.1:8080/v1/systemone", "http://127.0.0.1:8080"],
    ["http://gpu-box:8084/llama/v1/systemone", "http://gpu-box:8084/llama"],
    ["https://openrouter.ai/api/v1", "https://openrouter.ai/api"],
    ["http://127.0.0.1:8080/v1/pcd/decode", "http://127.0.0.1:8080"],
    ["http://127.0.0.1:8080/systemone", "http://127.0.0.1:8080"],
  ];
  for (const [url, root] of cases) {
    await t.step(url, () => assert.equal(serverRoot(url), root));
  }
});

Deno.test("`chooseParallel()` takes /props total_slots and says where it came from", async () => {
  await using server = serverWith({ "/props": [200, { total_slots: 3, model_path: "m.gguf" }] });
  const choice = await chooseParallel(`${server.url}/v1`);
  assert.equal(choice.parallel, 3);
  assert.equal(choice.source, "server");
  assert.equal(choice.message, `parallel auto: 3 (3 slots reported by ${server.url}/props)`);
});

Deno.test("`chooseParallel()` counts /slots when /props gives no total_slots", async () => {
  await using server = serverWith({
    "/props": [200, { model_path: "m.gguf" }],
    "/slots": [200, [{ id: 0 }, { id: 1 }]],
  });
  const choice = await chooseParallel(server.url);
  assert.equal(choice.parallel, 2);
  assert.match(choice.message, /2 slots reported by http:\/\/127\.0\.0\.1:\d+\/slots/);
});

Deno.test("`chooseParallel()` falls back to 4 and says why", async (t) => {
  const cases: [string, Record<string, [number, unknown]>, RegExp][] = [
    ["no /props, no /slots", {}, /\/props answered HTTP 404, \/slots answered HTTP 404\)$/],
    [
      "slots disabled",
      { "/props": [200, {}], "/slots": [501, { error: {} }] },
      /\/props reports no total_slots, \/slots answered HTTP 501\)$/,
    ],
    [
      "nonsense counts",
      { "/props": [200, { total_slots: 0 }], "/slots": [200, []] },
      /reports no total_slots, \/slots lists no slots\)$/,
    ],
    ["not JSON", { "/props": [200, "x"], "/slots": [200, { n: 1 }] }, /lists no slots\)$/],
  ];
  for (const [name, routes, reason] of cases) {
    await t.step(name, async () => {
      await using server = serverWith(routes);
      const choice = await chooseParallel(server.url);
      assert.equal(choice.parallel, FALLBACK_PARALLEL);
      assert.equal(choice.source, "fallback");
      assert.match(choice.message, /^parallel auto: 4, the fallback \(http:\/\/127\.0\.0\.1:\d+/);
      assert.match(choice.message, reason);
    });
  }
});

Deno.test("`chooseParallel()` falls back when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const choice = await chooseParallel(`http://127.0.0.1:${port}`);
  assert.equal(choice.parallel, FALLBACK_PARALLEL);
  assert.match(choice.message, /\/props could not be reached/);
});

Deno.test("`chooseParallel()` caps a huge slot count at the schema's bound", async () => {
  await using server = serverWith({ "/props": [200, { total_slots: 1000 }] });
  const choice = await chooseParallel(server.url);
  assert.equal(choice.parallel, MAX_PARALLEL);
  assert.match(choice.message, /1000 slots reported by .*, capped at 256\)$/);
});

Deno.test("`probeSlots()` sends the key as a bearer header and never puts it in a message", async () => {
  const seen: { path: string; authorization: string | null }[] = [];
  await using server = serverWith({}, seen);
  const probe = await probeSlots(server.url, { apiKey: "sk-probe-123" });
  assert.equal(probe.slots, null);
  assert.deepEqual(seen.map((s) => s.authorization), [
    "Bearer sk-probe-123",
    "Bearer sk-probe-123",
  ]);
  assert.ok(!probe.reason?.includes("sk-probe-123"));
});
