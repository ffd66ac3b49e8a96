/**
 * Fault injection for the reference server: a spec of `kind=rate` pairs and a seeded,
 * counter-based draw that decides which decision request gets which fault, plus `jitter=SD`:
 * seeded gaussian noise on every answer.
 *
 * @module
 */
import { optionsOf, type Question } from "../dataset/mod.ts";
import type { Distributions } from "./predictor.ts";
import { unitDraw } from "../hash32.ts";

/** Every fault the reference server can inject, in the order they are documented. */
export const FAULT_KINDS = [
  "http500",
  "http503",
  "http429",
  "http404",
  "timeout",
  "reset",
  "malformed",
  "truncated",
  "out_of_range",
  "missing_option",
  "jitter",
] as const;

/**
 * A fault kind:
 * - `http500` / `http503`: a llama-style `server_error` / `unavailable_error` body;
 * - `http429`: `rate_limit_error` with a `Retry-After` header;
 * - `http404`: the endpoint answers 404 like a server older than llama.cpp b11361;
 * - `timeout`: never answers until the client gives up (or the server closes);
 * - `reset`: sends the status line and headers, then closes the connection without a body;
 * - `malformed`: a 200 whose body is not valid JSON;
 * - `truncated`: a 200 whose body is cut short mid-JSON (with a matching `Content-Length`);
 * - `out_of_range`: one probability (or `noul`) outside [0,1];
 * - `missing_option`: one option's probability (or a `noul` value) removed;
 * - `jitter`: not drawn per request but applied to every answered one: seeded gaussian noise of
 *   standard deviation `sd` added to each probability, clipped at 0 and renormalised (see
 *   {@linkcode jitterDistributions}), so repeated identical requests get slightly different
 *   answers, as batched and prefix-cached decision servers can.
 */
export type FaultKind = typeof FAULT_KINDS[number];

/** One fault and how often it happens. */
export interface Fault {
  /** What goes wrong. */
  kind: FaultKind;
  /** Probability per decision request, in [0,1] (`jitter`: always 1, every answer). */
  rate: number;
  /** For `http429`: the `Retry-After` header in whole seconds (default 1). */
  retryAfterSeconds?: number | undefined;
  /** For `jitter`: the noise's standard deviation, in [0,1]. */
  sd?: number | undefined;
}

/** A parsed fault spec: faults in the order given; their rates (jitter aside) sum to at most 1. */
export type FaultSpec = readonly Fault[];

const KIND_SET: ReadonlySet<string> = new Set(FAULT_KINDS);

/**
 * Parses a `--faults` spec: a comma list of `kind=rate` with rate in [0,1]; `http429` also
 * takes `http429=rate:seconds` to set `Retry-After` (default 1 s); `jitter=SD` adds gaussian
 * noise of standard deviation SD in [0,1] to every answer. An empty spec means no faults.
 *
 * @param spec The spec, e.g. `"malformed=0.05,http500=0.05,http429=0.1:0"`.
 * @returns The faults in the order given.
 * @throws {RangeError} When a part is not `kind=rate`, names an unknown kind, repeats a kind,
 * has a rate outside [0,1], or the rates sum above 1.
 * @example
 * ```ts
 * import { parseFaults } from "./faults.ts";
 * parseFaults("http500=0.1,http429=0.05:2");
 * // [{ kind: "http500", rate: 0.1 }, { kind: "http429", rate: 0.05, retryAfterSeconds: 2 }]
 * parseFaults("jitter=0.02"); // [{ kind: "jitter", rate: 1, sd: 0.02 }]
 * ```
 */
