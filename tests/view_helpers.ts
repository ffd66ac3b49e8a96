// Helpers for the view and export tests: real `deno task bench` runs into a runs folder with an
// index, a copy of the vendored dataset with hostile states, raw HTTP requests (paths a fetch()
// would normalise), and reading the numbers a page shows.
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { gzip, sha256Hex } from "../lib/bytes.ts";
import type { RunJson } from "../lib/record/mod.ts";
import { readRunJson, ROOT, runScript } from "./bench_cli_helpers.ts";

/** A bench run made for a test. */
export interface MadeRun {
  /** Run directory. */
  dir: string;
  /** Its run.json. */
  run: RunJson;
}

/** Options for {@linkcode benchRun}. */
export interface BenchRunOptions {
  /** Reference predictor (`fitted` uses workflows/reference.ts). @default "fitted" */
  predictor?: string;
  /** `--limit`. @default undefined (all 400 cases) */
  limit?: number;
  /** The index (`--db`); null for `--no-db`. @default "<runs>/decibench.db" */
  db?: string | null;
  /** Extra environment (e.g. `DECIBENCH_DATASET_DIR`). @default {} */
  env?: Record<string, string>;
  /** Extra reference-server settings for the workflow, e.g. `{ faults: "http500=0.1" }`. */
  reference?: Record<string, unknown>;
  /** `retries` of the endpoint. @default 2 */
  retries?: number;
  /** Workflow thresholds, e.g. `[{ metric: "accuracy", op: ">=", limit: 0.9 }]`. @default [] */
  thresholds?: { metric: string; op: string; limit: number }[];
}

/**
 * Runs `deno run -A scripts/bench.ts` into `<runs>/<name>` against the embedded reference server.
 *
 * @param runs The runs folder.
 * @param name The run directory's name.
 * @param options Predictor, limit, index, environment.
 * @returns The run directory and its run.json.
 * @throws {Error} When bench fails to write a run.
 */
export async function benchRun(
  runs: string,
  name: string,
  options: BenchRunOptions = {},
): Promise<MadeRun> {
  const dir = join(runs, name);
  const predictor = options.predictor ?? "fitted";
  const args: string[] = [];
  if (
    predictor !== "fitted" || options.reference || options.retries !== undefined ||
    options.thresholds
  ) {
    const file = join(runs, `${name}.workflow.ts`);
    const reference = { predictor, ...options.reference };
    await Deno.writeTextFile(
      file,
      `export default ${
        JSON.stringify({
          name: predictor,
          endpoint: {
            name: predictor,
            reference,
            model: "decibench-reference",
            retries: options.retries ?? 2,
          },
          parallel: 8,
          thresholds: options.thresholds ?? [],
        })
      };\n`,
    );
    args.push(file);
  }
  if (options.limit !== undefined) args.push("--limit", String(options.limit));
  args.push("--out", dir);
  if (options.db === null) args.push("--no-db");
  else args.push("--db", options.db ?? join(runs, "decibench.db"));
  const bench = await runScript("bench.ts", args, options.env ?? {});
  if (bench.code !== 0 && bench.code !== 1) {
    throw new Error(`bench exited ${bench.code}: ${bench.stderr}`);
  }
  return { dir, run: await readRunJson(dir) };
}

/** Text that must never run when a page shows it. */
export const HOSTILE_TEXT = [
  `<script>window.__pwned = "script";</script>`,
  `<img src=x onerror="window.__pwned = 'img'">`,
  `"><svg onload="window.__pwned = 'svg'"></svg>`,
  `</pre><script>window.__pwned = "pre"</script>`,
];

/**
 * Writes a copy of the vendored dataset whose first case of every workflow has hostile markup
 * in its state (and a revision of its own, so the pinned hashes do not apply).
 *
 * @param dir Where to write it.
 * @returns The folder, for `DECIBENCH_DATASET_DIR`, and the ids of the hostile cases.
 */
