/**
 * The view's stylesheet and script, served from `/assets/` (no CDN, nothing loaded from the
 * network). The pages work without the script; it only limits the comparison to two ticked runs
 * and refreshes the progress of running runs.
 *
 * @module
 */

/** `/assets/view.css`. Colours keep a contrast ratio of at least 4.5:1 on their backgrounds. */
export const VIEW_CSS = `
:root { --ink: #1d2430; --muted: #4a5361; --line: #d5dae1; --soft: #f3f5f8; --link: #1a56a8;
  --ok: #17663a; --ok-bg: #e3f3e8; --bad: #a2261a; --bad-bg: #fbe9e7; --warn: #7a4f00;
  --warn-bg: #fff3d9; --focus: #0b57d0; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  margin: 0; background: #fff; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible,
summary:focus-visible, [tabindex]:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: 8px; }
.skip:focus { left: 8px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }
header.top { display: flex; justify-content: space-between; align-items: center; gap: 12px;
  padding: 10px 24px; border-bottom: 1px solid var(--line); background: var(--soft); }
.crumbs { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.crumbs li + li::before { content: "›"; margin-right: 6px; color: var(--muted); }
.brand { color: var(--muted); font-size: 13px; }
main { padding: 16px 24px 32px; max-width: 1400px; }
main:focus { outline: none; }
h1 { font-size: 22px; margin: 4px 0 8px; word-break: break-all; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.sub, .muted { color: var(--muted); }
.foot { color: var(--muted); font-size: 13px; padding: 12px 24px; border-top: 1px solid var(--line); }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--soft); white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.ci { display: block; color: var(--muted); font-size: 12px; }
.scroll { overflow-x: auto; }
.runs td.endpoint { max-width: 220px; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
  font-weight: 600; background: var(--soft); color: var(--ink); white-space: nowrap; }
.badge.correct, .badge.pass, .status-completed { background: var(--ok-bg); color: var(--ok); }
.badge.wrong, .badge.fail, .badge.error, .status-incomplete, .status-interrupted {
  background: var(--bad-bg); color: var(--bad); }
.status-running { background: var(--warn-bg); color: var(--warn); }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.card .label, .card .extra { display: block; color: var(--muted); font-size: 12px; }
.card b { display: block; font-size: 20px; }
.notice { padding: 8px 12px; margin: 10px 0; border-left: 4px solid var(--link); background: var(--soft); }
.notice.warn { border-color: var(--warn); background: var(--warn-bg); }
.notice.error { border-color: var(--bad); background: var(--bad-bg); }
form.filters { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: flex-end; margin: 10px 0; }
form.filters label { display: block; font-size: 13px; color: var(--muted); }
input, select, button { font: inherit; padding: 4px 6px; border: 1px solid #8a94a3; border-radius: 4px;
  background: #fff; color: var(--ink); }
button, .button { background: var(--link); color: #fff; border: 1px solid var(--link);
  border-radius: 4px; padding: 4px 10px; cursor: pointer; text-decoration: none; display: inline-block; }
button:disabled { background: #6b7480; border-color: #6b7480; cursor: not-allowed; }
.button.current { background: var(--ink); border-color: var(--ink); }
.quick { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.compare-bar { margin: 10px 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 16px; }
/* Two tables side by side, each as wide as its columns, the second below when they do not fit. */
.pair { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.pair > .scroll { max-width: 100%; }
figure { margin: 0 0 16px; } figcaption { color: var(--muted); font-size: 13px; }
svg { max-width: 100%; height: auto; }
details.decision { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details.decision > summary { padding: 6px 10px; cursor: pointer; }
details.decision[open] > summary { border-bottom: 1px solid var(--line); background: var(--soft); }
.who { font-weight: 600; } .what { color: var(--muted); }
.open { padding: 8px 12px; }
.split { display: grid; grid-template-columns: minmax(280px, 1fr) 2fr; gap: 16px; align-items: start; }
pre.state { background: var(--soft); padding: 10px; border-radius: 4px; max-height: 420px;
  overflow: auto; font-size: 13px; white-space: pre-wrap; overflow-wrap: anywhere; }
.dist td.picked { font-weight: 700; }
.dist tr.gold-row th { color: var(--ok); }
.tag { font-size: 11px; color: var(--muted); font-weight: 400; }
.bar { display: block; height: 4px; background: var(--soft); margin-top: 2px; }
.bar > span { display: block; height: 4px; background: var(--link); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.pager { display: flex; gap: 16px; margin: 12px 0; }
progress { width: 120px; vertical-align: middle; }
ul.examples { margin: 0; padding-left: 18px; }
code { background: var(--soft); padding: 0 4px; border-radius: 3px; }
`;

/** `/assets/view.js`: runs without it too; it only adds the two behaviours below. */
export const VIEW_JS = `"use strict";
(function () {
  // At most two ticked runs; the compare button says what it will do.
  var form = document.getElementById("compare-form");
  if (form) {
    var button = document.getElementById("compare-button");
    var status = document.getElementById("compare-status");
    var boxes = form.querySelectorAll('input[type="checkbox"][name="run"]');
    var update = function () {
      var ticked = Array.prototype.filter.call(boxes, function (b) { return b.checked; });
      Array.prototype.forEach.call(boxes, function (b) { b.disabled = !b.checked && ticked.length >= 2; });
      button.disabled = ticked.length !== 2;
      status.textContent = ticked.length === 2
        ? "Ready: compare " + ticked[0].value + " (A) with " + ticked[1].value + " (B)."
        : "Tick two runs to compare them (" + ticked.length + " ticked).";
    };
    Array.prototype.forEach.call(boxes, function (b) { b.addEventListener("change", update); });
    update();
  }
  // Live progress of running runs: poll until each one ends, then reload to show its results.
  var live = document.querySelectorAll("[data-progress-run]");
  if (!live.length) return;
  var poll = function () {
    var pending = 0;
    Array.prototype.forEach.call(live, function (el) {
      if (el.getAttribute("data-done") === "1") return;
      pending++;
      var id = el.getAttribute("data-progress-run");
      fetch("/api/runs/" + encodeURIComponent(id) + "/progress", { headers: { accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (p) {
          if (!p) return;
          var count = el.querySelector(".count");
          if (count) count.textContent = p.cases_done + " / " + p.cases + " cases";
          var bar = el.querySelector("progress");
          if (bar) { bar.max = p.cases; bar.value = p.cases_done; }
          if (p.status !== "running") { el.setAttribute("data-done", "1"); window.location.reload(); }
        })
        .catch(function () {});
    });
    if (pending) window.setTimeout(poll, 1000);
  };
  window.setTimeout(poll, 1000);
})();
`;
