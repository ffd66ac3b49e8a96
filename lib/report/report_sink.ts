/**
 * The run's report sink: each answered case's trace lines are rendered as it comes and appended
 * to a part file in the run directory; when the run ends, `report.md` is written as a stream (the
 * report's head, the part file, its tail), with the report model as `report.json` and
 * `report.html` beside it. No trace is held in memory.
 *
 * @module
 */
import { join } from "node:path";
import { type AnsweredCase, type RunJson, type RunSink, writeAtomic } from "../record/mod.ts";
import { caseTrace, markdownSections } from "./markdown.ts";
import { REPORT_JSON_FILE, type RunReport } from "./model.ts";

/** The part file of `report.md`'s trace in the run directory, removed when the run ends. */
export const TRACE_PART_FILE = "report.trace.part";

/** Writes a run's `report.md` (its trace case by case) and `report.html`. */
export class ReportSink implements RunSink {
  #file: Deno.FsFile | null = null;
  #encoder = new TextEncoder();

  /**
   * A sink for one run directory; nothing is written before `start`.
   *
   * @param dir The run directory.
   * @param reportOf The finished run's report model (summary and breakdowns).
   */
  constructor(readonly dir: string, readonly reportOf: (run: RunJson) => RunReport) {}

  /** Path of the trace's part file. */
  get tracePath(): string {
    return join(this.dir, TRACE_PART_FILE);
  }

  /** Starts an empty trace (a part file left by a killed session is replaced). */
  async start(): Promise<void> {
    this.#file = await Deno.open(this.tracePath, { write: true, create: true, truncate: true });
  }

  /**
   * Appends the case's trace lines (with its state preview) in one write.
   *
   * @param answered The case and its decisions.
   */
  case(answered: AnsweredCase): void {
    if (!this.#file || answered.records.length === 0) return;
    const { item } = answered;
    const bytes = this.#encoder.encode(
      caseTrace(answered.records, item.state, item.questions) + "\n",
    );
    let written = 0;
    while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
  }

  /**
   * Writes `report.json` (the model), `report.md` (head, trace part, tail, streamed into one file)
   * and `report.html`.
   *
   * @param run The final run record.
   */
  async finish(run: RunJson): Promise<void> {
    this.#file?.close();
    this.#file = null;
    const report = this.reportOf(run);
    await writeAtomic(join(this.dir, REPORT_JSON_FILE), JSON.stringify(report) + "\n");
    const { head, tail } = markdownSections(report);
    const trace = await Deno.open(this.tracePath, { read: true });
    const parts: ReadableStream<Uint8Array>[] = [
      ReadableStream.from([this.#encoder.encode(head + "\n")]),
      trace.readable,
      ReadableStream.from([this.#encoder.encode(tail)]),
    ];
    await writeAtomic(join(this.dir, "report.md"), ReadableStream.from(chain(parts)));
    const { htmlReport } = await import("./html.ts");
    await writeAtomic(join(this.dir, "report.html"), htmlReport(report));
  }

  /** Closes and removes the trace's part file. */
  async close(): Promise<void> {
    this.#file?.close();
    this.#file = null;
    await Deno.remove(this.tracePath).catch(() => {});
  }
}

async function* chain(parts: readonly ReadableStream<Uint8Array>[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield* part;
}
