// `deno task bench --policy`: a policy chosen (`deno task policy`) on a labelled run of
// examples/tickets against the synthetic predictor at T = 0.5, applied to fresh runs — of the
// same model (it holds) and of a worse one (it no longer holds, exit 1) — and shown in the
// terminal report, report.md, report.html, run.json, report.json, the view's run page and the
// JUnit XML. Real subprocesses, the embedded reference server, files in a temp dir.
import assert from "node:assert/strict";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { startView } from "../lib/view/mod.ts";
import { events, ROOT, runScript } from "./bench_cli_helpers.ts";

const TICKETS = join(ROOT, "examples/tickets/tickets.csv");

/** The tickets workflow against the embedded synthetic predictor. */
function workflow(
  reference: { skill: number; temperature: number; seed: number },
  urgent = "This ticket needs a reply today.",
): string {
  return JSON.stringify({
    name: "tickets",
    endpoint: {
      baseUrl: "http://127.0.0.1:9",
      reference: { predictor: "synthetic", ...reference },
    },
    dataset: {
      path: TICKETS,
      id: "ticket_id",
      state: ["tier", "subject", "message"],
      lane: "channel",
    },
    questions: {
      topic: {
        type: "choice",
        instructions: "Which team should handle this support ticket?",
        criteria: ["billing", "shipping", "returns", "account", "other"],
        gold: "topic",
      },
      urgent: { type: "noul", instructions: urgent, gold: "urgent" },
    },
  });
}

