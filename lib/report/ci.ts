/**
 * Reports for CI systems: JUnit XML (one test case per check, the figures in a failure's
 * message) and GitHub Actions workflow commands (`::error` / `::notice` annotations, and the
 * Markdown summary appended to `$GITHUB_STEP_SUMMARY`). The writers take plain checks, so the
 * thresholds of a run, the lanes of a gate or the rules of a policy all render the same way.
 *
 * @module
 */
import { metricByName } from "../metrics/mod.ts";
import type { RunPolicy, ThresholdResult } from "../record/mod.ts";
import { policyLaneVerdict, policyRateName } from "./policy.ts";

/** One check, as a JUnit test case and a GitHub annotation. */
export interface CiCheck {
  /** The test case's name, e.g. `accuracy >= 0.6 (lane billing)`. */
  name: string;
  /** The group it belongs to (JUnit `classname`), e.g. `thresholds` or `gate.lanes`. */
  group: string;
  /** Whether it passed; null when it was not evaluated (a JUnit `skipped` test case). */
  pass: boolean | null;
  /** One line with the value, bound and limit: the failure's message (and the notice's text). */
  message: string;
}

/** A suite of checks: one JUnit `testsuite`. */
export interface CiSuite {
  /** Suite name, e.g. `decibench bench reference`. */
  name: string;
  /** The checks, in order. */
  checks: readonly CiCheck[];
}

/** Characters XML 1.0 cannot hold at all (most C0 controls): dropped. */
// deno-lint-ignore no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Text escaped for an XML attribute value or element content. */
function xmlText(text: string): string {
  return text.replace(INVALID_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;").replace(/\n/g, "&#10;");
}

/**
 * JUnit XML for suites of checks: a `testsuites` root, one `testsuite` per suite with its test
 * and failure counts, one `testcase` per check, and a `failure` (its message the check's
 * message) for each check that did not pass.
 *
 * @param suites The suites.
 * @returns The XML document.
 * @example
 * ```ts
 * import { junitXml } from "./ci.ts";
 * const xml = junitXml([{ name: "bench", checks: [
 *   { name: "accuracy >= 0.6", group: "thresholds", pass: false, message: "accuracy 0.5 < 0.6" },
 * ] }]);
 * if (!xml.includes('failures="1"')) throw new Error("one failure");
 * ```
 */
export function junitXml(suites: readonly CiSuite[]): string {
  const tests = suites.reduce((n, s) => n + s.checks.length, 0);
  const failures = suites.reduce((n, s) => n + s.checks.filter((c) => c.pass === false).length, 0);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="decibench" tests="${tests}" failures="${failures}" errors="0">`,
  ];
  for (const suite of suites) {
    const failed = suite.checks.filter((c) => c.pass === false).length;
    const skipped = suite.checks.filter((c) => c.pass === null).length;
    lines.push(
      `  <testsuite name="${
        xmlText(suite.name)
      }" tests="${suite.checks.length}" failures="${failed}" errors="0" skipped="${skipped}">`,
    );
    for (const check of suite.checks) {
      const head = `    <testcase classname="${xmlText(check.group)}" name="${
        xmlText(check.name)
      }"`;
      if (check.pass === true) {
        lines.push(`${head}/>`);
      } else if (check.pass === null) {
        lines.push(`${head}>`);
        lines.push(`      <skipped message="${xmlText(check.message)}"/>`);
        lines.push(`    </testcase>`);
      } else {
        lines.push(`${head}>`);
        lines.push(
          `      <failure message="${xmlText(check.message)}" type="${xmlText(check.group)}">${
            xmlText(check.message)
          }</failure>`,
        );
        lines.push(`    </testcase>`);
      }
    }
    lines.push(`  </testsuite>`);
  }
  lines.push(`</testsuites>`, "");
  return lines.join("\n");
}

/** A number as a short text: up to four decimals, n/a for null. */
function figure(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "n/a";
  return String(Math.round(value * 10_000) / 10_000);
}

/**
 * A threshold's name: its metric, comparison and limit, and the lane and question it names.
 *
 * @param t The threshold result.
 * @returns E.g. `accuracy >= 0.6 (lower bound, lane billing, question urgent)`.
 */
export function thresholdCheckName(t: ThresholdResult): string {
  const scope = [
    ...(t.baseline !== undefined ? [`against ${t.baseline}, margin ${figure(t.margin)}`] : []),
    ...(t.baseline === undefined && t.bound !== undefined && t.bound !== "estimate"
      ? [`${t.bound} bound`]
      : []),
    ...(t.lane !== undefined ? [`lane ${t.lane}`] : []),
    ...(t.question !== undefined ? [`question ${t.question}`] : []),
  ];
  const head = t.baseline !== undefined
    ? `${t.metric} no worse than the baseline`
    : `${t.metric} ${t.op} ${figure(t.limit)}`;
  return scope.length ? `${head} (${scope.join(", ")})` : head;
}