export async function hostileDataset(dir: string): Promise<{ dir: string; cases: string[] }> {
  const vendor = join(ROOT, "vendor", "typed-decisions");
  await Deno.mkdir(dir, { recursive: true });
  const manifest = JSON.parse(await Deno.readTextFile(join(vendor, "manifest.json")));
  const gz = await Deno.readFile(join(vendor, "test.jsonl.gz"));
  const text = await new Response(
    new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
  const seen = new Set<string>();
  const cases: string[] = [];
  const lines = text.slice(0, -1).split("\n").map((line) => {
    const row = JSON.parse(line);
    if (seen.has(row.workflow)) return line;
    seen.add(row.workflow);
    cases.push(row.id);
    row.state = { note: HOSTILE_TEXT.join(" "), original: row.state };
    return JSON.stringify(row);
  });
  const jsonl = lines.join("\n") + "\n";
  const bytes = new TextEncoder().encode(jsonl);
  await Deno.writeFile(join(dir, "test.jsonl.gz"), await gzip(bytes));
  await Deno.copyFile(join(vendor, "train.jsonl.gz"), join(dir, "train.jsonl.gz"));
  manifest.revision = "0".repeat(40);
  manifest.splits.test.sha256 = await sha256Hex(bytes);
  await Deno.writeTextFile(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
  return { dir, cases };
}

/** A raw HTTP response. */
export interface RawResponse {
  /** Status code. */
  status: number;
  /** Body text. */
  body: string;
}

/**
 * Sends one GET with the request target exactly as given (a fetch() would normalise `..`).
 *
 * @param base The server's base URL.
 * @param target The request target, e.g. `/runs/../../etc/passwd`.
 * @param host The Host header. @default the base URL's host
 * @returns Status and body.
 */
export async function rawGet(base: string, target: string, host?: string): Promise<RawResponse> {
  const url = new URL(base);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const request = `GET ${target} HTTP/1.1\r\nHost: ${
      host ?? url.host
    }\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(request));
    const text = await new Response(conn.readable).text();
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } catch (error) {
    try {
      conn.close();
    } catch {
      // already closed
    }
    throw error;
  }
}

/** The part of a DOM element the tests use (linkedom implements it). */
export interface PageElement {
  /** Attribute value, or null. */
  getAttribute(name: string): string | null;
  /** First matching descendant. */
  querySelector(selector: string): PageElement | null;
  /** Matching descendants. */
  querySelectorAll(selector: string): Iterable<PageElement>;
  /** Text content. */
  textContent: string | null;
  /** A copy. */
  cloneNode(deep: boolean): PageElement;
  /** Removes the element from its parent. */
  remove(): void;
}

/** A parsed page (linkedom's DOM). */
export interface PageDocument extends PageElement {
  /** The element with an id. */
  getElementById(id: string): PageElement | null;
}

/**
 * Parses a page into a DOM to query.
 *
 * @param html The page.
 * @returns Its document.
 */
export function dom(html: string): PageDocument {
  return (parseHTML(html) as unknown as { document: PageDocument }).document;
}

/** An element that carries a metric: its `data-metric`, raw `data-value` and shown text. */
export interface MetricCell {
  /** Metric name. */
  metric: string;
  /** The raw value ("" for n/a). */
  value: string;
  /** The value as shown (the interval and labels left out). */
  text: string;
}

/**
 * The elements carrying `data-metric` under a root, in document order.
 *
 * @param root A document or element.
 * @returns The cells.
 */
export function metricCells(root: PageElement): MetricCell[] {
  return [...root.querySelectorAll("[data-metric]")].map((el) => {
    const shown = el.querySelector("b") ?? el;
    const clone = shown.cloneNode(true);
    for (const ci of clone.querySelectorAll(".ci, .label, .extra")) ci.remove();
    return {
      metric: el.getAttribute("data-metric") ?? "",
      value: el.getAttribute("data-value") ?? "",
      text: (clone.textContent ?? "").replace(/\s+/g, " ").trim(),
    };
  });
}

/**
 * The body rows of the table with an id, as text cells (whitespace collapsed).
 *
 * @param doc The page.
 * @param id The table's id.
 * @returns The rows.
 */
export function tableRows(doc: PageDocument, id: string): string[][] {
  const table = doc.getElementById(id);
  if (!table) return [];
  return [...table.querySelectorAll("tbody tr")].map((tr) =>
    [...tr.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").replace(/\s+/g, " ").trim())
  );
}
