// End-to-end: servers that never answer — one answering every request with 429, one accepting
// connections and never replying — over real HTTP on loopback. The run stops after the endpoint's
// stopAfterFailures failed requests in a row (default 20), names the kind and says how to resume.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScript } from "./bench_cli_helpers.ts";

/** A server that counts requests and answers each with `answer` (which may never settle). */
function server(answer: (stop: AbortSignal) => Promise<Response> | Response) {
  let requests = 0;
  const hung = new AbortController();
  const s = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return answer(hung.signal);
  });
  return {
    url: `http://127.0.0.1:${s.addr.port}`,
    requests: () => requests,
    hung: hung.signal,
    [Symbol.asyncDispose]: async () => {
      hung.abort();
      await s.shutdown();
    },
  };
}

async function workflow(dir: string, url: string, extra: Record<string, unknown>): Promise<string> {
  const file = join(dir, "unanswered.workflow.ts");
  const endpoint = { baseUrl: url, model: "m", retries: 2, ...extra };
  await Deno.writeTextFile(
    file,
    `export default ${JSON.stringify({ name: "unanswered", endpoint, parallel: 2 })};\n`,
  );
  return file;
}

Deno.test("a run that gets no answer stops after 20 failed requests in a row, naming the kind, with a resume hint", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-unanswered-" });
  try {
    await t.step("a server answering every request with 429", async () => {
      await using s = server(() =>
        new Response('{"error":{"message":"slow down"}}', {
          status: 429,
          headers: { "content-type": "application/json", "retry-after": "0" },
        })
      );
      const out = join(tmp, "r429");
      const db = join(tmp, "index.db");
      const file = await workflow(tmp, s.url, {});
      const r = await runScript("bench.ts", [file, "--limit", "400", "--out", out, "--db", db]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /Cannot get answers from "[^"]+": 2\d requests in a row failed/);
      assert.match(r.stderr, /last: rate_limited, HTTP 429/);
      assert.match(r.stderr, /stopAfterFailures 20/);
      assert.ok(
        r.stderr.includes(`finish it with: deno task bench --resume ${out} --db ${db}`),
        r.stderr,
      );
      // 20 failed requests, plus what the other request in flight (parallel 2, 3 attempts) added.
      assert.ok(s.requests() >= 20 && s.requests() <= 20 + 2 * 3, `${s.requests()} requests`);
    });

    await t.step("a server that accepts and never answers (timeoutMs 200)", async () => {
      // Answers only when the test ends, so that the server can shut down.
      await using s = server((stop) =>
        new Promise<Response>((resolve) => {
          stop.addEventListener("abort", () => resolve(new Response(null, { status: 503 })));
        })
      );
      const out = join(tmp, "hung");
      const file = await workflow(tmp, s.url, { timeoutMs: 200, stopAfterFailures: 6 });
      const r = await runScript("bench.ts", [file, "--limit", "400", "--out", out, "--no-db"]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /Cannot get answers from "[^"]+": \d+ requests in a row failed/);
      assert.match(r.stderr, /stopAfterFailures 6; last: timeout, No answer from/);
      assert.ok(r.stderr.includes(`finish it with: deno task bench --resume ${out} --no-db`));
      assert.ok(s.requests() >= 6 && s.requests() <= 6 + 2 * 3, `${s.requests()} requests`);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
