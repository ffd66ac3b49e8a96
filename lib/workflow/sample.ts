/**
 * `--sample N [--seed S]`: a seeded draw of N cases stratified by lane, so a quick run still sees
 * every lane (while N allows) in proportion to its size.
 *
 * @module
 */
import { shuffle } from "../metrics/mod.ts";

/** A sample asked for: how many cases and the seed of the draw. */
export interface SampleSpec {
  /** Cases to draw (a whole number ≥ 1). */
  size: number;
  /** Seed of the draw (a whole number ≥ 0). */
  seed: number;
}

/** One case of the population a sample is drawn from. */
export interface SampleCandidate {
  /** Case id. */
  id: string;
  /** Its lane. */
  lane: string;
}

/**
 * How many cases each lane gets: every lane one while `size` allows (the lanes that get one,
 * when there are more lanes than cases, are a seeded draw), the rest in proportion to the lanes'
 * remaining cases by largest remainder (ties to the lane seen first), never more than a lane has.
 *
 * @param lanes Cases per lane, lanes in order of first appearance.
 * @param size Cases to draw.
 * @param seed Seed of the draw.
 * @returns Cases per lane (lanes that get none are left out).
 */
export function sampleAllocation(
  lanes: ReadonlyMap<string, number>,
  size: number,
  seed: number,
): Map<string, number> {
  const names = [...lanes.keys()];
  const total = [...lanes.values()].reduce((a, b) => a + b, 0);
  const out = new Map<string, number>();
  if (size >= total) {
    for (const [lane, n] of lanes) out.set(lane, n);
    return out;
  }
  if (size <= names.length) {
    for (const lane of shuffle(names, seed).slice(0, size)) out.set(lane, 1);
    return out;
  }
  for (const lane of names) out.set(lane, 1);
  const left = size - names.length;
  const spare = total - names.length;
  const shares = names.map((lane, order) => {
    const exact = ((lanes.get(lane) ?? 0) - 1) * left / spare;
    return { lane, order, whole: Math.floor(exact), rest: exact - Math.floor(exact) };
  });
  let given = 0;
  for (const s of shares) {
    out.set(s.lane, (out.get(s.lane) ?? 0) + s.whole);
    given += s.whole;
  }
  const byRest = [...shares].sort((a, b) => b.rest - a.rest || a.order - b.order);
  for (const s of byRest) {
    if (given >= left) break;
    const now = out.get(s.lane) ?? 0;
    if (now < (lanes.get(s.lane) ?? 0)) {
      out.set(s.lane, now + 1);
      given++;
    }
  }
  return out;
}

/**
 * Draws a sample: per lane (see {@linkcode sampleAllocation}), a seeded shuffle of the lane's
 * cases in set order, its first ones kept. The same population, size and seed give the same ids.
 *
 * @param population The cases that may be drawn, in set order.
 * @param sample Size and seed.
 * @returns The drawn ids, in set order.
 * @throws {RangeError} When the size is not a whole number ≥ 1 or the seed not one ≥ 0.
 * @example
 * ```ts
 * import { drawSample } from "./sample.ts";
 * const cases = [
 *   { id: "a", lane: "chat" }, { id: "b", lane: "chat" }, { id: "c", lane: "chat" },
 *   { id: "d", lane: "email" },
 * ];
 * drawSample(cases, { size: 2, seed: 0 }).length; // 2: one chat case and "d"
 * ```
 */
export function drawSample(
  population: readonly SampleCandidate[],
  sample: SampleSpec,
): string[] {
  if (!Number.isSafeInteger(sample.size) || sample.size < 1) {
    throw new RangeError(`Cannot draw a sample of ${sample.size} cases: give a whole number ≥ 1`);
  }
  if (!Number.isSafeInteger(sample.seed) || sample.seed < 0) {
    throw new RangeError(`Cannot draw a sample with seed ${sample.seed}: give a whole number ≥ 0`);
  }
  const byLane = new Map<string, string[]>();
  for (const c of population) {
    const list = byLane.get(c.lane);
    if (list === undefined) byLane.set(c.lane, [c.id]);
    else list.push(c.id);
  }
  const counts = new Map([...byLane].map(([lane, ids]) => [lane, ids.length]));
  const drawn = new Set<string>();
  for (const [lane, n] of sampleAllocation(counts, sample.size, sample.seed)) {
    for (const id of shuffle(byLane.get(lane) ?? [], sample.seed).slice(0, n)) drawn.add(id);
  }
  return population.filter((c) => drawn.has(c.id)).map((c) => c.id);
}
