/**
 * Running an audit: every selected check over every transcript item that carries its verdict,
 * one judge request at a time, appended as it goes, resumable, reported disagreements first.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";
import { watchReplies } from "../client/mod.ts";
import { lockRunDir, runId, sha256Hex, writeAtomic } from "../record/mod.ts";
import { readSavedAudit } from "./saved.ts";
import { TOOL_NAME, TOOL_VERSION } from "../version.ts";
import type { Workflow } from "../workflow/mod.ts";
import { judgeQuestion, questionSha256, selectChecks } from "./checks.ts";
import { evidenceOf, evidenceState } from "./evidence.ts";
import { askJudge, type PreparedJudge, prepareJudge } from "./judge.ts";
import { compareWithVerdict } from "./outcome.ts";
import { auditCounts, auditMarkdown } from "./report.ts";
import {
  type AuditMeta,
  type AuditOutcome,
  type AuditRecord,
  type AuditSet,
  checkName,
  type Transcript,
} from "./schemas.ts";
import { checkVerdicts, readTranscripts } from "./transcripts.ts";

/** Progress events (`--json` prints one per line); they never carry evidence or credentials. */
export type AuditEvent =
  | { event: "audit_start"; item: string; check_id: string; judge: string; model: string }
  | {
    event: "audit_result";
    item: string;
    check_id: string;
    outcome: AuditOutcome;
    choice: string | null;
    probability: number | null;
    error_kind: string | null;
    saved: boolean;
  }
  | {
    event: "audit_summary";
    dir: string;
    status: AuditMeta["status"];
    counts: AuditMeta["counts"];
  };

/** Options of {@linkcode runAudit}. */
export interface RunAuditOptions {
  /** Path of the workflow file: `audits.transcripts` is relative to its folder. @default null (relative to the working directory) */
  workflowFile?: string | null | undefined;
  /** Transcript file instead of the workflow's (relative to the working directory). @default undefined */
  transcripts?: string | undefined;
  /** Judge base URL instead of the workflow's (`--base-url`). @default undefined */
  baseUrl?: string | undefined;
  /** Judge model instead of the workflow's (`--model`). @default undefined */
  model?: string | undefined;
  /** Set instead of the workflow's (`--set`). @default the workflow's `audits.set` */
  set?: AuditSet | undefined;
  /** Output directory; refused when it holds an audit. @default `<output.dir>/audit-<run-id>` */
  outDir?: string | undefined;
  /** A saved audit's directory to resume; results are written back there. @default undefined */
  resume?: string | undefined;
  /** Reads environment variables (only the judge's own variable). @default Deno.env.get */
  env?: ((name: string) => string | undefined) | undefined;
  /** Deadline of one judge call including retries, ms. @default 10000 */
  deadlineMs?: number | undefined;
  /** Largest judge request in UTF-8 bytes. @default 6000 */
  maxRequestBytes?: number | undefined;
  /** First retry backoff, ms. @default 250 */
  backoffMs?: number | undefined;
  /** Stops after the request in flight (Ctrl+C); the audit is saved as interrupted. @default undefined */
  signal?: AbortSignal | undefined;
  /** Receives progress events. @default undefined */
  onEvent?: (event: AuditEvent) => void | undefined;
}

/** The result of an audit. */
export interface AuditResult {
  /** Output directory (holds `audit.json`, `audit.jsonl`, `audit.md`). */
  dir: string;
  /** `audit.json` as written. */
  meta: AuditMeta;
  /** Every record, in transcript and check order. */
  records: AuditRecord[];
  /**
   * The first message of a failed judge call, for the terminal only (records keep the kind:
   * a server's message may quote the evidence). Null when no call failed.
   */
  firstError: string | null;
}

/** Consecutive judge calls without an answer (network errors, deadlines) that stop an audit. */
export const JUDGE_UNREACHABLE_AFTER = 3;

/** Unavailable kinds that come from the data, not the judge: the audit can still complete. */
const DATA_KINDS: ReadonlySet<string> = new Set(["empty_evidence", "too_large"]);

