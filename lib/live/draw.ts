/**
 * Draws the live monitor's view: state + terminal size → lines. No I/O and no clock reads: the
 * caller passes the time and writes the lines. Every line fits the terminal's width and there are
 * exactly as many lines as the terminal has rows.
 *
 * @module
 */
import {
  activeBanner,
  CONFIDENT_MISTAKE,
  isUnreachable,
  latencyFigures,
  type LiveState,
  qualityFigures,
  windowHistogram,
} from "./state.ts";
import { LLAMACPP_METRICS } from "./server_load.ts";
import { sparkline } from "./_sparkline.ts";
import { clean, clip, displayWidth, fit } from "./_text.ts";

/** A terminal size in cells (what `Deno.consoleSize()` returns). */
export interface TerminalSize {
  /** Cells per line. */
  columns: number;
  /** Lines. */
  rows: number;
}

/** Options of {@linkcode drawLive}. */
export interface DrawOptions {
  /**
   * The clock, ms (decides whether the banner is still up and the session's age).
   *
   * @default {Date.now()}
   */
  now?: number | undefined;
  /**
   * Colour with SGR sequences (widths stay exact: they take no cells).
   *
   * @default {false}
   */
  color?: boolean | undefined;
}

/** Widest terminal that still gets one column of panels. */
export const TWO_COLUMNS_FROM = 100;

type Paint = (text: string, style: keyof typeof STYLES) => string;

const STYLES = {
  title: "1;36",
  header: "1",
  good: "32",
  bad: "31",
  dim: "2",
  alert: "1;97;41",
  warn: "1;30;43",
} as const;

function painter(color: boolean): Paint {
  return color ? (text, style) => `\x1b[${STYLES[style]}m${text}\x1b[0m` : (text) => text;
}

