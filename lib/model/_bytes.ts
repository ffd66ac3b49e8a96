/**
 * Private byte helpers of the model files: deterministic gzip, gunzip and sha256.
 *
 * @module
 */

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Gzips bytes, writing them as a single chunk so the output depends on the input only.
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
 * @throws {TypeError} When the data is truncated or corrupt.
 */
export async function gunzip(data: Uint8Array): Promise<Uint8Array> {
  const body = new Blob([data as Uint8Array<ArrayBuffer>]).stream();
  return await collect(body.pipeThrough(new DecompressionStream("gzip")));
}

/**
 * The sha256 of bytes as lowercase hex.
 *
 * @param data The bytes.
 * @returns 64 hex digits.
 */
export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
