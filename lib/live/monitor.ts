/**
 * The live monitor loop: probe one case at a time in a fixed seeded order, scrape `/metrics`,
 * move the state on and show it — full screen on a terminal, one line per probe otherwise.
 *
 * @module
 */
import { parseBaseUrl, safeUrl, watchReplies } from "../client/mod.ts";
import { attribution, type Case } from "../dataset/mod.ts";
import { shuffle } from "../metrics/mod.ts";
import {
  loadCases,
  type PreparedEndpoint,
  prepareEndpoint,
  type Workflow,
} from "../workflow/mod.ts";
import { drawLive, type TerminalSize } from "./draw.ts";
import { keyActions } from "./keys.ts";
import { probeLine, sessionSummary } from "./plain.ts";
import { probeCase, type ProbeResult, scrapeMetrics } from "./probe.ts";
import { openScreen, type Screen } from "./_screen.ts";
import { metricsUrlFor } from "./server_load.ts";
import {
  addFailedScrape,
  addProbe,
  addScrape,
  createLiveState,
  type LiveState,
  resetSession,
} from "./state.ts";

/** Pause before scraping `/metrics` again after a failed scrape, ms. */
const SCRAPE_BACKOFF_MS = 10_000;
/** How often the screen is redrawn between probes (banner expiry, session age), ms. */
const TICK_MS = 1000;

/** Options of {@linkcode runMonitor}. */
export interface MonitorOptions {
  /**
   * Overrides the endpoint's base URL (`--base-url`); the embedded reference server is not started.
   *
   * @default {undefined}
   */
  baseUrl?: string | undefined;
  /**
   * The `/metrics` URL (`--metrics-url`); `"off"` turns scraping off.
   *
   * @default {the server's root `/metrics`}
   */
  metricsUrl?: string | undefined;
  /**
   * Pause between probes in seconds (`--interval`).
   *
   * @default {0.5}
   */
  intervalSeconds?: number | undefined;
  /**
   * Seed of the case order (`--seed`).
   *
   * @default {the workflow's seed}
   */
  seed?: number | undefined;
  /**
   * Stop after this many probes (`--probes`).
   *
   * @default {Infinity}
   */
  probes?: number | undefined;
  /**
   * Extra attempts after a transient failure (`--retries`). The monitor shows failures rather
   * than hiding them, so by default the next probe is the retry.
   *
   * @default {0}
   */
  retries?: number | undefined;
  /**
   * Full screen (true) or one line per probe (false).
   *
   * @default {Deno.stdout.isTerminal()}
   */
  fullScreen?: boolean | undefined;
  /**
   * Stops the monitor (the exit status is then 0).
   *
   * @default {undefined}
   */
  signal?: AbortSignal | undefined;
  /**
   * Reads environment variables (the API key).
   *
   * @default {Deno.env.get}
   */
  env?: ((name: string) => string | undefined) | undefined;
  /**
   * Writes one line in line mode.
   *
   * @default {console.log}
   */
  writeLine?: (line: string) => void | undefined;
}

