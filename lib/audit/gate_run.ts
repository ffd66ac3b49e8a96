/**
 * `runGate`: the decision gate as a command over a workflow's question set. Each selected case is
 * asked one yes/no question in its own request; P(yes) is kept exactly as returned and compared
 * with the bar; a case that could not be asked is `undecided` — never a pass, never a fail.
 * Writes `gate.jsonl` (one line per case) and `gate.json` (configuration, counts, lanes).
 *
 * @module
 */
import { join } from "node:path";
import {
  askCase,
  chooseParallel,
  type ParallelChoice,
  pool,
  type ReplyCache,
  tryBuild,
} from "../client/mod.ts";
import type { Case, Question, QuestionSet } from "../dataset/mod.ts";
import { writeAtomic } from "../record/mod.ts";
import { TOOL_NAME, TOOL_VERSION } from "../version.ts";
import {
  askCacheFor,
  openCases,
  preparedIdentity,
  prepareEndpoint,
  type SampleSpec,
  type Workflow,
  WorkflowError,
} from "../workflow/mod.ts";
import { DEFAULT_GATE_THRESHOLD } from "./gate.ts";
import { type GateLane, GateLaneTally, type GateRecord } from "./gate_report.ts";
import { decideWithPolicy, ESCALATE, type GatePolicy } from "./policy_apply.ts";
import { gateMismatch, type SavedGate } from "./gate_resume.ts";

/** Options of {@linkcode runGate}. */
export interface RunGateOptions {
  /**
   * Pass when P(yes) ≥ this.
   * @default 0.7 (uncalibrated)
   */
  threshold?: number;
  /**
   * Mark the bar as calibrated (chosen on held-out labels, e.g. by `deno task sweep`).
   * @default false
   */
  calibrated?: boolean;
  /**
   * Output directory.
   * @default `<output.dir>/gate-<time>-<workflow>`
   */
  outDir?: string;
  /**
   * Overrides the endpoint's base URL.
   * @default undefined
   */
  baseUrl?: string;
  /**
   * Overrides the model.
   * @default undefined
   */
  model?: string;
  /**
   * Requests in flight.
   * @default the workflow's `parallel`
   */
  parallel?: number;
  /**
   * At most this many cases.
   * @default the workflow's selection
   */
  limit?: number;
  /**
   * A seeded draw of cases stratified by lane instead of the first ones (`--sample N --seed S`);
   * not given with `limit`.
   * @default undefined (no sample)
   */
  sample?: SampleSpec;
  /**
   * Stops asking when aborted; cases not asked are `undecided`.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Reads environment variables (for the API key).
   * @default Deno.env.get
   */
  env?: (name: string) => string | undefined;
  /**
   * Receives each record as its case is decided.
   * @default undefined
   */
  onRecord?: (record: GateRecord, done: number, total: number) => void;
  /**
   * Backoff base for retries, ms.
   * @default 250
   */
  backoffMs?: number;
  /**
   * Told what `parallel: "auto"` chose (the server's slot count, else 4) and why.
   * @default undefined
   */
  onParallel?: (choice: ParallelChoice) => void;
  /**
   * A decision policy (`deno task policy`): its calibration and each lane's bar replace the
   * threshold, and a lane it does not certify escalates.
   * @default undefined
   */
  policy?: GatePolicy;
  /**
   * Finish this saved gate (`--resume`): its decided verdicts are kept, only its undecided cases
   * are asked again, and `gate.jsonl` and `gate.json` are written back into its directory. The
   * question, bar, question-set revision, endpoint and model must be the ones it used.
   * @default undefined
   */
  resume?: SavedGate;
  /**
   * The workflow file, recorded in `gate.json` so `--resume` can find it.
   * @default undefined
   */
  workflowFile?: string;
  /**
   * The request cache (`--cache`, `--offline`), shared with `bench`: a cached reply decides its
   * case without a request (the record says `cached: true`); offline, a case the cache does not
   * hold is undecided with error kind `cache_miss` and nothing is sent.
   * @default undefined (no cache)
   */
  cache?: ReplyCache | undefined;
}

