import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { escapeHtml, htmlReport } from "./html.ts";
import { buildReport } from "./model.ts";

const info = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  license: "Apache-2.0",
  url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
  split: "test",
};

Deno.test("`htmlReport()` inlines its charts as SVG, escapes run text and loads nothing", () => {
  const records = [
    record({ case: "c1", question: "q1" }),
    record({ case: "c<2>", question: "q1", type: "choice", correct: false, confidence: 0.95 }),
    errored({ case: "c3", question: "q1", workflow: "security_incidents" }),
  ];
  const html = htmlReport(
    buildReport(runJson(records, { fatal: "Cannot reach <server>" }), records, info as never),
  );
  assert.ok(html.startsWith("<!doctype html>"));
  assert.ok((html.match(/<svg\b/g) ?? []).length >= 4);
  assert.ok(html.includes("c&lt;2&gt;"));
  assert.ok(!html.includes("c<2>"));
  assert.ok(html.includes("Stopped early: Cannot reach &lt;server&gt;"));
  assert.doesNotMatch(html, /<script|<link|\bsrc=/i);
  assert.match(html, /<h2>Errors by kind<\/h2>/);
});

Deno.test("`escapeHtml()` escapes the five HTML-special characters", () => {
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
  );
});