export function parseFaults(spec: string): FaultSpec {
  const faults: Fault[] = [];
  const parts: string[] = [];
  for (const raw of spec.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const match = /^([a-z0-9_]+)=([^:]*)(?::(.*))?$/.exec(part);
    if (!match) {
      throw new RangeError(
        `Cannot parse fault "${part}": expected kind=rate, e.g. "http500=0.05"`,
      );
    }
    const [, kind = "", rateText = "", secondsText] = match;
    const rate = rateText.trim() === "" ? Number.NaN : Number(rateText);
    if (!(rate >= 0 && rate <= 1)) {
      throw new RangeError(
        `Cannot parse fault "${part}": rate "${rateText}" is not a number in [0,1]`,
      );
    }
    const fault: Fault = kind === "jitter"
      ? { kind: "jitter", rate: 1, sd: rate }
      : { kind: kind as FaultKind, rate };
    if (secondsText !== undefined) {
      if (kind !== "http429") {
        throw new RangeError(
          `Cannot parse fault "${part}": only http429 takes ":seconds" (its Retry-After)`,
        );
      }
      const seconds = secondsText.trim() === "" ? Number.NaN : Number(secondsText);
      if (!(Number.isInteger(seconds) && seconds >= 0 && seconds <= 3600)) {
        throw new RangeError(
          `Cannot parse fault "${part}": Retry-After "${secondsText}" is not a whole number of seconds in [0,3600]`,
        );
      }
      fault.retryAfterSeconds = seconds;
    }
    faults.push(fault);
    parts.push(part);
  }
  return validateFaults(faults, (i) => `Cannot parse fault "${parts[i]}"`);
}

/**
 * Checks a fault spec given as data (as `parseFaults` does for text).
 *
 * @param faults The faults.
 * @returns The same faults, frozen.
 * @throws {RangeError} On an unknown or repeated kind, a rate outside [0,1], a bad
 * `retryAfterSeconds`, or rates summing above 1.
 */
export function checkFaults(faults: readonly Fault[]): FaultSpec {
  return validateFaults(faults, (i) => `Cannot use fault "${faults[i]?.kind}"`);
}

function validateFaults(faults: readonly Fault[], where: (index: number) => string): FaultSpec {
  const seen = new Set<string>();
  let total = 0;
  for (const [i, fault] of faults.entries()) {
    const at = where(i);
    if (!KIND_SET.has(fault.kind)) {
      throw new RangeError(
        `${at}: unknown kind "${fault.kind}"; known kinds are ${FAULT_KINDS.join(", ")}`,
      );
    }
    if (seen.has(fault.kind)) {
      throw new RangeError(`${at}: "${fault.kind}" is given twice`);
    }
    seen.add(fault.kind);
    if (fault.kind === "jitter") {
      const sd = fault.sd;
      if (!(typeof sd === "number" && Number.isFinite(sd) && sd >= 0 && sd <= 1)) {
        throw new RangeError(`${at}: standard deviation "${sd}" is not a number in [0,1]`);
      }
      // Jitter applies to every answer: it takes no share of the per-request draw.
      continue;
    }
    if (!(Number.isFinite(fault.rate) && fault.rate >= 0 && fault.rate <= 1)) {
      throw new RangeError(
        `${at}: rate "${fault.rate}" is not a number in [0,1]`,
      );
    }
    const seconds = fault.retryAfterSeconds;
    if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 0 && seconds <= 3600)) {
      throw new RangeError(
        `${at}: Retry-After "${seconds}" is not a whole number of seconds in [0,3600]`,
      );
    }
    total += fault.rate;
  }
  if (total > 1 + 1e-9) {
    throw new RangeError(
      `Cannot use faults "${
        faults.filter((fault) => fault.kind !== "jitter").map((fault) =>
          `${fault.kind}=${fault.rate}`
        ).join(",")
      }": the rates sum to ${Number(total.toFixed(6))}, more than 1`,
    );
  }
  return Object.freeze(faults.map((fault): Fault =>
    Object.freeze(
      fault.kind === "jitter"
        ? { kind: fault.kind, rate: 1, sd: fault.sd as number }
        : { ...fault },
    )
  ));
}