/** `gate.json`: what ran and how it came out. */
export interface GateRun {
  /** Tool that wrote it. */
  tool: string;
  /** Its version. */
  tool_version: string;
  /** Workflow name. */
  workflow: string;
  /** The question asked. */
  question: string;
  /** Its instructions. */
  instructions: string;
  /** Endpoint identity (never credentials). */
  endpoint: string;
  /** Model sent. */
  model: string;
  /** Where the cases come from (`dataset`, `revision` as in run.json). */
  dataset: string;
  /** Dataset revision (a user file's sha256). */
  revision: string;
  /** The pass bar. */
  threshold: number;
  /** Whether the bar is marked calibrated. */
  calibrated: boolean;
  /** When it started (ISO 8601). */
  started_at: string;
  /** When it ended. */
  finished_at: string;
  /** Cases asked about. */
  cases: number;
  /** Cases left undecided. */
  undecided: number;
  /** Per lane, then overall. */
  lanes: GateLane[];
  /** The error that stopped the gate early, or null. */
  fatal: string | null;
  /** The policy applied, when one was: its file, sha256 and where its labels came from. */
  policy?: {
    /** The policy file. */
    file: string;
    /** Its sha256. */
    sha256: string;
    /** Its objective. */
    objective: string;
    /** Its α. */
    alpha: number;
    /** Its δ. */
    delta: number;
    /** The run it was chosen on. */
    source_run: string;
    /** sha256 of that run's question-set file (null for Typed Decisions). */
    source_question_set_sha256: string | null;
    /**
     * Whether these cases come from a different question-set file than the policy's run (new
     * traffic); false for Typed Decisions.
     */
    new_cases: boolean;
  };
  /** The workflow file, when known (what `--resume` reads again). */
  workflow_file?: string;
  /** Cases asked again by the latest `--resume` (absent on a first gate). */
  resumed?: number;
  /** The `--sample` draw the cases are (absent: the selection's first cases). */
  sample?: SampleSpec;
}

/** The result of {@linkcode runGate}. */
export interface GateRunResult {
  /** The output directory. */
  dir: string;
  /**
   * One record per case, in case order, read back from `gate.jsonl` (never held in memory).
   *
   * @returns The records.
   */
  records(): AsyncIterable<GateRecord>;
  /** `gate.json` as written. */
  run: GateRun;
}

function gateId(name: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `gate-${stamp}-${name}-${crypto.randomUUID().slice(0, 4)}`;
}

/**
 * Finds the yes/no question a gate asks in the selected cases, and how many cases ask it.
 *
 * @param set The opened question set (its selection applied).
 * @param name The question name.
 * @param file The workflow file, for messages.
 * @returns The question and the number of selected cases that ask it.
 * @throws {WorkflowError} When no case asks it, or it is not a yes/no (`noul`) question.
 */
export async function gateQuestion(
  set: QuestionSet,
  name: string,
  file: string,
): Promise<{ count: number; question: Question & { type: "noul" } }> {
  if (!set.questions.includes(name)) {
    throw new WorkflowError(
      `Cannot gate "${file}": no case asks question "${name}" (questions: ${
        set.questions.join(", ")
      })`,
    );
  }
  // The first case asking each question gives its definition; usually the first case asks all.
  const types = new Map<string, Question>();
  for await (const c of set.cases()) {
    for (const [n, q] of Object.entries(c.questions)) if (!types.has(n)) types.set(n, q);
    if (types.size === set.questions.length) break;
  }
  const question = types.get(name) as Question;
  if (question.type !== "noul") {
    const yesNo = [...types].filter(([, q]) => q.type === "noul").map(([n]) => n);
    throw new WorkflowError(
      `Cannot gate "${file}": question "${name}" is a ${question.type} question; the gate asks a yes/no (noul) question (${
        yesNo.join(", ") || "none here"
      })`,
    );
  }
  // Every case asks every question: no need to count.
  let count = set.count;
  if (set.decisions !== set.count * set.questions.length) {
    count = 0;
    for await (const c of set.cases()) if (Object.hasOwn(c.questions, name)) count++;
  }
  return { count, question: question as Question & { type: "noul" } };
}

/** What a case's record needs when it was never asked. */
interface Stub {
  id: string;
  lane: string;
  label: boolean | null;
}

/**
 * `gate.jsonl` written in case order while cases finish in any order: a record waits only for
 * the ones before it still in flight; lines go to a temporary file renamed at the end.
 */
