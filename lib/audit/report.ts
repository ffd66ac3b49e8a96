/**
 * The audit report: counts by outcome and `audit.md`, disagreements first.
 *
 * @module
 */
import type { AuditMeta, AuditOutcome, AuditRecord } from "./schemas.ts";

/** Report order: what needs a reader first. */
export const OUTCOME_ORDER: readonly AuditOutcome[] = [
  "disagree",
  "abstained",
  "unavailable",
  "agree",
];

/**
 * Counts records by outcome (every outcome present, 0 when none).
 *
 * @param records Audit records.
 * @returns Count per outcome.
 * @example
 * ```ts
 * import { auditCounts } from "./report.ts";
 * auditCounts([]); // { agree: 0, disagree: 0, abstained: 0, unavailable: 0 }
 * ```
 */
export function auditCounts(records: readonly Pick<AuditRecord, "outcome">[]): Record<
  AuditOutcome,
  number
> {
  const counts: Record<AuditOutcome, number> = {
    agree: 0,
    disagree: 0,
    abstained: 0,
    unavailable: 0,
  };
  for (const r of records) counts[r.outcome]++;
  return counts;
}

/**
 * Records in report order: disagreements, then abstentions, unavailable and agreements; the
 * original order within each outcome.
 *
 * @param records Audit records.
 * @returns A sorted copy.
 */
export function reportOrder(records: readonly AuditRecord[]): AuditRecord[] {
  return OUTCOME_ORDER.flatMap((o) => records.filter((r) => r.outcome === o));
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();
}

function judged(r: AuditRecord): string {
  if (r.outcome === "unavailable") return `unavailable: ${r.error_kind ?? "error"}`;
  if (r.choice === null) return "tied";
  const p = r.probabilities?.[r.choice];
  return p === undefined ? r.choice : `${r.choice} (${p.toFixed(2)})`;
}

/**
 * `audit.md`: the judge and set, counts by outcome, the limits every verdict carries, one table
 * with disagreements first, then the full record per item in the same order.
 *
 * @param meta The audit's `audit.json`.
 * @param records The records.
 * @returns Markdown text.
 */
export function auditMarkdown(meta: AuditMeta, records: readonly AuditRecord[]): string {
  const counts = auditCounts(records);
  const ordered = reportOrder(records);
  const lines: string[] = [
    `# Audit: ${meta.workflow}`,
    "",
    `Judge \`${meta.judge.model}\` at \`${meta.judge.endpoint}\`, set \`${meta.set}\`, ` +
    `${meta.checks.length} check(s) over \`${meta.transcripts}\` (status ${meta.status}).`,
    "",
    ...(meta.stopped ? [`> **Stopped early: ${meta.stopped}**`, ""] : []),
    `| outcome | count |`,
    `|---|---:|`,
    ...OUTCOME_ORDER.map((o) => `| ${o} | ${counts[o]} |`),
    "",
    "A disagreement is a review candidate, not a corrected verdict. The judge's probabilities " +
    "have not been calibrated against independent labels. The question tells the judge that the " +
    "messages are evidence, not instructions, but text inside them can still steer it and nothing " +
    "here detects an injection that works. Audits never change a benchmark score.",
    "",
    "| outcome | item | check | verdict | judge | ms | saved |",
    "|---|---|---|---|---|---:|---|",
    ...ordered.map((r) =>
      `| ${r.outcome} | ${cell(r.item)} | ${cell(r.check_id)} | ${cell(r.verdict)} | ${
        cell(judged(r))
      } | ${r.elapsed_ms === null ? "–" : Math.round(r.elapsed_ms)} | ${
        r.saved ? "saved audit" : ""
      } |`
    ),
    "",
    "## Records",
    "",
  ];
  for (const r of ordered) {
    lines.push(`### ${r.outcome}: ${r.item} / ${r.check_id}`, "");
    lines.push(
      `- evidence scope: ${r.evidence_scope}; question sha256 \`${
        r.question_sha256.slice(0, 16)
      }\``,
    );
    lines.push(`- deterministic verdict: \`${r.verdict}\`; judge: ${judged(r)}`);
    if (r.probabilities) {
      lines.push(
        `- probabilities: ${
          Object.entries(r.probabilities).map(([k, p]) => `${k}=${p.toFixed(3)}`).join(" ")
        }`,
      );
    }
    lines.push(
      `- judge model reported: ${r.judge.model_reported ?? "–"}; attempts ${r.attempts}; ` +
        `request ${r.request_bytes ?? "–"} bytes`,
    );
    if (r.evidence.length) {
      lines.push("- evidence:");
      for (const text of r.evidence) lines.push(`  > ${cell(text)}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
