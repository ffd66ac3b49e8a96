/**
 * Byte helpers shared by the dataset, the model files and the run records: deterministic gzip,
 * gunzip, sha256, and atomic file writes.
 *
 * @module
 */

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Gzips bytes deterministically: the same input gives the same output on every run (the stream
 * writes mtime 0, and the input is written as one chunk, because chunk boundaries change the
 * compressed bytes).
 *
 * @param data The bytes.
 * @returns The gzip file.
 */
export async function gzip(data: Uint8Array): Promise<Uint8Array> {
  const stream = new CompressionStream("gzip");
  const writer = stream.writable.getWriter();
  const result = collect(stream.readable);
  await writer.write(data as Uint8Array<ArrayBuffer>);
  await writer.close();
  return await result;
}

/**
 * Decompresses a gzip file.
 *
 * @param data The gzip bytes.
 * @returns The decompressed bytes.
 * @throws {TypeError} When the data is truncated or corrupt (the stream's own error).
 */
export async function gunzip(data: Uint8Array): Promise<Uint8Array> {
  const body = new Blob([data as Uint8Array<ArrayBuffer>]).stream();
  return await collect(body.pipeThrough(new DecompressionStream("gzip")));
}

/**
 * The sha256 of bytes or of a string's UTF-8 encoding, lowercase hex.
 *
 * @param data The bytes, or text to hash as UTF-8.
 * @returns 64 hex digits.
 */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Writes a file atomically: a temp file beside it, then rename. On failure the temp file is
 * removed and the error rethrown.
 *
 * @param path Target path.
 * @param content Text (written as UTF-8), bytes, or a stream of bytes (written as it comes).
 * @throws {Deno.errors.NotFound} When the folder does not exist (and other file-system errors).
 */
export async function writeAtomic(
  path: string,
  content: string | Uint8Array | ReadableStream<Uint8Array>,
): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    if (typeof content === "string") await Deno.writeTextFile(tmp, content);
    else await Deno.writeFile(tmp, content);
    await Deno.rename(tmp, path);
  } catch (error) {
    // No stray temp file when the write or the rename fails (a folder at `path`, a full disk).
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
}