interface Lane {
  lane: string;
  certified: boolean;
  threshold: number | null;
  verdicts: { pass: number; fail: number; answer: number; escalate: number; undecided: number };
  labelled: number;
  events: number;
  trials: number;
  rate: number | null;
  lower95: number | null;
  upper95: number | null;
  holds: boolean | null;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("bench --policy applies a decision policy to a run's answers, records and shows it per lane, and exits 1 where it no longer holds", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-bench-policy-" });
  const write = async (name: string, text: string) => {
    await Deno.writeTextFile(join(dir, name), text);
    return join(dir, name);
  };
  const source = await write("source.json", workflow({ skill: 1, temperature: 0.5, seed: 1 }));
  const fresh = await write("fresh.json", workflow({ skill: 1, temperature: 0.5, seed: 2 }));
  // No skill and over-confident: its P(yes) is high for many tickets that need no reply today.
  const worse = await write("worse.json", workflow({ skill: 0, temperature: 0.1, seed: 3 }));
  const other = await write(
    "other.json",
    workflow({ skill: 1, temperature: 0.5, seed: 2 }, "This ticket is about a refund."),
  );
  const bench = await runScript("bench.ts", [
    source,
    "--out",
    join(dir, "source"),
    "--no-db",
    "--json",
  ]);
  assert.equal(bench.code, 0, bench.stderr);
  const policyFile = join(dir, "urgent.policy.json");
  const chosen = await runScript("policy.ts", [
    join(dir, "source"),
    "--question",
    "urgent",
    "--out",
    policyFile,
  ]);
  assert.equal(chosen.code, 0, chosen.stderr);
  const policy = JSON.parse(await Deno.readTextFile(policyFile));
  const certified = Object.keys(policy.lanes).filter((l) => policy.lanes[l].certified);
  const uncertified = Object.keys(policy.lanes).filter((l) => !policy.lanes[l].certified);
  assert.ok(certified.length >= 2, JSON.stringify(policy.lanes));

  await t.step(
    "the same model: recorded in run.json and report.json, shown in every report and the view, one JUnit test case per lane",
    async () => {
      const out = join(dir, "fresh");
      const db = join(dir, "runs.db");
      const junit = join(dir, "fresh.xml");
      const run = await runScript("bench.ts", [
        fresh,
        "--out",
        out,
        "--db",
        db,
        "--sample",
        "900",
        "--policy",
        policyFile,
        "--junit",
        junit,
      ]);
      assert.equal(run.code, 0, run.stderr);
      const record = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      const p = record.policy;
      assert.equal(p.file, policyFile);
      assert.match(p.sha256, /^[0-9a-f]{64}$/);
      assert.equal(p.question, "urgent");
      assert.equal(p.objective, "false-pass");
      assert.equal(p.alpha, 0.05);
      assert.equal(p.delta, 0.05);
      assert.equal(p.calibration, "temperature");
      assert.equal(p.source.run, policy.source.run);
      const lanes = p.lanes as Lane[];
      assert.deepEqual(lanes.map((l) => l.lane), ["chat", "email", "phone", "web"]);
      // Every urgent decision of the 900 cases has one verdict.
      const verdicts = lanes.reduce(
        (n, l) => n + Object.values(l.verdicts).reduce((a, b) => a + b, 0),
        0,
      );
      assert.equal(verdicts, 900);
      for (const l of lanes) {
        if (l.certified) {
          assert.equal(l.threshold, policy.lanes[l.lane].threshold);
          assert.equal(l.verdicts.escalate, 0);
          assert.ok(l.trials > 50 && l.rate !== null && l.lower95 !== null && l.upper95 !== null);
          assert.ok(l.lower95 <= l.rate && l.rate <= l.upper95);
          assert.equal(l.holds, true, JSON.stringify(l));
        } else {
          assert.equal(l.threshold, null);
          assert.equal(l.verdicts.pass + l.verdicts.fail, 0);
          assert.ok(l.verdicts.escalate > 0);
          assert.equal(l.holds, null);
        }
      }
      // The report model carries it; every report renders it.
      const model = JSON.parse(await Deno.readTextFile(join(out, "report.json")));
      assert.deepEqual(model.run.policy, p);
      const chat = lanes.find((l) => l.lane === "chat") as Lane;
      const chatRate = `${
        ((chat.rate as number) * 100).toFixed(1)
      }% (${chat.events}/${chat.trials})`;
      const terminal = run.lines.join("\n");
      assert.match(terminal, /^policy {6}.*urgent\.policy\.json/m);
      assert.ok(terminal.includes(chatRate), terminal);
      // The sentence is wrapped at 100 columns: compare with the spaces collapsed.
      assert.ok(
        terminal.replace(/\s+/g, " ").includes(`chosen on run ${policy.source.run}`),
        terminal,
      );
      const md = await Deno.readTextFile(join(out, "report.md"));
      assert.match(md, /## Policy/);
      assert.ok(
        md.includes(
          `| chat | ${chat.threshold} | ${chat.verdicts.pass} | ${chat.verdicts.fail} | 0 | 0 | ${chatRate} |`,
        ),
        md,
      );
      for (const lane of uncertified) {
        assert.match(md, new RegExp(`\\| ${lane} \\| escalate \\|.*not checked: not certified`));
      }
      const html = await Deno.readTextFile(join(out, "report.html"));
      assert.match(html, /<h2>Policy<\/h2>/);
      assert.match(
        html,
        new RegExp(
          `<tr><td>chat</td><td(?: class="n")?>${chat.threshold}</td>.*<td>holds</td></tr>`,
        ),
      );
      // The view's run page.
      const view = await startView({ port: 0, dbPath: db, runsDir: dir });
      try {
        const page = await (await fetch(`${view.url}/runs/${record.id}`)).text();
        assert.match(page, /<h2 id="policy-h">Policy<\/h2>/);
        const row = page.slice(page.indexOf('<th scope="row">chat</th>'));
        assert.ok(row.includes(`<td class="n">${chatRate}</td>`), "view chat row");
        assert.match(row, /^[^]*?<span class="badge pass">holds<\/span>/);
      } finally {
        await view.close();
      }
      // JUnit: one policy test case per lane, the uncertified ones skipped with the reason.
      const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
        await Deno.readTextFile(junit),
      );
      const cases = [xml.testsuites.testsuite.testcase].flat() as Record<string, unknown>[];
      const policyCases = cases.filter((c) => c.classname === "policy.lanes");
      assert.deepEqual(
        policyCases.map((c) => c.name),
        lanes.map((l) => `policy urgent lane ${l.lane}`),
      );
      for (const c of policyCases) {
        const lane = String(c.name).replace("policy urgent lane ", "");
        if (certified.includes(lane)) assert.equal(c.skipped ?? c.failure, undefined);
        else {
          assert.match(String((c.skipped as { message: string }).message), /not certified/);
        }
      }
      assert.equal(xml.testsuites.failures, "0");
    },
  );

  await t.step(
    "a worse model: the policy no longer holds on its certified lanes, exit 1, failed JUnit test cases",
    async () => {
      const out = join(dir, "worse");
      const junit = join(dir, "worse.xml");
      const run = await runScript("bench.ts", [
        worse,
        "--out",
        out,
        "--no-db",
        "--sample",
        "600",
        "--policy",
        policyFile,
        "--junit",
        junit,
        "--json",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const event = events(run.lines).find((e) => e.event === "policy");
      const record = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      assert.equal(record.status, "completed");
      assert.deepEqual(event?.policy, record.policy);
      const broken = (record.policy.lanes as Lane[]).filter((l) => l.holds === false);
      assert.deepEqual(broken.map((l) => l.lane), certified);
      assert.deepEqual(event?.broken, certified);
      for (const l of broken) {
        assert.ok((l.lower95 as number) > 0.05, JSON.stringify(l));
        assert.match(run.stderr, new RegExp(`the policy no longer holds on lane ${l.lane}:`));
      }
      const md = await Deno.readTextFile(join(out, "report.md"));
      assert.match(md, /\| no longer holds \|/);
      const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
        await Deno.readTextFile(junit),
      );
      const failed = ([xml.testsuites.testsuite.testcase].flat() as Record<string, unknown>[])
        .filter((c) => c.failure !== undefined);
      assert.deepEqual(failed.map((c) => c.name), certified.map((l) => `policy urgent lane ${l}`));
      assert.match(
        String((failed[0]?.failure as { message: string }).message),
        /one-sided 95% bounds \[0\.\d+, 0\.\d+\] against α 0\.05: no longer holds/,
      );
    },
  );

  await t.step(
    "a resumed run applies the policy it recorded to its kept and its new answers",
    async () => {
      // A server failing 10% of requests (no retry) leaves the run incomplete; resuming finishes it.
      const faulty = JSON.parse(workflow({ skill: 1, temperature: 0.5, seed: 2 }));
      faulty.endpoint.retries = 0;
      faulty.endpoint.reference.faults = "http500=0.1";
      const file = await write("faulty.json", JSON.stringify(faulty));
      const out = join(dir, "faulty");
      const first = await runScript("bench.ts", [
        file,
        "--out",
        out,
        "--no-db",
        "--sample",
        "200",
        "--policy",
        policyFile,
      ]);
      assert.equal(first.code, 1, first.stderr);
      const before = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      const undecided = (lanes: Lane[]) => lanes.reduce((n, l) => n + l.verdicts.undecided, 0);
      const urgentErrors = async () =>
        (await Deno.readTextFile(join(out, "decisions.jsonl"))).trim().split("\n").map((l) =>
          JSON.parse(l)
        ).filter((d) => d.question === "urgent" && d.error !== null).length;
      assert.ok(undecided(before.policy.lanes) > 0, "errored answers are undecided");
      assert.equal(undecided(before.policy.lanes), await urgentErrors());
      const resumed = await runScript("bench.ts", ["--resume", out, "--no-db"]);
      assert.notEqual(resumed.code, 2, resumed.stderr);
      const after = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      assert.equal(after.policy.file, policyFile);
      assert.equal(after.policy.sha256, before.policy.sha256);
      const total = (after.policy.lanes as Lane[]).reduce(
        (n, l) => n + Object.values(l.verdicts).reduce((a, b) => a + b, 0),
        0,
      );
      assert.equal(total, 200, "every case once: the kept ones and the ones asked again");
      assert.ok(undecided(after.policy.lanes) < undecided(before.policy.lanes));
    },
  );

  await t.step(
    "a policy for another question set is refused before any request, exit 2",
    async () => {
      // The same set without the question.
      const topicOnly = JSON.parse(workflow({ skill: 1, temperature: 0.5, seed: 2 }));
      delete topicOnly.questions.urgent;
      const noUrgent = await write("no-urgent.json", JSON.stringify(topicOnly));
      const refusals: [string, RegExp][] = [
        [other, /question "urgent" is defined differently here/],
        [
          noUrgent,
          /decides question "urgent", which workflow "tickets" does not ask \(questions: topic\)/,
        ],
      ];
      for (const [file, pattern] of refusals) {
        const out = join(dir, `refused-${file.length}`);
        const run = await runScript("bench.ts", [
          file,
          "--out",
          out,
          "--no-db",
          "--policy",
          policyFile,
        ]);
        assert.equal(run.code, 2, run.stderr);
        assert.match(run.stderr, pattern);
        assert.equal(run.stderr.trim().split("\n").filter((l) => l.includes("Cannot")).length, 1);
        // Nothing ran: no run directory.
        assert.equal(await exists(out), false);
      }
      const missing = await runScript("bench.ts", [
        fresh,
        "--no-db",
        "--policy",
        join(dir, "nope.json"),
      ]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /Cannot read policy ".*nope\.json": file not found/);
    },
  );

  await Deno.remove(dir, { recursive: true });
});
