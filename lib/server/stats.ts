/**
 * The reference server's counters and their Prometheus text under llama.cpp's metric names.
 *
 * @module
 */
import type { FaultKind } from "./faults.ts";

/** A snapshot of what the reference server has done since it started. */
export interface ServerStats {
  /** HTTP requests received on any route. */
  requests: number;
  /** Requests to a decision route (`POST /v1/systemone` or an emulated envelope's route). */
  decisionRequests: number;
  /** Decision requests answered with a 200 and answers (including corrupted-answer faults). */
  answered: number;
  /** Decision requests answered with an error status or not answered at all. */
  refused: number;
  /** Injected faults by kind. */
  faults: Partial<Record<FaultKind, number>>;
  /** Input tokens of answered requests (the `usage.input_tokens` sum). */
  promptTokens: number;
  /** Forward passes: one per answered request. */
  decodes: number;
  /** Decision requests in flight now (processed or waiting for a slot). */
  processing: number;
  /** Decision requests waiting for a slot now (only with `slots`). */
  deferred: number;
  /** Decision requests that had to wait for a slot, since the start. */
  deferredTotal: number;
  /** Sum over decodes of the requests holding a slot at that decode. */
  busySlotsTotal: number;
}

/**
 * Creates zeroed counters.
 *
 * @returns Fresh stats.
 */
export function emptyStats(): ServerStats {
  return {
    requests: 0,
    decisionRequests: 0,
    answered: 0,
    refused: 0,
    faults: {},
    promptTokens: 0,
    decodes: 0,
    processing: 0,
    deferred: 0,
    deferredTotal: 0,
    busySlotsTotal: 0,
  };
}

/**
 * Copies stats so a caller's snapshot does not change under it.
 *
 * @param stats The live stats.
 * @returns A copy.
 */
export function snapshotStats(stats: ServerStats): ServerStats {
  return { ...stats, faults: { ...stats.faults } };
}

interface Metric {
  name: string;
  type: "counter" | "gauge";
  help: string;
  value: (stats: ServerStats) => number;
}

const METRICS: readonly Metric[] = [
  {
    name: "llamacpp:prompt_tokens_total",
    type: "counter",
    help: "Input tokens processed (estimated from the request's state and questions).",
    value: (s) => s.promptTokens,
  },
  {
    name: "llamacpp:tokens_predicted_total",
    type: "counter",
    help: "Tokens generated (always 0: decision models answer without generating).",
    value: () => 0,
  },
  {
    name: "llamacpp:n_decode_total",
    type: "counter",
    help: "Forward passes run (one per answered decision request).",
    value: (s) => s.decodes,
  },
  {
    name: "llamacpp:n_busy_slots_per_decode",
    type: "gauge",
    help: "Mean number of requests in flight per forward pass.",
    value: (s) => (s.decodes === 0 ? 0 : s.busySlotsTotal / s.decodes),
  },
  {
    name: "llamacpp:requests_processing",
    type: "gauge",
    help: "Decision requests being processed now.",
    value: (s) => s.processing - s.deferred,
  },
  {
    name: "llamacpp:requests_deferred",
    type: "gauge",
    help: "Decision requests waiting for a free slot (only a server started with slots queues).",
    value: (s) => s.deferred,
  },
  {
    name: "llamacpp:decision_requests_refused_total",
    type: "counter",
    help:
      "Decision requests answered with an error status or not answered (injected faults included).",
    value: (s) => s.refused,
  },
];

/**
 * Renders stats as Prometheus text exposition (format 0.0.4) with llama.cpp's metric names.
 *
 * @param stats The stats.
 * @returns The text, one `# HELP`, `# TYPE` and sample line per metric.
 * @example
 * ```ts
 * import { emptyStats, prometheusText } from "./stats.ts";
 * prometheusText(emptyStats()).includes("llamacpp:n_decode_total 0"); // true
 * ```
 */
export function prometheusText(stats: ServerStats): string {
  let text = "";
  for (const metric of METRICS) {
    text +=
      `# HELP ${metric.name} ${metric.help}\n# TYPE ${metric.name} ${metric.type}\n${metric.name} ${
        metric.value(stats)
      }\n`;
  }
  return text;
}