/**
 * True when a record is unavailable because the judge failed it (asked again on resume), as
 * opposed to evidence that cannot be sent.
 *
 * @param record An audit record.
 * @returns Whether the judge failed it.
 */
export function judgeFailed(record: Pick<AuditRecord, "outcome" | "error_kind">): boolean {
  return record.outcome === "unavailable" && record.error_kind !== null &&
    !DATA_KINDS.has(record.error_kind);
}

function keyOf(item: string, checkId: string): string {
  return JSON.stringify([item, checkId]);
}

/**
 * Refuses a workflow whose judge would share the benchmark's key variable.
 *
 * @throws {TypeError} When a benchmark endpoint reads its key from the judge's variable.
 */
function checkKeyIsolation(workflow: Workflow, judgeEnv: string): void {
  const endpoints = workflow.endpoint ? [workflow.endpoint] : workflow.endpoints ?? [];
  if (endpoints.some((e) => e.apiKeyEnv === judgeEnv)) {
    throw new TypeError(
      `Cannot audit "${workflow.name}": the judge key variable "${judgeEnv}" is also the benchmark's; give the judge its own variable in audits.judge.apiKeyEnv`,
    );
  }
}

/**
 * Runs a workflow's audits. Each selected check is asked about each transcript item that has a
 * verdict for it, sequentially. A saved verdict (from `resume`) is reused only when the check id,
 * the question sha256 and the evidence sha256 all match; otherwise the evidence is judged again.
 * Unavailable records are always retried on resume.
 *
 * @param workflow The validated workflow (with an `audits` field).
 * @param options Files, overrides, limits, signal and event sink.
 * @returns The directory, `audit.json` and the records.
 * @throws {TypeError} When the workflow has no audits, the judge shares the benchmark's key
 * variable, the judge URL is refused, the transcripts are invalid, or `resume` does not match.
 */