function pct(value: number | null, digits = 1): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(digits)}%`;
}

function fixed(value: number | null, digits: number): string {
  return value === null ? "n/a" : value.toFixed(digits);
}

function count(value: number): string {
  return Math.round(value).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function ms(value: number | null): string {
  if (value === null) return "n/a";
  return value < 10 ? `${value.toFixed(1)} ms` : `${count(value)} ms`;
}

function age(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => n.toString().padStart(2, "0");
  return h > 0 ? `${h}h${two(m)}m${two(s)}s` : m > 0 ? `${m}m${two(s)}s` : `${s}s`;
}

function title(name: string, detail: string, paint: Paint): string {
  return `${paint(`── ${name}`, "title")}${detail ? ` · ${detail}` : ""}`;
}

function header(state: LiveState, now: number, width: number, paint: Paint): string {
  const { meta } = state;
  const left = `decibench live · workflow ${clean(meta.workflow)} · model ${
    clean(meta.model)
  } · every ${meta.intervalSeconds} s`;
  const right = `probes ${count(state.probes)} · session ${age(now - state.startedAt)}`;
  const gap = width - displayWidth(left) - displayWidth(right);
  if (gap >= 2) return paint(left + " ".repeat(gap) + right, "header");
  return paint(clip(`${right} · ${left}`, width), "header");
}

function bannerLine(state: LiveState, now: number, paint: Paint): string {
  if (isUnreachable(state)) {
    const last = state.lastError;
    const why = last ? ` (${last.kind}: ${clean(last.message)})` : "";
    return paint(
      ` ⚠ model unreachable: ${state.noAnswerStreak} probes in a row got no answer · probing continues${why} `,
      "alert",
    );
  }
  const banner = activeBanner(state, now);
  if (banner) {
    const more = banner.inCase > 1 ? ` · ${banner.inCase} confident mistakes in this case` : "";
    return paint(
      ` ⚠ confident mistake: ${clean(banner.caseId)} · ${
        clean(banner.question)
      } (${banner.type}) answered ${clean(banner.answer)} at ${pct(banner.confidence)}, gold ${
        clean(banner.gold)
      }${more} `,
      "warn",
    );
  }
  return "";
}

function nowPanel(state: LiveState, paint: Paint): string[] {
  const probe = state.latest;
  if (!probe) return [title("now", "waiting for the first answer…", paint)];
  const matched = probe.records.filter((r) => r.correct === true).length;
  const labelled = probe.records.filter((r) => r.gold !== null).length;
  const detail = [
    probe.caseId.startsWith(probe.workflow)
      ? clean(probe.caseId)
      : `${clean(probe.caseId)} (${clean(probe.workflow)})`,
    probe.error ? paint("no answer", "bad") : `${matched}/${labelled} match gold`,
    `latency ${ms(probe.latencyMs)}`,
    `${probe.inputTokens === null ? "n/a" : count(probe.inputTokens)} input tokens`,
  ].join(" · ");
  const lines = [title("now", detail, paint)];
  lines.push(`  ${paint("state", "dim")} ${clean(probe.statePreview)}`);
  if (probe.error) {
    const tries = probe.attempts === 1 ? "1 attempt" : `${probe.attempts} attempts`;
    lines.push(
      `  ${paint("✗", "bad")} ${probe.error.kind}: ${clean(probe.error.message)} (${tries})`,
    );
    return lines;
  }
  const nameWidth = Math.max(...probe.records.map((r) => displayWidth(clean(r.question))), 8);
  for (const record of probe.records) {
    // A decision without gold (unlabelled) is neither right nor wrong.
    const mark = record.gold === null
      ? paint("·", "dim")
      : record.correct
      ? paint("✓", "good")
      : paint("✗", "bad");
    const top = (record.confidence ?? 0) >= CONFIDENT_MISTAKE && record.correct === false
      ? paint(pct(record.confidence, 0).padStart(4), "bad")
      : pct(record.confidence, 0).padStart(4);
    const gold = record.correct || record.gold === null
      ? ""
      : `  ${paint("gold", "dim")} ${clean(record.gold)}`;
    lines.push(
      `  ${mark} ${fit(clean(record.question), nameWidth)}  ${record.type.padEnd(6)}  ${top}  ${
        clean(record.answer ?? "—")
      }${gold}`,
    );
  }
  return lines;
}

function qualityPanel(state: LiveState, width: number, paint: Paint): string[] {
  const q = qualityFigures(state);
  const label = (name: string) => name.padEnd(10);
  const trendWidth = Math.max(0, width - 19);
  const eceMax = Math.max(0.1, ...state.trend.ece.slice(-trendWidth).map((v) => v ?? 0));
  const errors = q.windowErrors ? ` · ${q.windowErrors} errors counted as misses` : "";
  return [
    title("quality", `last ${q.windowDecisions} decisions${errors}`, paint),
    `${label("accuracy")}${pct(q.accuracy).padStart(6)}  ${
      sparkline(state.trend.accuracy, trendWidth)
    }`,
    `${label("ECE")}${fixed(q.ece, 3).padStart(6)}  ${
      sparkline(state.trend.ece, trendWidth, { max: eceMax })
    }`,
    `${label("Brier")}${fixed(q.brier, 3).padStart(6)}  mean confidence ${pct(q.meanConfidence)}`,
    `${label("session")}${pct(q.sessionAccuracy).padStart(6)}  of ${
      count(state.decisions)
    } decisions${state.errors ? ` (${count(state.errors)} errors)` : ""}`,
    `confident mistakes (wrong at ≥ 90%)  ${
      q.confidentMistakes ? paint(count(q.confidentMistakes), "bad") : "0"
    }`,
  ];
}

function typePanel(state: LiveState, width: number, paint: Paint): string[] {
  const barWidth = Math.max(0, Math.min(20, width - 32));
  const lines = [title("by question type", "session accuracy", paint)];
  for (const type of ["noul", "choice", "score"] as const) {
    const tally = state.byType[type];
    const share = tally.decisions ? tally.correct / tally.decisions : null;
    const filled = share === null ? 0 : Math.round(share * barWidth);
    const bar = barWidth ? `${"█".repeat(filled)}${"░".repeat(barWidth - filled)}  ` : "";
    lines.push(
      `${type.padEnd(8)}${bar}${pct(share).padStart(6)}  of ${count(tally.decisions)}`,
    );
  }
  return lines;
}

function histogramPanel(state: LiveState, width: number, paint: Paint): string[] {
  const bins = windowHistogram(state);
  const total = bins.reduce((n, b) => n + b.count, 0);
  const most = Math.max(1, ...bins.map((b) => b.count));
  const barWidth = Math.max(1, width - 26);
  const lines = [title("confidence", `last ${total} answered decisions`, paint)];
  for (const bin of bins) {
    const bar = "█".repeat(Math.round((bin.count / most) * barWidth));
    const acc = bin.count ? `acc ${pct(bin.correct / bin.count, 0)}` : "";
    lines.push(
      `${bin.lower.toFixed(1)}–${bin.upper.toFixed(1)} ${fit(bar, barWidth)} ${
        String(bin.count).padStart(3)
      } ${acc}`,
    );
  }
  return lines;
}

function serverPanel(state: LiveState, paint: Paint): string[] {
  const latency = latencyFigures(state);
  const load = state.server;
  const lines = [
    title("server", clean(state.meta.endpoint), paint),
    `latency p50 ${ms(latency.p50)} · p95 ${ms(latency.p95)}`,
    `input tokens sent ${count(state.inputTokens)} in ${count(state.probes)} probe${
      state.probes === 1 ? "" : "s"
    }`,
  ];
  if (load.url === null) lines.push(paint("/metrics off: latency and tokens only", "dim"));
  else if (load.status === "waiting") {
    lines.push(paint("/metrics: waiting for the first scrape", "dim"));
  } else if (load.status === "unavailable") {
    lines.push(
      paint(`/metrics unavailable: ${clean(load.reason ?? "")} · latency and tokens only`, "dim"),
    );
  } else {
    const values = load.last?.values ?? {};
    const gauge = (name: string, digits: number) =>
      values[name] === undefined ? "n/a" : fixed(values[name] as number, digits);
    const rate = (value: number | null, digits: number) =>
      value === null ? "…" : value >= 1000 ? count(value) : value.toFixed(digits);
    lines.push(
      `requests/s ${rate(load.requestsPerSecond, 2)} · input tokens/s ${
        rate(load.inputTokensPerSecond, 0)
      }`,
      `busy slots ${gauge(LLAMACPP_METRICS.busySlots, 2)} · processing ${
        gauge(LLAMACPP_METRICS.processing, 0)
      } · queued ${gauge(LLAMACPP_METRICS.deferred, 0)}${
        load.restarts ? ` · ${load.restarts} restart${load.restarts === 1 ? "" : "s"} seen` : ""
      }`,
    );
  }
  if (state.failedProbes > 0) {
    const last = state.lastError;
    lines.push(
      paint(
        `failed probes ${count(state.failedProbes)} of ${count(state.probes)}${
          last ? ` · last ${last.kind}: ${clean(last.message)}` : ""
        }`,
        "bad",
      ),
    );
  }
  return lines;
}

/** Stacks whole panels, separated by a blank line, while they fit in `rows`. */
function stack(panels: readonly string[][], rows: number): { lines: string[]; hidden: number } {
  const lines: string[] = [];
  let hidden = 0;
  for (const panel of panels) {
    const need = panel.length + (lines.length ? 1 : 0);
    if (lines.length + need > rows) {
      hidden++;
      continue;
    }
    if (lines.length) lines.push("");
    lines.push(...panel);
  }
  return { lines, hidden };
}

/** The panels under "now": two columns from `TWO_COLUMNS_FROM` cells, one column below that. */
function panelsBelow(
  state: LiveState,
  width: number,
  rows: number,
  paint: Paint,
): { lines: string[]; hidden: number } {
  if (width < TWO_COLUMNS_FROM) {
    return stack([
      qualityPanel(state, width, paint),
      serverPanel(state, paint),
      typePanel(state, width, paint),
      histogramPanel(state, width, paint),
    ], rows);
  }
  const gap = 3;
  const leftWidth = Math.floor((width - gap) / 2);
  const rightWidth = width - gap - leftWidth;
  const left = stack([qualityPanel(state, leftWidth, paint), serverPanel(state, paint)], rows);
  const right = stack([
    histogramPanel(state, rightWidth, paint),
    typePanel(state, rightWidth, paint),
  ], rows);
  const lines: string[] = [];
  for (let i = 0; i < Math.max(left.lines.length, right.lines.length); i++) {
    lines.push(
      `${fit(left.lines[i] ?? "", leftWidth)}${" ".repeat(gap)}${
        clip(right.lines[i] ?? "", rightWidth)
      }`,
    );
  }
  return { lines, hidden: left.hidden + right.hidden };
}

/**
 * Draws the whole view: a header, the banner line, the panels (now; quality; server; by question
 * type; confidence histogram) and a footer with the keys and the dataset credit. From 100 columns
 * the panels under "now" sit in two columns. Panels that do not fit the height are left out and
 * the last body line says how many; the footer takes two lines when the credit and keys do not
 * fit on one.
 *
 * @param state The monitor's state.
 * @param size The terminal size.
 * @param options Clock and colour.
 * @returns Exactly `size.rows` lines (none when there are no rows), none wider than
 *   `size.columns` cells.
 * @example
 * ```ts
 * import { createLiveState } from "./state.ts";
 * import { drawLive } from "./draw.ts";
 * const state = createLiveState({
 *   workflow: "reference", endpoint: "http://127.0.0.1:8080/v1/systemone", model: "m",
 *   intervalSeconds: 0.5, cases: 400, attribution: "Typed Decisions",
 * }, 0);
 * const lines = drawLive(state, { columns: 80, rows: 24 }, { now: 0 });
 * lines.length; // 24
 * ```
 */
export function drawLive(
  state: LiveState,
  size: TerminalSize,
  options: DrawOptions = {},
): string[] {
  const width = Math.max(0, Math.floor(size.columns));
  const rows = Math.max(0, Math.floor(size.rows));
  const now = options.now ?? Date.now();
  const paint = painter(options.color ?? false);
  if (rows === 0) return [];
  if (width < 20 || rows < 5) {
    const lines = [clip("decibench live: terminal too small", width)];
    while (lines.length < rows) lines.push("");
    return lines.slice(0, rows);
  }
  const keys = "Ctrl+R reset · Ctrl+C quit";
  const credit = `data: ${clean(state.meta.attribution)}`;
  const footer = displayWidth(`${keys} · ${credit}`) <= width
    ? [paint(`${keys} · ${credit}`, "dim")]
    : [paint(credit, "dim"), paint(keys, "dim")];
  const bodyRows = rows - 2 - footer.length;
  const now_ = nowPanel(state, paint).slice(0, bodyRows);
  const rest = bodyRows - now_.length - 1;
  let below = panelsBelow(state, width, rest, paint);
  if (below.hidden > 0) {
    below = panelsBelow(state, width, rest - 1, paint);
    const n = below.hidden;
    const note = paint(`${n} panel${n === 1 ? "" : "s"} hidden: enlarge the terminal`, "dim");
    below.lines.push(...Array(Math.max(0, rest - 1 - below.lines.length)).fill(""), note);
  }
  const body = below.lines.length && rest > 0 ? [...now_, "", ...below.lines] : now_;
  while (body.length < bodyRows) body.push("");
  return [
    header(state, now, width, paint),
    bannerLine(state, now, paint),
    ...body.slice(0, bodyRows),
    ...footer,
  ].map((line) => clip(line.trimEnd(), width));
}