class OrderedLines {
  readonly #waiting = new Map<number, GateRecord>();
  #next = 0;
  #chunk = "";
  #file: Deno.FsFile | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly tmp: string;

  constructor(readonly path: string) {
    this.tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  }

  async open(): Promise<void> {
    this.#file = await Deno.open(this.tmp, { write: true, createNew: true });
  }

  /** The record of case `index` (each index once). */
  put(index: number, record: GateRecord): void {
    this.#waiting.set(index, record);
    for (
      let r = this.#waiting.get(this.#next);
      r !== undefined;
      r = this.#waiting.get(this.#next)
    ) {
      this.#waiting.delete(this.#next++);
      this.#chunk += JSON.stringify(r) + "\n";
    }
    if (this.#chunk.length >= 1 << 16) this.#flush();
  }

  /** Whether case `index` has its record (written or waiting). */
  has(index: number): boolean {
    return index < this.#next || this.#waiting.has(index);
  }

  #flush(): void {
    const bytes = new TextEncoder().encode(this.#chunk);
    this.#chunk = "";
    const file = this.#file as Deno.FsFile;
    this.#writing = this.#writing.then(async () => {
      for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
    });
  }

  /** Writes what is left and puts the file in place. */
  async close(): Promise<void> {
    this.#flush();
    await this.#writing;
    this.#file?.close();
    this.#file = undefined;
    await Deno.rename(this.tmp, this.path);
  }

  /** Leaves no temporary file behind. */
  async abandon(): Promise<void> {
    await this.#writing.catch(() => {});
    this.#file?.close();
    this.#file = undefined;
    await Deno.remove(this.tmp).catch(() => {});
  }
}

async function* readRecords(path: string): AsyncIterable<GateRecord> {
  const file = await Deno.open(path);
  let rest = "";
  for await (const text of file.readable.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + text).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) if (line) yield JSON.parse(line) as GateRecord;
  }
  if (rest) yield JSON.parse(rest) as GateRecord;
}

/**
 * Runs the decision gate over a workflow's question set: one request per case asking only
 * `question`, verdict `pass` when P(yes) ≥ the bar, `fail` below it, `undecided` when the case
 * could not be asked (after the endpoint's retries). Labels come from the question's gold, where
 * the case has one.
 *
 * @param workflow The validated workflow.
 * @param question The yes/no question to ask (a `noul` question of the question set).
 * @param options Bar, output, overrides, signal.
 * @returns The records (case order), `gate.json` and the output directory.
 * @throws {QuestionSetError} When the workflow's file is refused (before anything is sent).
 * @throws {WorkflowError} When the question is unknown or not yes/no.
 * @throws {RangeError} When the threshold is not in [0, 1].
 */
