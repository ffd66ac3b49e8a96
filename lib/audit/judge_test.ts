import assert from "node:assert/strict";
import { checkJudgeUrl } from "./judge.ts";

Deno.test("checkJudgeUrl() accepts plain http(s) base URLs", () => {
  assert.equal(checkJudgeUrl("http://127.0.0.1:8084").port, "8084");
  assert.equal(checkJudgeUrl("https://judge.example/v1").pathname, "/v1");
});

Deno.test("checkJudgeUrl() refuses credentials, queries and fragments without echoing them", async (t) => {
  const table: [string, string, RegExp][] = [
    ["credentials", "http://alice:s3cr3t-pw@127.0.0.1:8084/", /embeds credentials/],
    ["user only", "http://s3cr3t-pw@127.0.0.1:8084/", /embeds credentials/],
    ["query", "http://127.0.0.1:8084/v1?key=s3cr3t-pw", /query string/],
    ["empty query", "http://127.0.0.1:8084/v1?", /query string/],
    ["fragment", "http://127.0.0.1:8084/#s3cr3t-pw", /fragment/],
    ["scheme", "ftp://127.0.0.1/s3cr3t-pw", /not http or https/],
    ["not a URL", "s3cr3t-pw", /not a valid URL/],
  ];
  for (const [name, url, pattern] of table) {
    await t.step(name, () => {
      try {
        checkJudgeUrl(url);
        assert.fail("expected a refusal");
      } catch (error) {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, pattern);
        assert.doesNotMatch(error.message, /s3cr3t|alice|8084\/v1/);
      }
    });
  }
});
