// End-to-end: `deno task view` on a run of the user's own question set (a copy of the tickets
// set). The decision page shows the state read from the recorded file, the explorer's text
// search matches state text, and once the file changes both say so, naming the file. The run
// page shows no rating and no card reference lines, names its own dataset in the footer, and
// keeps each threshold's question, lane and bound.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startView } from "../lib/view/mod.ts";
import { ticketsRun } from "./user_set_helpers.ts";
import { benchRun, dom, tableRows } from "./view_helpers.ts";

/** The severity levels of examples/tickets/workflow.yaml. */
const SEVERITY = [
  "None: a question or feedback.",
  "Low: an inconvenience with a workaround.",
  "High: the customer cannot get what they paid for.",
  "Critical: money lost or an account locked out.",
];

Deno.test("the view shows and searches a user set's states, and names its dataset", async (t) => {
  const made = await ticketsRun();
  const typed = await benchRun(join(made.tmp, "runs"), "typed", { limit: 5, db: null });
  const view = await startView({ port: 0, runsDir: join(made.tmp, "runs"), dbPath: "" });
  const get = async (path: string) => {
    const response = await fetch(`${view.url}${path}`);
    return { status: response.status, text: await response.text() };
  };
  const id = made.run.id;
  const first = made.rows[0] as Record<string, string>;
  try {
    await t.step("the decision page shows the state from the recorded file", async () => {
      const page = await get(`/runs/${id}/decisions/${first.ticket_id}/topic`);
      assert.equal(page.status, 200);
      const doc = dom(page.text);
      const state = JSON.parse(doc.querySelector("pre.state")?.textContent ?? "null");
      assert.deepEqual(state, { tier: first.tier, subject: first.subject, message: first.message });
      assert.match(page.text, /Which team should handle this support ticket\?/);
      const api = JSON.parse(
        (await get(`/api/runs/${id}/decisions/${first.ticket_id}/topic`)).text,
      );
      assert.deepEqual(api.state, state);
    });

    await t.step("the explorer's text search matches the states' text", async () => {
      const needle = "Refund";
      const expected = made.rows.filter((row) =>
        JSON.stringify({ tier: row.tier, subject: row.subject, message: row.message })
          .toLowerCase().includes(needle.toLowerCase())
      ).map((row) => row.ticket_id as string);
      assert.ok(expected.length > 0 && expected.length < made.rows.length);
      const answer = JSON.parse(
        (await get(`/api/runs/${id}/decisions?q=${needle}&per_page=200`)).text,
      );
      assert.equal(answer.total, expected.length * 3);
      assert.deepEqual(answer.notes, []);
      const cases = new Set(answer.decisions.map((d: { case: string }) => d.case));
      assert.deepEqual([...cases].sort(), [...expected].sort());
    });

    await t.step("every page of the run names the file in its footer", async () => {
      const decision = made.rows[0]!.ticket_id as string;
      for (
        const path of [
          `/runs/${id}/classes`,
          `/runs/${id}/decisions`,
          `/runs/${id}/decisions/${decision}/urgent`,
        ]
      ) {
        const footer = dom((await get(path)).text).querySelector("footer")?.textContent ?? "";
        assert.match(footer, /tickets\.csv/, path);
        assert.doesNotMatch(footer, /Typed Decisions/, path);
      }
    });

    await t.step("the explorer names a decision's group a lane", async () => {
      const doc = dom((await get(`/runs/${id}/decisions`)).text);
      const terms = [...doc.querySelectorAll("details.decision dt")].map((e) => e.textContent);
      assert.ok(terms.includes("lane"), terms.join(","));
      assert.ok(!terms.includes("workflow"), terms.join(","));
    });

    await t.step(
      "the explorer's filters say lane, and a question asked in every lane names none",
      async () => {
        const lanes = new Set(made.rows.map((r) => r.channel)).size;
        assert.ok(lanes > 1);
        for (const path of [`/runs/${id}`, `/runs/${id}/decisions`]) {
          const doc = dom((await get(path)).text);
          assert.equal(doc.querySelector('label[for="workflow"]')?.textContent, "Lane", path);
          const options = [...doc.querySelectorAll("select#question option")].slice(1).map((o) =>
            o.textContent
          );
          assert.deepEqual(options, [
            `topic (choice, ${lanes} lanes)`,
            `urgent (noul, ${lanes} lanes)`,
            `severity (score, ${lanes} lanes)`,
          ], path);
        }
        // Typed Decisions: each question belongs to one workflow, named beside it.
        const doc = dom((await get(`/runs/${typed.run.id}/decisions`)).text);
        assert.equal(doc.querySelector('label[for="workflow"]')?.textContent, "Workflow (lane)");
        const options = [...doc.querySelectorAll("select#question option")].slice(1).map((o) =>
          o.textContent ?? ""
        );
        assert.ok(
          options.length > 0 &&
            options.every((o) => /^\S+ \((\S+, \w+|\w+, \d+ workflows)\)$/.test(o)),
          options.join(),
        );
      },
    );

    await t.step("the run page names the file, shows no rating and no card lines", async () => {
      const page = await get(`/runs/${id}`);
      const doc = dom(page.text);
      const footer = doc.querySelector("footer")?.textContent ?? "";
      assert.match(footer, /tickets\.csv/);
      assert.ok(footer.includes(made.run.spec.revision.slice(0, 12)), footer);
      assert.doesNotMatch(footer, /Typed Decisions/);
      assert.doesNotMatch(page.text, /★|☆/);
      assert.doesNotMatch(page.text, /<span class="label">rating<\/span>/);
      assert.doesNotMatch(page.text, />prior<|>teacher</);
      const rows = tableRows(doc, "thresholds").map((r) => r[0]);
      assert.deepEqual(rows, [
        "accuracy (question urgent, lower bound)",
        "accuracy (lane chat, lower bound)",
      ]);
      assert.ok(doc.querySelector("table#by-workflow caption")?.textContent?.includes("By lane"));
      // The measures' descriptions say lane, as the tables do, never Typed Decisions' workflow.
      assert.doesNotMatch(page.text, /workflow\/question/);
      const md = await Deno.readTextFile(join(made.dir, "report.md"));
      const html = await Deno.readTextFile(join(made.dir, "report.html"));
      assert.doesNotMatch(md, /workflow\/question/);
      assert.doesNotMatch(html, /workflow\/question/);
    });

    await t.step("the runs list has a dataset column and filter", async () => {
      const label = `tickets.csv (${made.run.spec.revision.slice(0, 8)})`;
      const all = dom((await get("/")).text);
      const shown = new Map(
        [...all.querySelectorAll("tr[data-run]")].map((r) => [
          r.getAttribute("data-run"),
          r.querySelector("td.dataset")?.textContent?.trim(),
        ]),
      );
      assert.deepEqual(shown, new Map([[id, label], [typed.run.id, "Typed Decisions"]]));
      // The decisions column shows the labelled count (what accuracy is over) when some are not.
      const counts = new Map(
        [...all.querySelectorAll("tr[data-run]")].map((r) => {
          const cell = r.querySelector("td.decisions")?.textContent ?? "";
          const note = r.querySelector("td.decisions .ci")?.textContent ?? "";
          return [
            r.getAttribute("data-run"),
            `${cell.slice(0, cell.length - note.length)}|${note}`,
          ];
        }),
      );
      const summary = made.run.summary!;
      assert.ok(summary.labelled! < summary.decisions, "the copy has unlabelled rows");
      assert.deepEqual(
        counts,
        new Map([
          [id, `${summary.decisions}|${summary.labelled} labelled`],
          [typed.run.id, `${typed.run.summary!.decisions}|`],
        ]),
      );
      const options = [...all.querySelectorAll("select#dataset option")].map((o) =>
        o.getAttribute("value")
      );
      assert.deepEqual(options, ["", "Typed Decisions", label]);
      assert.equal(
        all.querySelector("footer")?.textContent?.replace(/\s+/g, " ").trim(),
        `Local, read-only view of decibench runs. Datasets: Typed Decisions (LocalLLaMA/typed-decisions, Apache-2.0); ${label}.`,
      );
      const filtered = dom((await get(`/?dataset=${encodeURIComponent(label)}`)).text);
      assert.deepEqual(
        [...filtered.querySelectorAll("tr[data-run]")].map((r) => r.getAttribute("data-run")),
        [id],
      );
      const api = JSON.parse((await get("/api/runs?dataset=Typed%20Decisions")).text);
      assert.deepEqual(api.runs.map((r: { id: string; dataset: string }) => [r.id, r.dataset]), [
        [typed.run.id, "Typed Decisions"],
      ]);
    });

    await t.step("a score question shows each level's text beside its index", async () => {
      const gold = `${first.severity} — ${SEVERITY[Number(first.severity)]}`;
      const page = await get(`/runs/${id}/decisions/${first.ticket_id}/severity`);
      const doc = dom(page.text);
      const facts = [...doc.querySelectorAll("dl.facts dd")].map((d) => d.textContent ?? "");
      const terms = [...doc.querySelectorAll("dl.facts dt")].map((d) => d.textContent ?? "");
      assert.equal(terms[0], "lane");
      assert.ok(facts.includes(gold), facts.join(" | "));
      assert.ok(facts.includes(`0 — ${SEVERITY[0]}`), facts.join(" | "));
      const explorer = await get(`/runs/${id}/decisions?question=severity&per_page=5`);
      const what = dom(explorer.text).querySelector("details.decision .what")?.textContent ?? "";
      assert.match(what, /^answer 0 — None: a question or feedback\. at 0\.250, gold \d — /);
      const md = await Deno.readTextFile(join(made.dir, "report.md"));
      assert.ok(
        md.includes(`severity (score) ✗ pred 0 — ${SEVERITY[0]} gold ${gold}`) ||
          md.includes(`severity (score) ✓ pred 0 — ${SEVERITY[0]} gold ${gold}`),
        "the trace shows the levels' text",
      );
      assert.match(md, /\n## By lane\n/);
      assert.doesNotMatch(md, /\n## By workflow\n/);
    });

    await t.step("report.html shows no rating or card lines and names the file", async () => {
      const doc = dom(await Deno.readTextFile(join(made.dir, "report.html")));
      const cards = [...doc.querySelectorAll(".card span")].map((s) => s.textContent ?? "");
      assert.ok(cards.includes("accuracy"), cards.join(" | "));
      assert.ok(!cards.includes("rating"), cards.join(" | "));
      const text = doc.querySelector("body")?.textContent ?? "";
      assert.doesNotMatch(text, /★|teacher self-agreement|prior 47\.0%/);
      assert.match(text, /By lane/);
      assert.ok(
        text.includes(`tickets.csv (120 rows, sha256 ${made.run.spec.revision.slice(0, 12)})`),
        "the Data section names the file",
      );
      const svg = [...doc.querySelectorAll("svg text")].map((s) => s.textContent ?? "");
      assert.ok(!svg.includes("prior") && !svg.includes("teacher"), "no card reference lines");
    });

    await t.step("the terminal's protocol note is wrapped into short lines", () => {
      const start = made.stdout.findIndex((l) => l.startsWith("protocol    "));
      assert.ok(start >= 0, made.stdout.join("\n"));
      let end = start + 1;
      while (made.stdout[end]?.startsWith(" ".repeat(12))) end++;
      const block = made.stdout.slice(start, end);
      assert.ok(block.length >= 3, block.join("\n"));
      for (const line of block) assert.ok(line.length <= 100, `${line.length}: ${line}`);
      const text = block.map((l) => l.slice(12)).join(" ");
      assert.match(
        text,
        /^Your question set .*tickets\.csv \(csv, 120 rows, sha256 [0-9a-f]{12}\)/,
      );
      assert.match(text, /not scored \(unlabelled: topic \d+, urgent \d+, severity \d+\)\.$/);
    });

    await t.step("a changed file is named, and its states are not shown", async () => {
      await Deno.writeTextFile(made.file, "\n", { append: true });
      const page = await get(`/runs/${id}/decisions/${first.ticket_id}/topic`);
      const doc = dom(page.text);
      assert.equal(doc.querySelector("pre.state"), null);
      const note = doc.querySelector("[data-state-missing]")?.textContent ?? "";
      assert.ok(note.includes(made.file), note);
      assert.match(note, /changed since the run/);
      const answer = JSON.parse((await get(`/api/runs/${id}/decisions?q=refund`)).text);
      assert.equal(answer.total, 0);
      assert.match(answer.notes.join(" "), /changed since the run.*matched against case ids only/);
    });
  } finally {
    await view.close();
    await Deno.remove(made.tmp, { recursive: true });
  }
});
