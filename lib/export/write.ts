/**
 * Writing an export: each file atomically under the export root (by default the run directory's
 * `export/` folder), or a single-file format straight to a named file or stdout.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { writeAtomic } from "../record/mod.ts";
import type { ExportFile, ExportResult } from "./types.ts";

/** A file's pieces as bytes (text encoded as UTF-8), produced as they are written. */
async function* bytesOf(file: ExportFile): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for await (const chunk of file.chunks()) {
    yield typeof chunk === "string" ? encoder.encode(chunk) : chunk;
  }
}

/** A file's pieces as bytes, streamed to disk as they are produced. */
function encoded(file: ExportFile): ReadableStream<Uint8Array> {
  return ReadableStream.from(bytesOf(file));
}

/** Options for {@linkcode writeExport}. */
export interface WriteExportOptions {
  /**
   * Where to write. A single-file export writes to this file (`-`: stdout); any export writes
   * its files under this folder when `file` is false.
   * @default undefined (`<run dir>/export`)
   */
  out?: string | undefined;
  /**
   * Whether `out` names the file itself (single-file formats) rather than the export root.
   * @default false
   */
  file?: boolean;
}

/**
 * Writes an export's files, each streamed to a temporary file and renamed into place.
 *
 * @param result The export.
 * @param runDir The run directory (the default root is its `export/` folder).
 * @param options Where to write.
 * @returns The paths written (`-` for stdout).
 * @throws {Error} When a file cannot be written (a read-only or full disk).
 */
export async function writeExport(
  result: ExportResult,
  runDir: string,
  options: WriteExportOptions = {},
): Promise<string[]> {
  if (options.file && options.out !== undefined) {
    const file = result.files[0];
    if (!file || result.files.length !== 1) {
      throw new TypeError(
        `Cannot write the ${result.format} export to one file: it has ${result.files.length}`,
      );
    }
    if (options.out === "-") {
      for await (const bytes of bytesOf(file)) {
        for (let done = 0; done < bytes.length;) {
          done += await Deno.stdout.write(bytes.subarray(done));
        }
      }
      return ["-"];
    }
    await Deno.mkdir(dirname(options.out), { recursive: true });
    await writeAtomic(options.out, encoded(file));
    return [options.out];
  }
  const root = options.out ?? join(runDir, "export");
  const written: string[] = [];
  for (const file of result.files) {
    const path = join(root, ...file.path.split("/"));
    await Deno.mkdir(dirname(path), { recursive: true });
    await writeAtomic(path, encoded(file));
    written.push(path);
  }
  return written;
}