/**
 * A threshold's result in one line: the value compared, the bound it is and the limit, and the
 * interval against a baseline.
 *
 * @param t The threshold result.
 * @returns E.g. `accuracy: lower bound 0.5812 < limit 0.6 (estimate 0.6125): failed`.
 */
export function thresholdMessage(t: ThresholdResult): string {
  if (t.pass === null) {
    return `${t.metric}${t.lane !== undefined ? ` in lane ${t.lane}` : ""}${
      t.question !== undefined ? ` on question ${t.question}` : ""
    }: not evaluated (${t.not_evaluated ?? "no case selected"})`;
  }
  const verdict = t.pass ? "passed" : "failed";
  if (t.baseline !== undefined) {
    const interval = t.interval
      ? `[${figure(t.interval[0])}, ${figure(t.interval[1])}]`
      : "n/a (no shared decision)";
    const lowerIsBetter = metricByName(t.metric)?.higherIsBetter === false;
    const scope = `${t.lane !== undefined ? ` in lane ${t.lane}` : ""}${
      t.question !== undefined ? ` on question ${t.question}` : ""
    }`;
    return `${t.metric}${scope} against baseline ${t.baseline} (${
      lowerIsBetter ? "baseline − this run: lower is better" : "this run − baseline"
    }): ${figure(t.estimate)}, 95% paired interval ${interval}; lower end ${figure(t.value)} ${
      t.pass ? ">=" : "<"
    } ${figure(t.limit)} (margin ${figure(t.margin)}): ${verdict}`;
  }
  const bound = t.bound === "lower" || t.bound === "upper" ? `${t.bound} bound` : "estimate";
  const ok = t.value !== null && t.pass;
  const op = ok ? t.op : negate(t.op);
  const estimate = t.bound === "lower" || t.bound === "upper"
    ? ` (estimate ${figure(t.estimate)})`
    : "";
  return `${t.metric}${t.lane !== undefined ? ` in lane ${t.lane}` : ""}${
    t.question !== undefined ? ` on question ${t.question}` : ""
  }: ${bound} ${figure(t.value)} ${t.value === null ? "(n/a)" : op} limit ${
    figure(t.limit)
  }${estimate}: ${verdict}`;
}

function negate(op: string): string {
  return ({ ">=": "<", ">": "<=", "<=": ">", "<": ">=" } as Record<string, string>)[op] ?? op;
}

/**
 * A run's thresholds as checks.
 *
 * @param thresholds The run's threshold results.
 * @returns One check per threshold, in order.
 */
export function thresholdChecks(thresholds: readonly ThresholdResult[]): CiCheck[] {
  return thresholds.map((t) => ({
    name: thresholdCheckName(t),
    group: t.baseline !== undefined ? "thresholds.baseline" : "thresholds",
    pass: t.pass,
    message: thresholdMessage(t),
  }));
}

/**
 * A decision policy's lanes as checks (`bench --policy`, `gate --policy`): passed where the
 * policy still holds, failed where it no longer holds, skipped (with the reason) where it was not
 * checked — no labelled case, an uncertified lane, or the cost objective.
 *
 * @param policy The policy section (`run.json`'s `policy`, or the gate's).
 * @returns One check per lane, sorted by lane.
 * @example
 * ```ts ignore
 * import { policyChecks } from "./ci.ts";
 * policyChecks(run.policy).filter((c) => c.pass === false); // lanes where it no longer holds
 * ```
 */
export function policyChecks(policy: RunPolicy): CiCheck[] {
  return policy.lanes.map((l) => {
    const verdicts = policy.type === "noul"
      ? `${l.verdicts.pass} pass, ${l.verdicts.fail} fail`
      : `${l.verdicts.answer} answered`;
    const rate = l.rate === null
      ? ""
      : `; ${policyRateName(policy)} ${
        figure(l.rate)
      } (${l.events}/${l.trials}), one-sided 95% bounds [${figure(l.lower95)}, ${
        figure(l.upper95)
      }] against α ${figure(policy.alpha)}`;
    return {
      name: `policy ${policy.question} lane ${l.lane}`,
      group: "policy.lanes",
      pass: l.holds,
      message: `lane ${l.lane} under policy ${policy.file} (${policy.objective}, bar ${
        l.threshold === null ? "none" : figure(l.threshold)
      }): ${verdicts}, ${l.verdicts.escalate} escalate, ${l.verdicts.undecided} undecided${rate}: ${
        policyLaneVerdict(policy, l)
      }`,
    };
  });
}