export async function runAudit(
  workflow: Workflow,
  options: RunAuditOptions = {},
): Promise<AuditResult> {
  const audits = workflow.audits;
  if (!audits) {
    throw new TypeError(
      `Cannot audit "${workflow.name}": the workflow has no "audits" field; see workflows/audit.ts`,
    );
  }
  checkKeyIsolation(workflow, audits.judge.apiKeyEnv);
  const set = options.set ?? audits.set;
  const transcriptsPath = options.transcripts ??
    (options.workflowFile
      ? relative(Deno.cwd(), join(dirname(resolve(options.workflowFile)), audits.transcripts))
      : audits.transcripts);
  const { items, text } = await readTranscripts(transcriptsPath);
  checkVerdicts(items, audits.checks, { file: transcriptsPath });
  const checks = selectChecks(audits.checks, set);
  const names = new Set(checks.map((c) => checkName(c.id)));
  if (!items.some((item) => Object.keys(item.verdicts).some((name) => names.has(name)))) {
    throw new TypeError(
      `Cannot audit "${workflow.name}": nothing to audit: no item of "${transcriptsPath}" has a verdict for a check of set "${set}" (${
        [...names].map((n) => `"${n}"`).join(", ")
      }); add verdicts keyed by check id without "-vN"${set === "all" ? "" : ", or use --set all"}`,
    );
  }
  const hashes = new Map<string, string>();
  for (const check of checks) hashes.set(check.id, await questionSha256(check));

  const saved = options.resume ? await readSavedAudit(options.resume) : null;
  const judge = await prepareJudge(audits.judge, {
    baseUrl: options.baseUrl,
    model: options.model,
    env: options.env,
  });
  try {
    if (saved) {
      const was = saved.meta;
      const changed = was.set !== set
        ? `set "${was.set}" → "${set}"`
        : was.judge.endpoint !== judge.identity
        ? `judge endpoint "${was.judge.endpoint}" → "${judge.identity}"`
        : was.judge.model !== judge.model
        ? `judge model "${was.judge.model}" → "${judge.model}"`
        : null;
      if (changed) {
        throw new TypeError(
          `Cannot resume the audit in "${options.resume}": ${changed}; repeat the original judge flags or start a new audit`,
        );
      }
    }
    const started = new Date();
    // The same unique ids as runs: two audits started in the same second get two directories.
    const dir = options.resume ?? options.outDir ??
      join(workflow.output.dir, `audit-${runId(workflow.name, started)}`);
    // One writer per audit directory; a new audit never lands on top of another one.
    await using _lock = await lockRunDir(dir, {
      fresh: options.resume === undefined,
      kind: "audit",
      flag: options.resume === undefined ? "--out" : "--resume",
    });
    const meta: AuditMeta = {
      version: 1,
      tool: TOOL_NAME,
      tool_version: TOOL_VERSION,
      workflow: workflow.name,
      workflow_file: options.workflowFile ?? null,
      transcripts: transcriptsPath,
      transcripts_sha256: await sha256Hex(text),
      set,
      judge: { endpoint: judge.identity, model: judge.model },
      checks: checks.map((c) => ({
        id: c.id,
        set: c.set,
        evidence: c.evidence,
        question_sha256: hashes.get(c.id) as string,
      })),
      status: "running",
      started_at: saved?.meta.started_at ?? started.toISOString(),
      finished_at: null,
      counts: auditCounts([]),
    };
    await writeAtomic(join(dir, "audit.json"), JSON.stringify(meta, null, 2) + "\n");
    if (!saved) await writeAtomic(join(dir, "audit.jsonl"), "");
    const { records, stopped, firstError } = await auditItems(items, checks, hashes, judge, {
      dir,
      saved: saved?.records ?? new Map(),
      options,
    });
    const interrupted = options.signal?.aborted === true;
    const final: AuditMeta = {
      ...meta,
      status: interrupted
        ? "interrupted"
        : stopped !== null || records.some(judgeFailed)
        ? "incomplete"
        : "completed",
      finished_at: new Date().toISOString(),
      counts: auditCounts(records),
      stopped,
    };
    // An audit stopped early keeps the saved verdicts it did not reach, so a later resume reuses them.
    const done = new Set(records.map((r) => keyOf(r.item, r.check_id)));
    const kept = (interrupted || stopped !== null) && saved
      ? [...saved.records].filter(([key]) => !done.has(key)).map(([, r]) => r)
      : [];
    const lines = [...records, ...kept].map((r) => JSON.stringify(r));
    await writeAtomic(join(dir, "audit.jsonl"), lines.join("\n") + (lines.length ? "\n" : ""));
    await writeAtomic(join(dir, "audit.md"), auditMarkdown(final, records));
    await writeAtomic(join(dir, "audit.json"), JSON.stringify(final, null, 2) + "\n");
    options.onEvent?.({ event: "audit_summary", dir, status: final.status, counts: final.counts });
    return { dir, meta: final, records, firstError };
  } finally {
    await judge.close();
  }
}

