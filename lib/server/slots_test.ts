import assert from "node:assert/strict";
import { type ReferenceServer, startReferenceServer } from "./server.ts";

const BODY = JSON.stringify({
  state: "a refund request",
  questions: { ok: { type: "noul", instructions: "Refund it?" } },
});

function ask(server: ReferenceServer): Promise<Response> {
  return fetch(`${server.url}/v1/systemone`, { method: "POST", body: BODY });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), "condition not reached");
}

async function metric(server: ReferenceServer, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  assert.ok(line, `no ${name} in /metrics`);
  return Number(line.slice(name.length + 1));
}

Deno.test("`slots: 1` makes later requests wait in arrival order and /metrics counts them", async () => {
  // Each answer takes 150 ms, so the second and third request are still queued when we look.
  await using server = await startReferenceServer({ slots: 1, latencyMs: 150 });
  const finished: number[] = [];
  const pending = [0, 1, 2].map((i) =>
    ask(server).then(async (r) => {
      assert.equal(r.status, 200);
      await r.body?.cancel();
      finished.push(i);
    })
  );
  await until(() => server.stats().deferred === 2);
  assert.equal(await metric(server, "llamacpp:requests_deferred"), 2);
  assert.equal(await metric(server, "llamacpp:requests_processing"), 1);
  await Promise.all(pending);
  assert.deepEqual(finished, [0, 1, 2]);
  assert.equal(server.stats().deferred, 0);
  assert.equal(server.stats().deferredTotal, 2);
  assert.equal(await metric(server, "llamacpp:requests_deferred"), 0);
  // Each forward pass saw one busy slot, never the queued requests.
  assert.equal(await metric(server, "llamacpp:n_busy_slots_per_decode"), 1);
});

Deno.test("without `slots` no request waits", async () => {
  await using server = await startReferenceServer({ latencyMs: 100 });
  const pending = [0, 1, 2, 3].map(() => ask(server).then((r) => r.text()));
  await until(() => server.stats().processing === 4);
  assert.equal(server.stats().deferred, 0);
  await Promise.all(pending);
  assert.equal(server.stats().deferredTotal, 0);
});

Deno.test("closing the server releases the requests waiting for a slot", async () => {
  const server = await startReferenceServer({ slots: 1, latencyMs: 200 });
  const outcome = (r: Response) => r.body?.cancel().then(() => r.status) ?? r.status;
  const first = ask(server).then(outcome, () => "network error");
  await until(() => server.stats().processing === 1);
  const second = ask(server).then(outcome, () => "network error");
  await until(() => server.stats().deferred === 1);
  await server.close();
  assert.equal(server.stats().deferred, 0);
  for (const status of [await first, await second]) {
    assert.ok(status === 200 || status === 503 || status === "network error", String(status));
  }
});

Deno.test("GET /props reports `total_slots` only when slots are set", async () => {
  {
    await using server = await startReferenceServer({ slots: 3 });
    const props = await (await fetch(`${server.url}/props`)).json();
    assert.equal(props.total_slots, 3);
    assert.equal(server.slots, 3);
    const slots = await (await fetch(`${server.url}/slots`)).json();
    assert.deepEqual(slots, [0, 1, 2].map((id) => ({ id, is_processing: false })));
  }
  {
    await using server = await startReferenceServer();
    const response = await fetch(`${server.url}/props`);
    assert.equal(response.status, 200);
    assert.equal("total_slots" in await response.json(), false);
    const slots = await fetch(`${server.url}/slots`);
    assert.equal(slots.status, 501);
    assert.match((await slots.json()).error.message, /start it with --slots N/);
  }
});

Deno.test("GET /props needs the key when the server has one", async () => {
  await using server = await startReferenceServer({ slots: 2, apiKey: "s3cret" });
  const refused = await fetch(`${server.url}/props`);
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const props = await fetch(`${server.url}/props`, {
    headers: { authorization: "Bearer s3cret" },
  });
  assert.equal((await props.json()).total_slots, 2);
});

Deno.test("`slots` must be a positive integer", async () => {
  for (const slots of [0, -1, 1.5]) {
    await assert.rejects(
      startReferenceServer({ slots }),
      (error: unknown) =>
        error instanceof RangeError &&
        /slots "[^"]+" is not a positive integer/.test(error.message),
    );
  }
});
