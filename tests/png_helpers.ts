// Reading a screenshot back: an 8-bit PNG decoded far enough to tell a drawn page from a blank
// one (distinct colours, share of inked pixels, luminance spread). Used by the report and view
// browser tests.
import assert from "node:assert/strict";

/** What a screenshot test checks of a PNG. */
export interface Png {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** Distinct colours among sampled pixels. */
  colours: number;
  /** Share of pixels that are not (near) white. */
  inked: number;
  /** Standard deviation of the luminance. */
  spread: number;
}

/**
 * Decodes an 8-bit RGB or RGBA PNG far enough to measure its pixels.
 *
 * @param bytes The PNG file.
 * @returns Its size and pixel statistics.
 */
export async function decodePng(bytes: Uint8Array): Promise<Png> {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  assert.deepEqual([...bytes.subarray(0, 8)], signature, "PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  while (offset < bytes.length) {
    const length = view.getUint32(offset);
    const type = new TextDecoder().decode(bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      const depth = data[8];
      const colourType = data[9];
      assert.equal(depth, 8, "8-bit PNG");
      assert.ok(colourType === 2 || colourType === 6, `colour type ${colourType}`);
      channels = colourType === 6 ? 4 : 3;
      assert.equal(data[12], 0, "not interlaced");
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const inflated = new Uint8Array(
    await new Response(
      new Blob(idat as BlobPart[]).stream().pipeThrough(new DecompressionStream("deflate")),
    ).arrayBuffer(),
  );
  const stride = width * channels;
  assert.equal(inflated.length, height * (stride + 1), "scanline data size");
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = inflated[y * (stride + 1)];
    const line = inflated.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[i - channels]! : 0;
      const b = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      const x = line[i]!;
      let v: number;
      switch (filter) {
        case 0:
          v = x;
          break;
        case 1:
          v = x + a;
          break;
        case 2:
          v = x + b;
          break;
        case 3:
          v = x + ((a + b) >> 1);
          break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default:
          throw new RangeError(`unknown PNG filter ${filter}`);
      }
      out[i] = v & 255;
    }
  }
  const colours = new Set<number>();
  let inked = 0;
  let sum = 0;
  let sumSq = 0;
  const n = width * height;
  for (let p = 0; p < n; p++) {
    const r = pixels[p * channels]!;
    const g = pixels[p * channels + 1]!;
    const b = pixels[p * channels + 2]!;
    if (p % 7 === 0) colours.add((r << 16) | (g << 8) | b);
    if (r < 240 || g < 240 || b < 240) inked++;
    const lum = 0.299 * r + 0.587 * g + 0.114 * b;
    sum += lum;
    sumSq += lum * lum;
  }
  const mean = sum / n;
  return {
    width,
    height,
    colours: colours.size,
    inked: inked / n,
    spread: Math.sqrt(sumSq / n - mean * mean),
  };
}