/** How the monitor ended. */
export interface MonitorResult {
  /** Exit status: 0 when stopped by the user or after `probes`, 1 when the server cannot be monitored. */
  code: number;
  /** Why it stopped, when it was not the user's choice; print it on stderr. */
  message: string | null;
  /** Probes sent. */
  probes: number;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(id);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const id = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function fatalMessage(endpoint: PreparedEndpoint, result: ProbeResult): string {
  const error = result.probe.error;
  const url = safeUrl(endpoint.engine.url);
  const status = error?.status ?? null;
  const http = status ? ` (HTTP ${status})` : "";
  if (error?.kind === "unsupported_endpoint") {
    return `Cannot monitor "${url}": the server does not serve decision models${http}; ` +
      `llama.cpp's llama-server serves them at /v1/systemone from b11361 with a decision model ` +
      `loaded — check --base-url and the server version`;
  }
  if (error?.kind === "authentication") {
    // The transport's message names the key variable used or missing, and the fix.
    return error.message.replace(/^Cannot authenticate to /, "Cannot monitor ");
  }
  return `Cannot monitor "${url}": ${error?.message ?? "the server refused the request"}`;
}

function terminalSize(): TerminalSize {
  try {
    return Deno.consoleSize();
  } catch {
    return { columns: 80, rows: 24 };
  }
}

function resolveMetricsUrl(option: string | undefined, baseUrl: string): string | null {
  if (option === "off") return null;
  if (option === undefined) return metricsUrlFor(baseUrl);
  try {
    return safeUrl(parseBaseUrl(option));
  } catch (error) {
    throw new TypeError(
      `Cannot use --metrics-url "${safeUrl(option)}": ${(error as Error).message}`,
    );
  }
}

/**
 * Runs the live monitor on a workflow's (first) endpoint until the user stops it. The first probe
 * is sent before anything is drawn: a server that does not serve `/v1/systemone` (404, 405, 501)
 * or refuses the key ends the monitor there with a message. Later failures are shown and probing
 * goes on; three probes in a row without an answer show "model unreachable".
 *
 * @param workflow The validated workflow.
 * @param options Overrides, interval, seed, output mode, stop signal.
 * @returns The exit status and the message to print, if any.
 * @throws {DatasetIntegrityError} When the vendored dataset fails its check.
 * @throws {TypeError} When a URL is invalid.
 */
export async function runMonitor(
  workflow: Workflow,
  options: MonitorOptions = {},
): Promise<MonitorResult> {
  const spec = workflow.endpoint ?? workflow.endpoints?.[0];
  if (!spec) throw new TypeError("Cannot monitor: the workflow has no endpoint");
  const intervalMs = (options.intervalSeconds ?? 0.5) * 1000;
  const maxProbes = options.probes ?? Infinity;
  const writeLine = options.writeLine ?? ((line: string) => console.log(line));
  const { dataset, cases } = await loadCases(workflow);
  const order = shuffle(cases, options.seed ?? workflow.seed);
  const endpoint = await prepareEndpoint(spec, {
    baseUrl: options.baseUrl,
    env: options.env,
    questionSet: dataset,
  });
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const onSignal = () => stop.abort();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const name of signals) Deno.addSignalListener(name, onSignal);
  let screen: Screen | null = null;
  let finalState: LiveState | null = null;
  const cleanups: (() => void)[] = [];
  try {
    const metricsUrl = resolveMetricsUrl(options.metricsUrl, endpoint.baseUrl);
    const endpointUrl = endpoint.engine.url;
    const sameOrigin = metricsUrl !== null &&
      new URL(metricsUrl).origin === new URL(endpointUrl).origin;
    let state: LiveState = createLiveState(
      {
        workflow: workflow.name,
        endpoint: safeUrl(endpointUrl),
        model: endpoint.model,
        intervalSeconds: intervalMs / 1000,
        cases: order.length,
        attribution: attribution(dataset.info),
      },
      Date.now(),
      { metricsUrl },
    );
    let nextScrape = 0;
    let sent = 0;
    let answered = 0;
    let lastError = null as string | null; // set inside step()
    let session = 0;
    // A server answering 200 with something else (a web page) stops the monitor.
    const replies = watchReplies(endpoint.engine.name, safeUrl(endpointUrl), { action: "monitor" });

    const scrape = async (): Promise<void> => {
      if (metricsUrl === null || Date.now() < nextScrape) return;
      try {
        const values = await scrapeMetrics(metricsUrl, {
          ...(sameOrigin && endpoint.apiKey !== undefined ? { apiKey: endpoint.apiKey } : {}),
          signal,
        });
        state = addScrape(state, { at: Date.now(), values });
      } catch (error) {
        if (signal.aborted) return;
        state = addFailedScrape(state, error instanceof Error ? error.message : String(error));
        nextScrape = Date.now() + SCRAPE_BACKOFF_MS;
      }
    };

    /** Sends the next probe; returns the fatal message, if any. */
    const step = async (): Promise<string | null> => {
      const item = order[sent % order.length] as Case;
      sent++;
      const generation = session;
      let result: ProbeResult;
      try {
        result = await probeCase(endpoint, item, { signal, retries: options.retries ?? 0 });
      } catch (error) {
        if (signal.aborted) return null;
        throw error;
      }
      if (result.fatal) return fatalMessage(endpoint, result);
      const notAServer = replies.observe(result.outcome);
      if (notAServer !== null) return notAServer;
      if (result.probe.error === null) answered++;
      else lastError = `${result.probe.error.kind}: ${result.probe.error.message}`;
      if (generation === session) state = addProbe(state, result.probe, Date.now());
      await scrape();
      finalState = state;
      return null;
    };

    const fullScreen = options.fullScreen ?? Deno.stdout.isTerminal();
    if (fullScreen) console.error(`decibench live: first probe to "${safeUrl(endpointUrl)}"…`);
    const first = await step();
    if (first !== null) return { code: 1, message: first, probes: sent };
    if (signal.aborted) return { code: 0, message: null, probes: sent };

    let render: (full?: boolean) => void;
    if (fullScreen) {
      const opened = openScreen();
      screen = opened;
      render = (full = false) => {
        opened.show(drawLive(state, terminalSize(), { now: Date.now(), color: useColor() }), full);
      };
      const tick = setInterval(() => render(), TICK_MS);
      cleanups.push(() => clearInterval(tick));
      if (Deno.build.os !== "windows") {
        const onResize = () => render(true);
        Deno.addSignalListener("SIGWINCH", onResize);
        cleanups.push(() => Deno.removeSignalListener("SIGWINCH", onResize));
      }
      if (opened.raw) {
        readKeys((action) => {
          if (action === "quit") stop.abort();
          else {
            session++;
            state = resetSession(state, Date.now());
            render();
          }
        }, signal);
      }
    } else {
      render = () => writeLine(probeLine(state));
    }
    render();

    while (!signal.aborted && sent < maxProbes) {
      await sleep(intervalMs, signal);
      if (signal.aborted) break;
      const fatal = await step();
      if (fatal !== null) return { code: 1, message: fatal, probes: sent };
      if (!signal.aborted) render();
    }
    if (!signal.aborted && answered === 0) {
      // `--probes N` reached and not one answer: the monitor saw no model.
      return {
        code: 1,
        message: `Cannot monitor "${
          safeUrl(endpointUrl)
        }": none of the ${sent} probes got an answer${
          lastError
            ? ` (last: ${lastError.replace(/Cannot reach "[^"]*": | from "[^"]*"/, "")})`
            : ""
        }`,
        probes: sent,
      };
    }
    return { code: 0, message: null, probes: sent };
  } finally {
    for (const cleanup of cleanups) cleanup();
    if (screen) {
      screen.restore();
      if (finalState) writeLine(sessionSummary(finalState));
    }
    // One Ctrl+C can arrive twice (the terminal's process group, and `deno task` forwarding it):
    // keep absorbing it for a moment, so a late copy does not kill the process with 130.
    const late = setTimeout(() => {
      for (const name of signals) Deno.removeSignalListener(name, onSignal);
    }, 500);
    Deno.unrefTimer(late);
    stop.abort();
    await endpoint.close();
  }
}

function useColor(): boolean {
  const noColor = Deno.env.get("NO_COLOR");
  return noColor === undefined || noColor === "";
}

function readKeys(onAction: (action: "reset" | "quit") => void, signal: AbortSignal): void {
  const buffer = new Uint8Array(256);
  (async () => {
    while (!signal.aborted) {
      let n: number | null;
      try {
        n = await Deno.stdin.read(buffer);
      } catch {
        return;
      }
      if (n === null) return;
      if (signal.aborted) return;
      for (const action of keyActions(buffer.subarray(0, n))) onAction(action);
    }
  })();
}