export async function runGate(
  workflow: Workflow,
  question: string,
  options: RunGateOptions = {},
): Promise<GateRunResult> {
  const threshold = options.threshold ?? DEFAULT_GATE_THRESHOLD;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new RangeError(`Cannot gate: threshold "${threshold}" is not in [0, 1]`);
  }
  const calibrated = options.calibrated ?? false;
  const spec = workflow.endpoint ?? workflow.endpoints?.[0];
  if (!spec) throw new TypeError("Cannot gate: the workflow has no endpoint");
  const saved = options.resume;
  // The question set is read as a stream: a case is held only while it is asked.
  const set = await openCases(workflow, {
    limit: saved ? undefined : options.limit,
    sample: saved ? undefined : options.sample,
  });
  const picked = await gateQuestion(set, question, workflow.name);
  // Resuming: the decided verdicts stay; only the undecided cases are asked again. The saved
  // gate's cases are found in the set, in its order (the order the gate first wrote them).
  const kept = new Map<string, GateRecord>();
  const savedIds = new Set<string>();
  if (saved) {
    for (const r of saved.records) {
      savedIds.add(r.id);
      if (r.verdict !== "undecided") kept.set(r.id, r);
    }
    const found = new Set<string>();
    for await (const c of set.cases()) if (savedIds.has(c.id)) found.add(c.id);
    const missing = saved.records.find((r) => !found.has(r.id));
    if (missing !== undefined) {
      throw new WorkflowError(
        `Cannot resume the gate in "${saved.dir}": case "${missing.id}" of gate.jsonl is not in the question set any more; start a new gate`,
      );
    }
  }
  const toAskCount = saved ? saved.records.length - kept.size : picked.count;
  const endpoint = await prepareEndpoint(spec, {
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    questionSet: set,
  });
  const started = new Date();
  const dir = saved?.dir ?? options.outDir ??
    join(workflow.output.dir, gateId(workflow.name, started));
  const provenance = (
    lane: string,
    model: string | null,
    reply?: { responseId?: string | null | undefined; cost?: number | null | undefined },
  ) => ({
    kind: "atomic-decision" as const,
    model,
    response_id: reply?.responseId ?? null,
    cost: reply?.cost ?? null,
    threshold: barOf(options.policy, lane, threshold),
    calibrated,
  });
  const tally = new GateLaneTally();
  let out: OrderedLines | undefined;
  let fatal: string | null = null;
  let identity: string;
  try {
    identity = preparedIdentity(endpoint);
    if (saved) {
      const now = {
        question,
        threshold,
        calibrated,
        revision: set.info.revision,
        endpoint: identity,
        model: endpoint.model,
      };
      const differs = gateMismatch(saved.run, now);
      if (differs !== null) {
        throw new WorkflowError(
          `Cannot resume the gate in "${saved.dir}": ${differs}; give the flags and file the gate started with`,
        );
      }
    }
    await Deno.mkdir(dir, { recursive: true });
    out = new OrderedLines(join(dir, "gate.jsonl"));
    await out.open();
    const lines = out;
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const questions = { [question]: picked.question };
    let done = 0;
    let parallel = options.parallel ?? workflow.parallel;
    if (parallel === "auto") {
      const choice = await chooseParallel(endpoint.baseUrl, {
        ...(endpoint.apiKey !== undefined ? { apiKey: endpoint.apiKey } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
      options.onParallel?.(choice);
      parallel = choice.parallel;
    }
    const cache = askCacheFor(options.cache, endpoint, 0);
    const put = (index: number, record: GateRecord): void => {
      tally.add(record);
      lines.put(index, record);
    };
    // Cases handed out, with what their record needs if they are never answered.
    const stubs = new Map<number, Stub>();
    let taken = 0;
    const asking = (async function* () {
      for await (const item of set.cases()) {
        if (!Object.hasOwn(item.questions, question)) continue;
        if (saved && !savedIds.has(item.id)) continue;
        const index = taken++;
        const decided = kept.get(item.id);
        if (decided !== undefined) {
          put(index, decided); // a resumed gate's decided verdict, kept as it was
          continue;
        }
        const gold = item.gold[question];
        stubs.set(index, {
          id: item.id,
          lane: item.workflow,
          label: gold ? gold.label === "true" : null,
        });
        yield { item, index };
      }
    })();
    // The pool ends its iterator when it stops early; the cases left are still written below.
    const handedOut: AsyncIterable<{ item: Case; index: number }> = {
      [Symbol.asyncIterator]: () => ({ next: () => asking.next() }),
    };
    const notAsked = (index: number): void => {
      const stub = stubs.get(index) as Stub;
      stubs.delete(index);
      put(index, {
        id: stub.id,
        lane: stub.lane,
        p_yes: null,
        verdict: "undecided",
        label: stub.label,
        error: fatal !== null
          ? { kind: "not_asked", message: `Not asked: the gate stopped (${fatal})` }
          : { kind: "not_asked", message: "Not asked: the gate was interrupted" },
        ...policyFields(options.policy, null),
        provenance: provenance(stub.lane, null),
      });
    };
    try {
      await pool(handedOut, parallel, async ({ item, index }) => {
        const request = tryBuild(endpoint.engine, {
          state: item.state,
          questions,
          model: endpoint.model,
          stateEncoding: endpoint.spec.stateEncoding,
        });
        let outcome;
        try {
          outcome = "error" in request
            ? request
            : await askCase(endpoint.engine, request, questions, {
              ...(endpoint.apiKey !== undefined ? { apiKey: endpoint.apiKey } : {}),
              timeoutMs: endpoint.spec.timeoutMs,
              maxReplyBytes: endpoint.spec.maxReplyBytes,
              maxRetryAfterMs: endpoint.spec.maxRetryAfterMs,
              retries: endpoint.spec.retries,
              ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
              signal,
              cache,
            });
        } catch (error) {
          if (signal.aborted) return; // left undecided below
          throw error;
        }
        if (outcome.fatal) {
          fatal ??= outcome.error?.message ?? "fatal error";
          stop.abort();
          return;
        }
        const reply = outcome.reply;
        const probabilities = reply?.answers[question]?.probabilities;
        const p = probabilities?.true;
        const decided = typeof p === "number";
        const stub = stubs.get(index) as Stub;
        stubs.delete(index);
        const applied = decided && probabilities && options.policy
          ? decideWithPolicy(options.policy.policy, item.workflow, probabilities)
          : undefined;
        const record: GateRecord = {
          id: item.id,
          lane: item.workflow,
          p_yes: decided ? p : null,
          verdict: !decided
            ? "undecided"
            : applied
            ? applied.action === ESCALATE ? "escalate" : applied.action === "true" ? "pass" : "fail"
            : p >= threshold
            ? "pass"
            : "fail",
          label: stub.label,
          error: decided ? null : outcome.error ?? { kind: "malformed", message: "No answer" },
          ...policyFields(options.policy, applied?.calibrated.true ?? null),
          ...("cached" in outcome && outcome.cached === true ? { cached: true as const } : {}),
          provenance: provenance(item.workflow, reply?.model ?? null, reply ?? undefined),
        };
        put(index, record);
        options.onRecord?.(record, ++done, toAskCount);
      }, signal);
    } finally {
      // Cases handed out but not answered, then the ones never handed out.
      for (const index of [...stubs.keys()].sort((x, y) => x - y)) notAsked(index);
      if (signal.aborted) {
        for await (const { index } of handedOut) notAsked(index);
      }
    }
    await lines.close();
    out = undefined;
  } finally {
    await out?.abandon();
    await endpoint.close();
  }
  const run: GateRun = {
    tool: TOOL_NAME,
    tool_version: TOOL_VERSION,
    workflow: workflow.name,
    question,
    instructions: picked.question.instructions,
    endpoint: identity,
    model: endpoint.model,
    dataset: set.info.dataset,
    revision: set.info.revision,
    threshold,
    calibrated,
    started_at: saved?.run.started_at ?? started.toISOString(),
    finished_at: new Date().toISOString(),
    cases: tally.cases,
    undecided: tally.undecided,
    lanes: tally.lanes(),
    fatal,
    ...(options.policy
      ? {
        policy: {
          file: options.policy.file,
          sha256: options.policy.sha256,
          objective: options.policy.policy.objective,
          alpha: options.policy.policy.alpha,
          delta: options.policy.policy.delta,
          source_run: options.policy.policy.source.run,
          source_question_set_sha256: options.policy.policy.source.questionSetSha256,
          new_cases: options.policy.policy.source.questionSetSha256 !== null &&
            options.policy.policy.source.questionSetSha256 !== set.info.revision,
        },
      }
      : {}),
    ...(options.workflowFile !== undefined
      ? { workflow_file: options.workflowFile }
      : saved?.run.workflow_file !== undefined
      ? { workflow_file: saved.run.workflow_file }
      : {}),
    ...(saved ? { resumed: toAskCount } : {}),
    ...(options.sample !== undefined && !saved
      ? { sample: options.sample }
      : saved?.run.sample !== undefined
      ? { sample: saved.run.sample }
      : {}),
  };
  await writeAtomic(join(dir, "gate.json"), JSON.stringify(run, null, 2) + "\n");
  const path = join(dir, "gate.jsonl");
  return { dir, records: () => readRecords(path), run };
}

/** A record's policy fields: the calibrated P(yes) and the policy's sha256 (none without one). */
function policyFields(
  policy: GatePolicy | undefined,
  calibrated: number | null,
): Pick<GateRecord, "p_calibrated" | "policy_sha256"> {
  return policy ? { p_calibrated: calibrated, policy_sha256: policy.sha256 } : {};
}

/** The bar a verdict was held to: the policy lane's (null when it escalates), else the threshold. */
function barOf(policy: GatePolicy | undefined, lane: string, threshold: number): number | null {
  if (!policy) return threshold;
  const entry = policy.policy.lanes[lane];
  return entry?.certified ? entry.threshold : null;
}
