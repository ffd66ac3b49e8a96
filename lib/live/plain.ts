/**
 * The monitor without a terminal: one line of text per probe, for logs and pipes.
 *
 * @module
 */
import { isConfidentMistake, isUnreachable, type LiveState, qualityFigures } from "./state.ts";
import { clean } from "./_text.ts";

function pct(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

/**
 * The line printed for the latest probe: case, matches, latency and tokens, then the rolling and
 * session figures, the server's request rate when `/metrics` gave one, and the confident mistake
 * or "model unreachable" notice the full-screen view would raise.
 *
 * @param state The state after the probe.
 * @returns One line without a newline (empty before the first probe).
 * @example
 * ```ts
 * import { createLiveState } from "./state.ts";
 * import { probeLine } from "./plain.ts";
 * const meta = { workflow: "w", endpoint: "e", model: "m", intervalSeconds: 0.5, cases: 1, attribution: "a" };
 * probeLine(createLiveState(meta, 0)); // ""
 * ```
 */
export function probeLine(state: LiveState): string {
  const probe = state.latest;
  if (!probe) return "";
  const q = qualityFigures(state);
  const parts = [`#${state.probes} ${clean(probe.caseId)}`];
  if (probe.error) {
    parts.push(`no answer: ${probe.error.kind}: ${clean(probe.error.message)}`);
  } else {
    const matched = probe.records.filter((r) => r.correct === true).length;
    const labelled = probe.records.filter((r) => r.gold !== null).length;
    const latency = probe.latencyMs === null ? "n/a" : `${Math.round(probe.latencyMs)} ms`;
    const tokens = probe.inputTokens === null ? "n/a" : String(probe.inputTokens);
    parts.push(
      `${matched}/${labelled} match gold · ${latency} · ${tokens} input tokens`,
    );
  }
  parts.push(
    `last ${q.windowDecisions}: accuracy ${pct(q.accuracy)} ECE ${
      q.ece === null ? "n/a" : q.ece.toFixed(3)
    } Brier ${q.brier === null ? "n/a" : q.brier.toFixed(3)}`,
    `session ${pct(q.sessionAccuracy)} of ${state.decisions}${
      state.failedProbes ? `, ${state.failedProbes} failed probes` : ""
    }`,
  );
  if (state.server.requestsPerSecond !== null) {
    parts.push(`server ${state.server.requestsPerSecond.toFixed(2)} req/s`);
  }
  const mistakes = probe.records.filter(isConfidentMistake)
    .sort((a, b) => (b.confidence ?? 0) - (a.confidence ?? 0));
  const worst = mistakes[0];
  if (worst) {
    parts.push(
      `confident mistake: ${clean(worst.question)} answered ${clean(worst.answer ?? "")} at ${
        pct(worst.confidence)
      }, gold ${clean(worst.gold ?? "")}`,
    );
  }
  if (isUnreachable(state)) {
    parts.push(`model unreachable: ${state.noAnswerStreak} probes in a row got no answer`);
  }
  return parts.join(" | ");
}

/**
 * The line printed after the full-screen view closes, so the session's figures stay in the
 * terminal's scrollback.
 *
 * @param state The state when the monitor stopped.
 * @returns One line without a newline.
 * @example
 * ```ts
 * import { createLiveState } from "./state.ts";
 * import { sessionSummary } from "./plain.ts";
 * const meta = { workflow: "w", endpoint: "e", model: "m", intervalSeconds: 0.5, cases: 1, attribution: "a" };
 * sessionSummary(createLiveState(meta, 0)); // "decibench live: 0 probes · session accuracy n/a of 0 decisions · …"
 * ```
 */
export function sessionSummary(state: LiveState): string {
  const q = qualityFigures(state);
  return [
    `decibench live: ${state.probes} probes`,
    `session accuracy ${pct(q.sessionAccuracy)} of ${state.decisions} decisions`,
    `last ${q.windowDecisions}: accuracy ${pct(q.accuracy)} ECE ${
      q.ece === null ? "n/a" : q.ece.toFixed(3)
    }`,
    `${state.confidentMistakes} confident mistakes`,
    `${state.failedProbes} failed probes`,
    clean(state.meta.attribution),
  ].join(" · ");
}
