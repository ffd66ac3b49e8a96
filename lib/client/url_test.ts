import assert from "node:assert/strict";
import { endpointIdentity, parseBaseUrl, systemOneUrl } from "./url.ts";

Deno.test("systemOneUrl() applies the System One URL rules", async (t) => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/systemone"],
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/systemone"],
    ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/systemone"],
    ["http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/systemone"],
    ["https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/systemone"],
    ["https://api.typesafe.ai/v1/systemone", "https://api.typesafe.ai/v1/systemone"],
    ["http://host/prefix", "http://host/prefix/v1/systemone"],
  ];
  for (const [base, want] of cases) {
    await t.step(base, () => assert.equal(systemOneUrl(base), want));
  }
});

Deno.test("parseBaseUrl() refuses bad URLs without echoing credentials", async (t) => {
  await t.step(
    "not a URL",
    () => assert.throws(() => parseBaseUrl("localhost:8080x y"), TypeError),
  );
  await t.step(
    "ftp scheme",
    () => assert.throws(() => parseBaseUrl("ftp://h/"), /not http or https/),
  );
  await t.step("credentials", () => {
    try {
      parseBaseUrl("http://user:hunter22@h:1/");
      assert.fail("expected a throw");
    } catch (error) {
      assert.ok(error instanceof TypeError);
      assert.doesNotMatch(error.message, /hunter22/);
      assert.match(error.message, /embeds credentials/);
    }
  });
});

Deno.test("endpointIdentity() keeps scheme, host, port and path only", () => {
  assert.equal(
    endpointIdentity("https://h/api/v1/systemone?x=1#f"),
    "https://h:443/api/v1/systemone",
  );
  assert.equal(
    endpointIdentity("http://127.0.0.1:8080/v1/systemone"),
    "http://127.0.0.1:8080/v1/systemone",
  );
});
