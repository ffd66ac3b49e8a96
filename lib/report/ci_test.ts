import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { githubAnnotations, junitXml, thresholdChecks } from "./ci.ts";

Deno.test("JUnit XML keeps markup, quotes and line breaks of names and messages intact", () => {
  const name = `lane <a & b> "q" 'x'`;
  const message = "value 0.5 < limit 0.6\nsecond line\u0001";
  const xml = junitXml([{
    name: "suite & co",
    checks: [
      { name, group: "thresholds", pass: false, message },
      { name: "ok", group: "thresholds", pass: true, message: "fine" },
    ],
  }]);
  assert.equal(XMLValidator.validate(xml), true);
  const doc = new XMLParser({
    ignoreAttributes: false,
    isArray: (n) => n === "testcase",
    htmlEntities: true,
  }).parse(xml);
  const suite = doc.testsuites.testsuite;
  assert.equal(suite["@_name"], "suite & co");
  assert.equal(suite["@_tests"], "2");
  assert.equal(suite["@_failures"], "1");
  const [failed, passed] = suite.testcase;
  assert.equal(failed["@_name"], name);
  assert.equal(failed.failure["#text"], "value 0.5 < limit 0.6\nsecond line");
  assert.equal(passed.failure, undefined);
});

Deno.test("threshold checks name the bound and the limit; annotations escape line breaks", () => {
  const [check] = thresholdChecks([{
    metric: "accuracy",
    lane: "chat",
    op: ">=",
    limit: 0.6,
    bound: "lower",
    value: 0.512345,
    estimate: 0.58,
    pass: false,
  }]);
  assert.equal(check?.name, "accuracy >= 0.6 (lower bound, lane chat)");
  assert.equal(
    check?.message,
    "accuracy in lane chat: lower bound 0.5123 < limit 0.6 (estimate 0.58): failed",
  );
  const [line] = githubAnnotations([{ ...check!, message: "a\nb, 100%" }], "w.ts");
  assert.equal(
    line,
    "::error file=w.ts,title=accuracy >= 0.6 (lower bound%2C lane chat)::a%0Ab, 100%25",
  );
});

Deno.test("a threshold a partial selection could not evaluate is a skipped test case, not a failure", () => {
  const checks = thresholdChecks([{
    metric: "accuracy",
    op: ">=",
    limit: 0.5,
    lane: "chat",
    value: null,
    pass: null,
    not_evaluated: 'no case selected by --limit 3 has lane "chat"',
  }]);
  const xml = junitXml([{ name: "s", checks }]);
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === "testcase" })
    .parse(xml);
  const suite = doc.testsuites.testsuite;
  assert.equal(suite["@_failures"], "0");
  assert.equal(suite["@_skipped"], "1");
  assert.match(suite.testcase[0].skipped["@_message"], /not evaluated/);
  assert.match(githubAnnotations(checks)[0]!, /^::warning /);
});
