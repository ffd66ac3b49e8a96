/**
 * Shared fixtures of the audit end-to-end tests: a workflow builder, a transcript writer, a
 * scripted judge predictor and a capturing judge server.
 *
 * @module
 */
import { join } from "node:path";
import type { Predictor } from "../lib/server/mod.ts";
import type { AuditCheck } from "../lib/audit/mod.ts";
import { validateWorkflow, type Workflow } from "../lib/workflow/mod.ts";

/** A check whose options are yes / no / unclear. */
export const CHECK: AuditCheck = {
  id: "done-claim-v1",
  set: "recommended",
  evidence: "messages",
  instructions: "Did the assistant say the task is done?",
  options: { yes: "says it is done", no: "does not say it is done", unclear: "cannot tell" },
};

/** A recommended final-answer check and an `all` check. */
export const FINAL_CHECK: AuditCheck = { ...CHECK, id: "final-claim-v1", evidence: "final_answer" };
/** A check only the `all` set runs. */
export const EXTRA_CHECK: AuditCheck = { ...CHECK, id: "extra-claim-v1", set: "all" };

/** Options of {@linkcode auditWorkflow}. */
export interface AuditWorkflowOptions {
  checks?: AuditCheck[];
  judge?: Record<string, unknown>;
  endpoint?: Record<string, unknown>;
}

/**
 * A validated workflow with audits over `transcripts`.
 *
 * @param transcripts Path of the transcript file.
 * @param options Checks, judge and benchmark endpoint.
 * @returns The workflow.
 */
export function auditWorkflow(transcripts: string, options: AuditWorkflowOptions = {}): Workflow {
  return validateWorkflow({
    name: "audit-test",
    endpoint: options.endpoint ?? { reference: { predictor: "uniform" } },
    audits: {
      transcripts,
      judge: options.judge ?? { baseUrl: "http://127.0.0.1:9", apiKeyEnv: "TEST_JUDGE_KEY" },
      checks: options.checks ?? [CHECK],
    },
  }, "test");
}

/**
 * One transcript item whose single assistant message is `text` (none when null).
 *
 * @param id Item id.
 * @param text The assistant's message.
 * @param verdict The deterministic verdict for each named check.
 * @param checks Check names (ids without `-vN`) the item carries a verdict for.
 * @returns The item.
 */
export function item(
  id: string,
  text: string | null,
  verdict = "yes",
  checks: readonly string[] = ["done-claim"],
): Record<string, unknown> {
  return {
    id,
    note: "SYNTHETIC test item",
    messages: [
      { role: "user", content: "Do the task." },
      ...(text === null ? [] : [{ role: "assistant", content: text }]),
    ],
    verdicts: Object.fromEntries(checks.map((name) => [name, verdict])),
  };
}

/**
 * Writes items as a JSONL file in `dir`.
 *
 * @param dir Directory.
 * @param items Transcript items.
 * @returns The file path.
 */
export async function writeTranscripts(
  dir: string,
  items: readonly Record<string, unknown>[],
): Promise<string> {
  const path = join(dir, "transcripts.jsonl");
  await Deno.writeTextFile(path, items.map((i) => JSON.stringify(i)).join("\n") + "\n");
  return path;
}

/**
 * A judge predictor that answers what the evidence asks for: an assistant message
 * `"judge: yes=0.8 no=0.1 unclear=0.1"` gets exactly that distribution; anything else gets unclear.
 *
 * @returns The predictor.
 */
export function scriptedJudge(): Predictor {
  return {
    name: "scripted",
    predict(state, questions) {
      const text = String((state as { assistant_messages?: string[] }).assistant_messages?.at(-1));
      const out: Record<string, Record<string, number>> = {};
      for (const name of Object.keys(questions)) {
        const dist: Record<string, number> = { yes: 0, no: 0, unclear: 1 };
        const match = /judge: (.*)$/.exec(text);
        if (match) {
          for (const part of (match[1] ?? "").split(" ")) {
            const [k, v] = part.split("=");
            if (k) dist[k] = Number(v);
          }
        }
        out[name] = dist;
      }
      return out;
    },
  };
}

/** What a capturing server saw. */
export interface Captured {
  /** Request headers, lowercased names. */
  headers: Record<string, string>;
  /** Request body. */
  body: string;
}

/**
 * A loopback judge that records every request and answers each choice question with its first
 * option at 0.9 (the rest share 0.1).
 *
 * @returns Its URL, what it saw, and `close()`.
 */
export function capturingJudge(): { url: string; seen: Captured[]; close(): Promise<void> } {
  const seen: Captured[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    seen.push({ headers: Object.fromEntries(request.headers), body });
    const parsed = JSON.parse(body) as {
      questions: Record<string, { criteria: Record<string, string> }>;
    };
    const answers: Record<string, unknown> = {};
    for (const [name, q] of Object.entries(parsed.questions)) {
      const options = Object.keys(q.criteria);
      const rest = 0.1 / (options.length - 1);
      const probabilities = Object.fromEntries(options.map((o, i) => [o, i === 0 ? 0.9 : rest]));
      answers[name] = { type: "choice", choice: options[0], probabilities, confidence: 0.8 };
    }
    return Response.json({
      model: "captured-judge-1",
      id: "resp-42",
      answers,
      usage: { input_tokens: 10, output_tokens: 0 },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    close: () => server.shutdown(),
  };
}

export { filesUnder } from "./bench_cli_helpers.ts";
