// Driving Debian's headless Chromium (installed by scripts/test_deps.sh) from a test through the
// DevTools protocol (puppeteer-core): one browser per test file with a fresh profile, axe-core's
// accessibility check, keyboard-only navigation, and screenshots checked to be drawn.
import assert from "node:assert/strict";
import { join } from "node:path";
import axe from "axe-core";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { decodePng } from "./png_helpers.ts";

export type { Browser, Page };

/** The flags the tests start Chromium with (no network of its own, no first-run work). */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Starts headless Chromium with a fresh profile under `dir`.
 *
 * @param dir A folder for the profile.
 * @returns The browser.
 * @throws {Error} Saying how to install Chromium when it is missing.
 */
export async function launchChromium(dir: string): Promise<Browser> {
  const executablePath = "/usr/bin/chromium";
  try {
    await Deno.stat(executablePath);
  } catch {
    throw new Error(
      "Cannot start Chromium: /usr/bin/chromium is missing; install it with apt-get install -y chromium (scripts/test_deps.sh does)",
    );
  }
  return await puppeteer.launch({
    executablePath,
    headless: true,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${join(dir, "chromium-profile")}`],
  });
}

/** One accessibility violation axe-core found. */
export interface AxeViolation {
  /** Rule id, e.g. `color-contrast`. */
  id: string;
  /** `minor`, `moderate`, `serious` or `critical`. */
  impact: string | null;
  /** What the rule checks. */
  help: string;
  /** The offending elements (CSS selectors). */
  targets: string[];
}

/**
 * Runs axe-core on the page and returns its violations.
 *
 * @param page The page.
 * @returns Every violation.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  return await page.evaluate(async () => {
    // In the page: axe (just injected) and the document are globals there.
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const result = await g.axe.run(g.document, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      // deno-lint-ignore no-explicit-any
      targets: v.nodes.map((n: any) => String(n.target)),
    }));
  });
}

/**
 * Asserts that axe-core finds no serious or critical violation.
 *
 * @param page The page.
 * @param what Which page, for the message.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await axeViolations(page);
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad,
    [],
    `${what}: ${
      bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(", ")}`).join("; ")
    }`,
  );
}

/**
 * Presses Tab until the focused element matches a selector: reaching a control with the keyboard
 * alone, as a user would.
 *
 * @param page The page.
 * @param selector What to reach.
 * @param max Most presses before giving up.
 * @throws {AssertionError} When Tab never reaches it.
 */
export async function tabTo(page: Page, selector: string, max = 400): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const reached = await page.evaluate(
      // deno-lint-ignore no-explicit-any
      (s) => (globalThis as any).document.activeElement?.matches(s) ?? false,
      selector,
    );
    if (reached) return;
  }
  assert.fail(`Tab never reached ${selector}`);
}

/**
 * Presses a key and waits for the navigation it starts.
 *
 * @param page The page.
 * @param key The key, e.g. `Enter`.
 */
export async function pressAndWait(page: Page, key: "Enter" | " "): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.keyboard.press(key)]);
}

/**
 * Takes a 1280×800 screenshot, saves it, and checks it is a drawn page (many colours, ink, and
 * contrast), not a blank one.
 *
 * @param page The page.
 * @param path Where to save the PNG.
 */
export async function screenshotDrawn(page: Page, path: string): Promise<void> {
  await page.setViewport({ width: 1280, height: 800 });
  const bytes = await page.screenshot({ path: path as `${string}.png`, type: "png" });
  const image = await decodePng(new Uint8Array(bytes));
  assert.equal(image.width, 1280);
  assert.equal(image.height, 800);
  assert.ok(image.colours > 20, `${path}: only ${image.colours} colours: blank page?`);
  assert.ok(image.inked > 0.02, `${path}: only ${(image.inked * 100).toFixed(2)}% of pixels drawn`);
  assert.ok(image.spread > 10, `${path}: luminance spread ${image.spread.toFixed(1)}`);
}
