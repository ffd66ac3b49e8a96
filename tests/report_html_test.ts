// End-to-end: the reports of a real `bench` run. report.html is one self-contained file with its
// Observable Plot charts inline and renders in headless Chromium (Debian's `chromium`, installed
// by scripts/test_deps.sh); report.md has every section SPEC §6 names.
import assert from "node:assert/strict";
import { runScript } from "./bench_cli_helpers.ts";

interface Png {
  width: number;
  height: number;
  /** Distinct colours among sampled pixels. */
  colours: number;
  /** Share of pixels that are not (near) white. */
  inked: number;
  /** Standard deviation of the luminance. */
  spread: number;
}

/** Decodes an 8-bit RGB or RGBA PNG far enough to measure its pixels. */
async function decodePng(bytes: Uint8Array): Promise<Png> {
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

Deno.test("a `bench` run's report.html is self-contained with its charts and renders in headless Chromium; report.md has every section", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-report-" });
  try {
    const dir = `${tmp}/run`;
    const bench = await runScript("bench.ts", ["--out", dir, "--no-db"]);
    assert.equal(bench.code, 0, bench.stderr);
    const html = await Deno.readTextFile(`${dir}/report.html`);

    await t.step("report.html holds its charts inline and loads nothing", () => {
      const svgs = html.match(/<svg\b/g) ?? [];
      assert.ok(svgs.length >= 4, `expected the charts as inline SVG, found ${svgs.length}`);
      for (
        const chart of [
          "Reliability diagram",
          "Accuracy by workflow with 95% intervals",
          "Accuracy by question type with 95% intervals",
          "Confidence histogram",
        ]
      ) assert.ok(html.includes(chart), chart);
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<link\b/i);
      assert.doesNotMatch(html, /<(img|iframe|object|embed|video|audio|source)\b/i);
      assert.doesNotMatch(html, /\bsrc\s*=/i);
      assert.doesNotMatch(html, /url\(\s*['"]?(https?:)?\/\//i);
      assert.doesNotMatch(html, /@import/i);
      for (const workflow of ["customer_service", "invoice_processing", "security_incidents"]) {
        assert.ok(html.includes(workflow), workflow);
      }
    });

    await t.step("report.html renders in headless Chromium", async () => {
      const png = `${tmp}/report.png`;
      const out = await new Deno.Command("chromium", {
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          `--user-data-dir=${tmp}/chromium`,
          `--screenshot=${png}`,
          "--window-size=1200,2000",
          `file://${dir}/report.html`,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(90_000),
      }).output().catch((error) => {
        throw new Error(
          `Cannot run chromium: ${error.message}; install it with apt-get install -y chromium (scripts/test_deps.sh does)`,
        );
      });
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const image = await decodePng(await Deno.readFile(png));
      assert.equal(image.width, 1200);
      assert.equal(image.height, 2000);
      assert.ok(image.colours > 50, `only ${image.colours} colours: blank page?`);
      assert.ok(image.inked > 0.03, `only ${(image.inked * 100).toFixed(2)}% of pixels drawn`);
      assert.ok(image.spread > 10, `luminance spread ${image.spread.toFixed(1)}`);
    });

    await t.step(
      "report.md has every section, with both distributions in option order",
      async () => {
        const md = await Deno.readTextFile(`${dir}/report.md`);
        for (
          const section of [
            "## Headline",
            "## By question type",
            "## By workflow",
            "## By question",
            "## Calibration",
            "## Latency and tokens",
            "## Most confident disagreements with gold",
            "## Trace",
            "## Data",
          ]
        ) assert.ok(md.includes(`\n${section}\n`), section);
        assert.match(md, /\| rating \| ★{1,3} \|/);
        assert.match(md, /\| accuracy \| \d+\.\d% \| \[\d+\.\d, \d+\.\d\] \|/);
        assert.match(md, /not comparable with the card's ECE column/);
        assert.match(md, /<details><summary>/);
        assert.match(
          md,
          /Typed Decisions \(LocalLLaMA\/typed-decisions, revision e039ebf, Apache-2\.0\)/,
        );
        // Each traced decision: the predicted and gold lines list the same options in the same order.
        const trace = md.slice(md.indexOf("## Trace"));
        const pred = [...trace.matchAll(/^ {4}pred (.*)$/gm)].map((m) => m[1]!);
        const gold = [...trace.matchAll(/^ {4}gold (.*)$/gm)].map((m) => m[1]!);
        assert.equal(pred.length, 2000);
        assert.equal(gold.length, 2000);
        const keys = (line: string) => line.split(" ").map((kv) => kv.split("=")[0]);
        for (let i = 0; i < pred.length; i++) assert.deepEqual(keys(pred[i]!), keys(gold[i]!));
      },
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