/**
 * The fault for the `index`-th decision request (0-based, in arrival order) under `seed`.
 *
 * The draw is a pure function of (seed, index): one uniform number u in [0,1) per request,
 * compared with the faults' cumulative rates in spec order. Sequential runs therefore get the
 * same faults on the same requests; with several requests in flight, which request arrives
 * n-th (and so gets draw n) depends on scheduling.
 *
 * @param faults The fault spec.
 * @param seed A non-negative integer seed.
 * @param index The request's arrival index.
 * @returns The fault, or `undefined` when this request is served normally.
 * @example
 * ```ts
 * import { drawFault, parseFaults } from "./faults.ts";
 * drawFault(parseFaults("http500=1"), 0, 7)?.kind; // "http500"
 * ```
 */
export function drawFault(faults: FaultSpec, seed: number, index: number): Fault | undefined {
  if (faults.length === 0) return undefined;
  const u = unitDraw(seed, index);
  let cumulative = 0;
  for (const fault of faults) {
    if (fault.kind === "jitter") continue;
    cumulative += fault.rate;
    if (u < cumulative) return fault;
  }
  return undefined;
}

/**
 * The jitter a spec asks for.
 *
 * @param faults The fault spec.
 * @returns The standard deviation of `jitter`, or 0 when there is none.
 */
export function jitterOf(faults: FaultSpec): number {
  return faults.find((fault) => fault.kind === "jitter")?.sd ?? 0;
}

/** Draw indices at and above 2^40 are the jitter stream, apart from the per-request fault draws. */
const JITTER_STREAM = 2 ** 40;

/**
 * Adds seeded gaussian noise to a predictor's distributions: each probability p of each question
 * (options in `optionsOf` order; yes/no as `true`, `false`) becomes max(0, p + sd·z), z a standard
 * normal (Box–Muller over {@linkcode unitDraw}), and the question's values are renormalised to
 * sum to 1 (a question whose noisy values are all 0 keeps its answer). The noise depends only on
 * (seed, request index): the same request index always gets the same noise.
 *
 * @param distributions The predictor's distributions.
 * @param questions The questions, in request order.
 * @param options Standard deviation, seed and the request's arrival index.
 * @returns New distributions; the input is not changed.
 * @example
 * ```ts
 * import { jitterDistributions } from "./faults.ts";
 * const questions = { ok: { type: "noul" as const, instructions: "Is it fine?" } };
 * const noisy = jitterDistributions({ ok: { true: 0.8, false: 0.2 } }, questions, {
 *   sd: 0.02,
 *   seed: 1,
 *   index: 0,
 * });
 * if (Math.abs(noisy.ok!.true! + noisy.ok!.false! - 1) > 1e-12) throw new Error("sums to 1");
 * ```
 */
export function jitterDistributions(
  distributions: Distributions,
  questions: Readonly<Record<string, Question>>,
  options: { sd: number; seed: number; index: number },
): Distributions {
  const { sd, seed, index } = options;
  const key = Math.floor(unitDraw(seed, JITTER_STREAM + index) * 0x1_0000_0000);
  let draw = 0;
  const out: Distributions = {};
  for (const name in distributions) {
    const distribution = distributions[name] as Record<string, number>;
    const question = questions[name];
    const keys = question === undefined
      ? Object.keys(distribution)
      : question.type === "noul"
      ? ["true", "false"]
      : optionsOf(question);
    const noisy: Record<string, number> = {};
    let total = 0;
    for (const option of keys) {
      const u1 = 1 - unitDraw(key, draw++);
      const u2 = unitDraw(key, draw++);
      const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
      const p = Math.max(0, (distribution[option] ?? 0) + sd * z);
      noisy[option] = p;
      total += p;
    }
    if (total > 0) {
      for (const option of keys) noisy[option] = (noisy[option] as number) / total;
      out[name] = noisy;
    } else out[name] = { ...distribution };
  }
  return out;
}
