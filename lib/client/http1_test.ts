import assert from "node:assert/strict";
import { Http1Error, Http1Pool, usesHttp1 } from "./http1.ts";
import { send } from "./transport.ts";
import { EndpointError } from "./errors.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One request as a raw server read it. */
interface Seen {
  head: string;
  body: string;
  /** The connection's number (1 for the first accepted). */
  connection: number;
}

/**
 * A TCP server on loopback that reads HTTP/1.1 requests (head and `Content-Length` body) and
 * answers each with what `reply` writes: the wrong servers a user meets, byte for byte.
 */
function rawServer(
  reply: (conn: Deno.Conn, seen: Seen) => Promise<"keep" | "close">,
): {
  url: string;
  seen: Seen[];
  connections: () => number;
  [Symbol.asyncDispose]: () => Promise<void>;
} {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: Seen[] = [];
  const open = new Set<Deno.Conn>();
  const tasks: Promise<void>[] = [];
  let accepted = 0;
  const serveConn = async (conn: Deno.Conn, number: number) => {
    let buffer = new Uint8Array(0);
    const read = async (): Promise<boolean> => {
      const chunk = new Uint8Array(65536);
      const n = await conn.read(chunk).catch(() => null);
      if (n === null) return false;
      const grown = new Uint8Array(buffer.length + n);
      grown.set(buffer);
      grown.set(chunk.subarray(0, n), buffer.length);
      buffer = grown;
      return true;
    };
    try {
      for (;;) {
        let end = decoder.decode(buffer).indexOf("\r\n\r\n");
        while (end < 0) {
          if (!await read()) return;
          end = decoder.decode(buffer).indexOf("\r\n\r\n");
        }
        const head = decoder.decode(buffer.subarray(0, end));
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        while (buffer.length < end + 4 + length) if (!await read()) return;
        const body = decoder.decode(buffer.subarray(end + 4, end + 4 + length));
        buffer = buffer.slice(end + 4 + length);
        const entry = { head, body, connection: number };
        seen.push(entry);
        if (await reply(conn, entry) === "close") return;
      }
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // closed by the reply
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      tasks.push(serveConn(conn, ++accepted));
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/v1/systemone`,
    seen,
    connections: () => accepted,
    [Symbol.asyncDispose]: async () => {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await accepting.catch(() => {});
      await Promise.all(tasks);
    },
  };
}

async function write(conn: Deno.Conn, text: string | Uint8Array): Promise<void> {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

function ok(body: string, extra = ""): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extra}content-length: ${
    encoder.encode(body).length
  }\r\n\r\n${body}`;
}

const never = new AbortController().signal;

Deno.test("http1: keeps one connection alive across requests, and sends the head fetch sends", async () => {
  await using server = rawServer(async (conn, seen) => {
    await write(conn, ok(`{"echo":${JSON.stringify(seen.body)}}`));
    return "keep";
  });
  using pool = new Http1Pool();
  for (let i = 0; i < 5; i++) {
    const reply = await pool.post(
      server.url,
      { "content-type": "application/json" },
      `{"i":${i},"text":"é"}`,
      never,
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(reply.body), { echo: `{"i":${i},"text":"é"}` });
  }
  assert.equal(server.connections(), 1);
  assert.equal(pool.openConnections, 1);
  const head = server.seen[0]!.head;
  assert.match(head, /^POST \/v1\/systemone HTTP\/1\.1\r\n/);
  assert.match(head, /\r\nhost: 127\.0\.0\.1:\d+\r\n/);
  assert.match(head, /\r\ncontent-type: application\/json\r\n/);
  // The last header line (the head is read up to its blank line); é is two bytes.
  assert.ok(head.endsWith(`\r\ncontent-length: ${encoder.encode('{"i":0,"text":"é"}').length}`));
  assert.match(head, /\r\nuser-agent: Deno\//);
  pool.close();
  assert.equal(pool.openConnections, 0, "close ends the kept-alive connection");
});

Deno.test("http1: reads a chunked body with a character split across chunks, and its trailers", async () => {
  await using server = rawServer(async (conn) => {
    const bytes = encoder.encode('{"word":"naïve"}');
    const cut = 12; // inside ï's two bytes
    await write(conn, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
    await write(conn, `${cut.toString(16)};ext=1\r\n`);
    await write(conn, bytes.subarray(0, cut));
    await write(conn, `\r\n${(bytes.length - cut).toString(16).toUpperCase()}\r\n`);
    await write(conn, bytes.subarray(cut));
    await write(conn, "\r\n0\r\nx-trailer: yes\r\n\r\n");
    return "keep";
  });
  using pool = new Http1Pool();
  const first = await pool.post(server.url, {}, "{}", never);
  assert.equal(first.body, '{"word":"naïve"}');
  const second = await pool.post(server.url, {}, "{}", never);
  assert.equal(second.body, '{"word":"naïve"}');
  assert.equal(server.connections(), 1, "the connection is reused after a chunked body");
});

Deno.test("http1: skips an interim 100 Continue, and reads to the end a body without a length", async () => {
  await using server = rawServer(async (conn) => {
    await write(conn, "HTTP/1.1 100 Continue\r\n\r\n");
    await write(conn, "HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it");
    return "close";
  });
  using pool = new Http1Pool();
  const reply = await pool.post(server.url, {}, "{}", never);
  assert.equal(reply.status, 200);
  assert.equal(reply.body, "all of it");
  assert.equal(pool.openConnections, 0, "a body ended by the close is not kept");
});

Deno.test("http1: a kept-alive connection the server dropped while idle is retried once on a new one", async () => {
  // The server answers without "connection: close", then closes: the pool only learns it on reuse.
  await using server = rawServer(async (conn) => {
    await write(conn, ok('{"ok":true}'));
    return "close";
  });
  using pool = new Http1Pool();
  for (let i = 0; i < 3; i++) {
    const reply = await pool.post(server.url, {}, `{"i":${i}}`, never);
    assert.equal(reply.body, '{"ok":true}');
  }
  assert.equal(server.connections(), 3);
  assert.deepEqual(server.seen.map((s) => s.body), ['{"i":0}', '{"i":1}', '{"i":2}']);
});

Deno.test("http1: a reply that is not HTTP, ends early or has a bad length is a clear error", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["a server that hangs up", "", /closed the connection without a reply/],
    ["another protocol", "SSH-2.0-OpenSSH_9.2\r\n", /not HTTP\/1\.1 \(it starts "SSH-2\.0/],
    [
      "a body shorter than its length",
      'HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"answers"',
      /closed the connection before the reply's body ended/,
    ],
    [
      "a length that is not a number",
      "HTTP/1.1 200 OK\r\ncontent-length: 12abc\r\n\r\n{}",
      /content-length "12abc" is not a number/,
    ],
    [
      "a chunk size that is not hexadecimal",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      /chunk size "zz" is not hexadecimal/,
    ],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", /malformed header/],
  ];
  for (const [name, bytes, message] of cases) {
    await t.step(name, async () => {
      await using server = rawServer(async (conn) => {
        if (bytes) await write(conn, bytes);
        return "close";
      });
      using pool = new Http1Pool();
      await assert.rejects(pool.post(server.url, {}, "{}", never), (error: unknown) => {
        assert.ok(error instanceof Http1Error);
        assert.match(error.message, message);
        return true;
      });
      assert.equal(server.connections(), 1, "a new connection is not retried");
    });
  }
});

Deno.test("http1: an abort closes the connection and rejects with the signal's reason", async () => {
  await using server = rawServer(async () => {
    await new Promise((resolve) => setTimeout(resolve, 300)); // never answers in time
    return "close";
  });
  using pool = new Http1Pool();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("stop", "AbortError")), 50);
  try {
    await assert.rejects(pool.post(server.url, {}, "{}", controller.signal), /stop/);
    assert.equal(pool.openConnections, 0);
  } finally {
    clearTimeout(timer);
  }
});

Deno.test("http1: a request aborted while it connects is not sent, and leaves no connection open", async () => {
  await using server = rawServer(async (conn) => {
    await write(conn, ok("{}"));
    return "keep";
  });
  using pool = new Http1Pool();
  const controller = new AbortController();
  const request = pool.post(server.url, {}, "{}", controller.signal);
  controller.abort(new DOMException("stop", "AbortError"));
  await assert.rejects(request, /stop/);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(server.seen.length, 0, "nothing was sent");
  assert.equal(pool.openConnections, 0);
});

Deno.test("http1: a header value with CR or LF is refused before anything is sent", async () => {
  await using server = rawServer(async (conn) => {
    await write(conn, ok("{}"));
    return "keep";
  });
  using pool = new Http1Pool();
  await assert.rejects(
    pool.post(server.url, { "x-key": "a\r\nx-evil: 1" }, "{}", never),
    TypeError,
  );
  assert.equal(server.connections(), 0);
});

Deno.test("http1: a closed pool refuses requests", async () => {
  const pool = new Http1Pool();
  pool.close();
  await assert.rejects(pool.post("http://127.0.0.1:9/", {}, "{}", never), /pool is closed/);
});

Deno.test("http1: only plain http: URLs take it", () => {
  assert.equal(usesHttp1("https://openrouter.ai/api/v1/systemone"), false);
  assert.equal(usesHttp1("http://127.0.0.1:8080/v1/systemone"), true);
});

Deno.test("send over the pool: a 429's Retry-After, a refused connection and a redirect read as over fetch", async () => {
  let hits = 0;
  await using server = rawServer(async (conn, seen) => {
    hits++;
    if (seen.head.startsWith("POST /limited ")) {
      const body = '{"error":{"message":"slow"}}';
      await write(
        conn,
        `HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
    } else if (seen.head.startsWith("POST /moved ")) {
      await write(
        conn,
        "HTTP/1.1 307 Temporary Redirect\r\nlocation: /v1/systemone\r\ncontent-length: 0\r\n\r\n",
      );
    } else {
      await write(conn, ok('{"where":"here"}'));
    }
    return "keep";
  });
  using pool = new Http1Pool();
  const base = server.url.replace("/v1/systemone", "");
  await assert.rejects(
    send({ url: `${base}/limited`, headers: {}, body: "{}" }, { http1: pool }),
    (error: unknown) => {
      assert.ok(error instanceof EndpointError);
      assert.equal(error.kind, "rate_limited");
      assert.equal(error.retryAfterMs, 3000);
      assert.match(error.message, /^HTTP 429 from ".*\/limited": slow$/);
      return true;
    },
  );
  const moved = await send({ url: `${base}/moved`, headers: {}, body: "{}" }, { http1: pool });
  assert.equal(moved.body, '{"where":"here"}');
  // fetch asks the redirecting URL again and follows it, with the same POST.
  assert.deepEqual(server.seen.map((s) => s.head.split(" ").slice(0, 2).join(" ")), [
    "POST /limited",
    "POST /moved",
    "POST /moved",
    "POST /v1/systemone",
  ]);
  assert.equal(hits, 4);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  await assert.rejects(
    send({ url: `http://127.0.0.1:${port}/v1/systemone`, headers: {}, body: "{}" }, {
      http1: pool,
    }),
    (error: unknown) => {
      assert.ok(error instanceof EndpointError);
      assert.equal(error.kind, "network");
      assert.match(error.message, /: tcp connect error: Connection refused/);
      return true;
    },
  );
});

Deno.test("http1: DECIBENCH_HTTP=fetch or a proxy in the environment leave every request to fetch", async () => {
  const probe = async (env: Record<string, string>) => {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { usesHttp1 } from ${
          JSON.stringify(new URL("./http1.ts", import.meta.url).href)
        };` +
        `console.log(usesHttp1("http://127.0.0.1:8080/v1/systemone"));`,
      ],
      env,
      clearEnv: true,
    }).output();
    return decoder.decode(stdout).trim();
  };
  assert.equal(await probe({}), "true");
  assert.equal(await probe({ DECIBENCH_HTTP: "fetch" }), "false");
  assert.equal(await probe({ HTTP_PROXY: "http://proxy.invalid:3128" }), "false");
  assert.equal(await probe({ all_proxy: "socks5://proxy.invalid:1080" }), "false");
});

Deno.test("http1: a reply far larger than the read buffer, twice on one connection, arrives whole", async () => {
  const big = JSON.stringify({ text: "ü".repeat(150_000) + "x".repeat(70_001) });
  await using server = rawServer(async (conn) => {
    await write(conn, ok(big));
    return "keep";
  });
  using pool = new Http1Pool();
  for (let i = 0; i < 2; i++) {
    assert.equal((await pool.post(server.url, {}, "{}", never)).body, big);
  }
  assert.equal(server.connections(), 1);
});

Deno.test("send over the pool: a compressed reply the pool did not ask for is fetched again and decoded", async () => {
  const text = '{"answers":{"packed":true}}';
  const packed = new Uint8Array(
    await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  await using server = rawServer(async (conn) => {
    await write(
      conn,
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${packed.length}\r\n\r\n`,
    );
    await write(conn, packed);
    return "keep";
  });
  using pool = new Http1Pool();
  const reply = await send({ url: server.url, headers: {}, body: "{}" }, { http1: pool });
  assert.equal(reply.body, text);
  assert.equal(server.seen.length, 2, "once over the pool, once with fetch");
  assert.match(server.seen[1]!.head, /accept-encoding: .*gzip/i);
});