async function auditItems(
  items: readonly Transcript[],
  checks: ReturnType<typeof selectChecks>,
  hashes: ReadonlyMap<string, string>,
  judge: PreparedJudge,
  context: { dir: string; saved: ReadonlyMap<string, AuditRecord>; options: RunAuditOptions },
): Promise<{ records: AuditRecord[]; stopped: string | null; firstError: string | null }> {
  const { dir, saved, options } = context;
  const emit = options.onEvent ?? (() => {});
  const records: AuditRecord[] = [];
  // A judge that does not answer, refuses every call or is not a decision model stops the audit.
  let stopped: string | null = null;
  let firstError: string | null = null;
  let unanswered = 0;
  const replies = watchReplies("systemone", judge.identity, { action: "audit with" });
  const done = () => ({ records, stopped, firstError });
  const file = await Deno.open(join(dir, "audit.jsonl"), {
    write: true,
    create: true,
    append: true,
  });
  const encoder = new TextEncoder();
  try {
    for (const item of items) {
      for (const check of checks) {
        if (options.signal?.aborted || stopped !== null) return done();
        const name = checkName(check.id);
        const verdict = item.verdicts[name];
        if (verdict === undefined) continue;
        const questionHash = hashes.get(check.id) as string;
        const evidence = evidenceOf(item.messages, check.evidence);
        const base = {
          item: item.id,
          check_id: check.id,
          set: check.set,
          question_sha256: questionHash,
          evidence_scope: check.evidence,
          evidence,
          evidence_sha256: evidence.length ? await sha256Hex(JSON.stringify(evidence)) : null,
          verdict,
        };
        let record: AuditRecord;
        const before = saved.get(keyOf(item.id, check.id));
        if (evidence.length === 0) {
          record = {
            ...base,
            request_bytes: null,
            judge: { endpoint: judge.identity, model: judge.model, model_reported: null },
            probabilities: null,
            choice: null,
            outcome: "unavailable",
            error_kind: "empty_evidence",
            elapsed_ms: null,
            attempts: 0,
            saved: false,
            response_id: null,
          };
        } else if (
          before && before.outcome !== "unavailable" && before.probabilities &&
          before.question_sha256 === questionHash && before.evidence_sha256 === base.evidence_sha256
        ) {
          record = {
            ...before,
            ...base,
            ...compareWithVerdict(before.probabilities, verdict),
            saved: true,
          };
        } else {
          let call;
          try {
            call = await askJudge(judge, {
              state: evidenceState(evidence, check.evidence),
              name,
              question: judgeQuestion(check),
            }, {
              deadlineMs: options.deadlineMs,
              ...(options.maxRequestBytes !== undefined
                ? { maxRequestBytes: options.maxRequestBytes }
                : {}),
              backoffMs: options.backoffMs,
              signal: options.signal,
              onSend: () =>
                emit({
                  event: "audit_start",
                  item: item.id,
                  check_id: check.id,
                  judge: judge.identity,
                  model: judge.model,
                }),
            });
          } catch (error) {
            if (options.signal?.aborted) return done();
            throw error;
          }
          firstError ??= call.errorMessage;
          unanswered = call.errorKind === "network" || call.errorKind === "deadline"
            ? unanswered + 1
            : 0;
          stopped = replies.observe({
            reply: call.probabilities,
            error: call.errorKind === null ? null : { kind: call.errorKind },
            notAReply: call.notAReply ?? undefined,
          });
          if (call.fatal) {
            // A refused key or an endpoint that serves no decision model: every call would fail.
            stopped = (call.errorMessage ?? `the judge failed with ${call.errorKind}`)
              .replace(/^Cannot benchmark /, "Cannot audit with ");
          } else if (stopped === null && unanswered >= JUDGE_UNREACHABLE_AFTER) {
            const last = (call.errorMessage ?? "").replace(/^Cannot reach "[^"]*": /, "");
            stopped =
              `Cannot reach the judge "${judge.identity}": ${unanswered} calls in a row got no answer (last: ${last}); start the judge, then finish the audit with --resume "${dir}"`;
          }
          const compared = call.probabilities
            ? compareWithVerdict(call.probabilities, verdict)
            : { outcome: "unavailable" as const, choice: null };
          record = {
            ...base,
            request_bytes: call.requestBytes,
            judge: {
              endpoint: judge.identity,
              model: judge.model,
              model_reported: call.modelReported,
            },
            probabilities: call.probabilities,
            ...compared,
            error_kind: call.errorKind,
            elapsed_ms: call.elapsedMs,
            attempts: call.attempts,
            saved: false,
            response_id: call.responseId,
          };
        }
        records.push(record);
        await file.write(encoder.encode(JSON.stringify(record) + "\n"));
        emit({
          event: "audit_result",
          item: item.id,
          check_id: check.id,
          outcome: record.outcome,
          choice: record.choice,
          probability: record.choice !== null
            ? record.probabilities?.[record.choice] ?? null
            : null,
          error_kind: record.error_kind,
          saved: record.saved,
        });
      }
    }
    return done();
  } finally {
    file.close();
  }
}