/** Escapes a GitHub workflow command's message (`%`, CR, LF). */
function commandData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a GitHub workflow command's property value. */
function commandProperty(text: string): string {
  return commandData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * GitHub Actions annotations for checks: `::error` for each failed one, `::notice` for each
 * passed one, titled with the check's name.
 *
 * @param checks The checks.
 * @param file The file the annotations point at (the workflow file), when known.
 * @returns One workflow command per line.
 * @example
 * ```ts
 * import { githubAnnotations } from "./ci.ts";
 * const [line] = githubAnnotations([{ name: "a", group: "g", pass: false, message: "x < 1" }]);
 * if (line !== "::error title=a::x < 1") throw new Error(line);
 * ```
 */
export function githubAnnotations(checks: readonly CiCheck[], file?: string): string[] {
  return checks.map((c) => {
    const props = [
      ...(file !== undefined ? [`file=${commandProperty(file)}`] : []),
      `title=${commandProperty(c.name)}`,
    ];
    const level = c.pass === false ? "error" : c.pass === null ? "warning" : "notice";
    return `::${level} ${props.join(",")}::${commandData(c.message)}`;
  });
}

/**
 * A Markdown summary of checks for `$GITHUB_STEP_SUMMARY`: a heading, lines of context, and a
 * table with one row per check.
 *
 * @param title The heading.
 * @param lines Lines under it (the run, its status, headline figures).
 * @param checks The checks.
 * @returns Markdown text ending in a blank line.
 */
export function ciSummaryMarkdown(
  title: string,
  lines: readonly string[],
  checks: readonly CiCheck[],
): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const out = [`### ${cell(title)}`, "", ...lines.map((l) => `${l}  `), ""];
  if (checks.length) {
    out.push("| | check | result |", "|---|---|---|");
    for (const c of checks) {
      const mark = c.pass === true ? "✅" : c.pass === null ? "➖" : "❌";
      out.push(`| ${mark} | ${cell(c.name)} | ${cell(c.message)} |`);
    }
    out.push("");
  }
  return out.join("\n") + "\n";
}

/** Options for {@linkcode writeCiReports}. */
export interface WriteCiReportsOptions {
  /** Write JUnit XML to this file. @default undefined (none) */
  junit?: string | undefined;
  /** Print annotations to stdout and append the summary to `$GITHUB_STEP_SUMMARY`. @default false */
  github?: boolean | undefined;
  /** The summary's heading. @default the first suite's name */
  title?: string | undefined;
  /** Lines under the summary's heading. @default [] */
  lines?: readonly string[] | undefined;
  /** The file annotations point at. @default undefined */
  file?: string | undefined;
  /** Reads environment variables (`GITHUB_STEP_SUMMARY`). @default Deno.env.get */
  env?: ((name: string) => string | undefined) | undefined;
  /** Where annotation lines go. @default console.log */
  print?: ((line: string) => void) | undefined;
}

/**
 * Writes the CI reports asked for: the JUnit file, and with `github` the annotations and the
 * step summary (appended to the file `$GITHUB_STEP_SUMMARY` names, when it is set).
 *
 * @param suites The checks.
 * @param options Where to write.
 * @returns The summary file appended to, or null.
 * @throws {Deno.errors.NotFound} When the JUnit file's folder does not exist (and other
 *   file-system errors).
 */
export async function writeCiReports(
  suites: readonly CiSuite[],
  options: WriteCiReportsOptions,
): Promise<string | null> {
  if (options.junit !== undefined) await Deno.writeTextFile(options.junit, junitXml(suites));
  if (options.github !== true) return null;
  const checks = suites.flatMap((s) => s.checks);
  const print = options.print ?? ((line: string) => console.log(line));
  for (const line of githubAnnotations(checks, options.file)) print(line);
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const summary = env("GITHUB_STEP_SUMMARY");
  if (!summary) return null;
  const title = options.title ?? suites[0]?.name ?? "decibench";
  await Deno.writeTextFile(summary, ciSummaryMarkdown(title, options.lines ?? [], checks), {
    append: true,
  });
  return summary;
}

/**
 * Whether GitHub output is on: `--github`, or by default when `GITHUB_ACTIONS=true`.
 *
 * @param flag The `--github` flag, when given.
 * @param env Reads environment variables. @default Deno.env.get
 * @returns True to write annotations and the step summary.
 */
export function githubOutputOn(
  flag: boolean | undefined,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): boolean {
  return flag === true || env("GITHUB_ACTIONS") === "true";
}
