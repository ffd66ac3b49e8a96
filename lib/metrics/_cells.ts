/**
 * Private: a bounded histogram of values (confidences, forecasts, latencies) that is exact while it
 * can be. Each cell holds a count, a count of hits (correct decisions, yes labels) and the sum of
 * its values, and, for the bootstrap, the same three per replicate.
 *
 * While there are at most `cap` distinct values, a cell is one distinct value (a run of ties): the
 * estimators that read it give exactly what they give on the list of values. Past `cap` distinct
 * values the cells become a dyadic grid, value v in cell ⌊v·2^g⌋, with g the largest level
 * (at most 24) that keeps at most `cap` cells; values sharing a cell are then treated as ties.
 * The cells depend only on the set of values added, never on their order: the histogram turns
 * to the grid exactly when the values seen so far exceed `cap`, each coarser grid merges whole
 * cells of the finer one (⌊k/2⌋), and the count at a level only grows as values come.
 *
 * Replicate counts are integers (Poisson weights) and replicate sums add values rounded to
 * multiples of 2^-24, so they are exact whatever the order (below 2^29 per sum).
 *
 * @module
 */

/**
 * Most cells a sketch's histogram keeps: a group with at most this many distinct confidences (or
 * yes/no forecasts, or latencies) is summarized exactly, a larger one on a grid of at most this
 * many cells.
 */
export const SKETCH_CELLS = 2048;

/** How a metric's description names the histogram it reads. */
export const CELLS_NOTE =
  "exact up to 2,048 distinct values, past that values sharing one of at most 2,048 dyadic cells are tied";

/** Values added to replicate sums are rounded to multiples of this (exact sums in any order). */
export const REPLICATE_QUANTUM = 2 ** -24;

/** A value rounded to a multiple of {@linkcode REPLICATE_QUANTUM}. */
export function quantize(value: number): number {
  return Math.round(value / REPLICATE_QUANTUM) * REPLICATE_QUANTUM;
}

/** The finest grid level used once the histogram is past its cap. */
const FINEST_LEVEL = 24;

/** A bounded histogram of values with per-replicate cells. */
export class Cells {
  /** Most cells held (a cell more is held for a moment before the grid coarsens). */
  readonly cap: number;
  /** Replicates kept per cell (0: the point histogram only). */
  readonly replicates: number;
  readonly #withSums: boolean;
  /** Null while cells are distinct values, else the grid level g (cells ⌊v·2^g⌋). */
  #level: number | null = null;
  #index = new Map<number, number>();
  #count = 0;
  #capacity = 0;
  #keys = new Float64Array(0);
  #n = new Float64Array(0);
  #hits = new Float64Array(0);
  #sum = new Float64Array(0);
  #rn = new Uint32Array(0);
  #rh = new Uint32Array(0);
  #rs = new Float64Array(0);
  #order: Int32Array | null = null;

  /**
   * @param cap Most cells (distinct values, or grid cells past that).
   * @param replicates Replicates kept per cell.
   * @param withSums Whether replicates keep their sums of values (else counts only).
   */
  constructor(cap: number, replicates: number, withSums: boolean) {
    this.cap = cap;
    this.replicates = replicates;
    this.#withSums = withSums;
  }

  /** The number of cells. */
  get size(): number {
    return this.#count;
  }

  /** True while every cell is one distinct value. */
  get exact(): boolean {
    return this.#level === null;
  }

  /** Bytes held by the cells' arrays (the index map counted at 16 bytes per cell it can hold). */
  get bytes(): number {
    return this.#keys.byteLength + this.#n.byteLength + this.#hits.byteLength +
      this.#sum.byteLength + this.#rn.byteLength + this.#rh.byteLength + this.#rs.byteLength +
      16 * this.#capacity;
  }

  /**
   * Adds one value.
   *
   * @param value The value.
   * @param hit 1 when it is a hit (correct, yes), else 0.
   * @param weights Its case's weight per replicate (null: no replicates).
   */
  add(value: number, hit: number, weights: Uint8Array | null): void {
    const c = this.#cell(this.#keyOf(value));
    this.#n[c] = (this.#n[c] as number) + 1;
    this.#hits[c] = (this.#hits[c] as number) + hit;
    this.#sum[c] = (this.#sum[c] as number) + value;
    const b = this.replicates;
    if (weights !== null && b > 0) {
      const base = c * b;
      const rn = this.#rn;
      const rh = this.#rh;
      for (let r = 0; r < b; r++) rn[base + r] = (rn[base + r] as number) + (weights[r] as number);
      if (hit) {
        for (let r = 0; r < b; r++) {
          rh[base + r] = (rh[base + r] as number) + (weights[r] as number);
        }
      }
      if (this.#withSums) {
        const q = quantize(value);
        const rs = this.#rs;
        for (let r = 0; r < b; r++) {
          rs[base + r] = (rs[base + r] as number) + (weights[r] as number) * q;
        }
      }
    }
    if (this.#count > this.cap) this.#coarsen();
  }

  /**
   * Adds another histogram's cells (the same cap and replicates): the result is the histogram of
   * both sets of values.
   *
   * @param other The other histogram.
   */
  merge(other: Cells): void {
    if (other.#level !== null && (this.#level === null || other.#level < this.#level)) {
      this.#rekey(other.#level);
    }
    const b = this.replicates;
    for (let o = 0; o < other.#count; o++) {
      const k = other.#keys[o] as number;
      const c = this.#cell(
        other.#level === null || this.#level === null
          ? this.#keyOf(k)
          : Math.floor(k / 2 ** (other.#level - this.#level)),
      );
      this.#n[c] = (this.#n[c] as number) + (other.#n[o] as number);
      this.#hits[c] = (this.#hits[c] as number) + (other.#hits[o] as number);
      this.#sum[c] = (this.#sum[c] as number) + (other.#sum[o] as number);
      for (let r = 0; r < b; r++) {
        const i = c * b + r;
        this.#rn[i] = (this.#rn[i] as number) + (other.#rn[o * b + r] as number);
        this.#rh[i] = (this.#rh[i] as number) + (other.#rh[o * b + r] as number);
        if (this.#withSums) this.#rs[i] = (this.#rs[i] as number) + other.#gridSum(o, r);
      }
      if (this.#count > this.cap) this.#coarsen();
    }
  }

  /** The cells in ascending order of value. */
  order(): Int32Array {
    if (this.#order === null) {
      const keys = this.#keys;
      this.#order = Int32Array.from({ length: this.#count }, (_, i) => i).sort((a, b) =>
        (keys[a] as number) - (keys[b] as number)
      );
    }
    return this.#order;
  }

  /**
   * A cell's count: point (`replicate` −1) or in a replicate.
   *
   * @param cell The cell.
   * @param replicate −1, or 0 … replicates − 1.
   * @returns The (weighted) count.
   */
  n(cell: number, replicate: number): number {
    return replicate < 0
      ? this.#n[cell] as number
      : this.#rn[cell * this.replicates + replicate] as number;
  }

  /**
   * A cell's hits: point (`replicate` −1) or in a replicate.
   *
   * @param cell The cell.
   * @param replicate −1, or 0 … replicates − 1.
   * @returns The (weighted) hits.
   */
  hits(cell: number, replicate: number): number {
    return replicate < 0
      ? this.#hits[cell] as number
      : this.#rh[cell * this.replicates + replicate] as number;
  }

  /**
   * A cell's sum of values: point (`replicate` −1) or in a replicate. A cell of one distinct value
   * gives value × count.
   *
   * @param cell The cell.
   * @param replicate −1, or 0 … replicates − 1.
   * @returns The (weighted) sum.
   */
  sum(cell: number, replicate: number): number {
    if (this.#level === null) return (this.#keys[cell] as number) * this.n(cell, replicate);
    return replicate < 0 ? this.#sum[cell] as number : this.#replicateSum(cell, replicate);
  }

  /**
   * A cell's value: the distinct value it holds, or on the grid its values' mean.
   *
   * @param cell The cell.
   * @returns The value.
   */
  value(cell: number): number {
    if (this.#level === null) return this.#keys[cell] as number;
    return (this.#sum[cell] as number) / (this.#n[cell] as number);
  }

  #replicateSum(cell: number, replicate: number): number {
    if (this.#level === null) return (this.#keys[cell] as number) * this.n(cell, replicate);
    return this.#rs[cell * this.replicates + replicate] as number;
  }

  /** A replicate sum as the grid holds it: a distinct value's cell gives rounded value × count. */
  #gridSum(cell: number, replicate: number): number {
    const i = cell * this.replicates + replicate;
    if (this.#level === null) return quantize(this.#keys[cell] as number) * (this.#rn[i] as number);
    return this.#rs[i] as number;
  }

  #keyOf(value: number): number {
    return this.#level === null ? value : Math.floor(value * 2 ** this.#level);
  }

  /** The cell of a key, made when new. */
  #cell(key: number): number {
    let c = this.#index.get(key);
    if (c !== undefined) return c;
    c = this.#count++;
    if (c >= this.#capacity) this.#grow(Math.min(this.cap + 1, Math.max(16, 2 * this.#capacity)));
    this.#keys[c] = key;
    this.#index.set(key, c);
    this.#order = null;
    return c;
  }

  #grow(capacity: number): void {
    const b = this.replicates;
    const bigger = <T extends Float64Array | Uint32Array>(
      a: T,
      per: number,
      make: (n: number) => T,
    ) => {
      const out = make(capacity * per);
      out.set(a);
      return out;
    };
    const f64 = (n: number) => new Float64Array(n);
    const u32 = (n: number) => new Uint32Array(n);
    this.#keys = bigger(this.#keys, 1, f64);
    this.#n = bigger(this.#n, 1, f64);
    this.#hits = bigger(this.#hits, 1, f64);
    this.#sum = bigger(this.#sum, 1, f64);
    if (b > 0) {
      this.#rn = bigger(this.#rn, b, u32);
      this.#rh = bigger(this.#rh, b, u32);
      if (this.#withSums) this.#rs = bigger(this.#rs, b, f64);
    }
    this.#capacity = capacity;
  }

  /** Moves to the next coarser grid (from distinct values: the finest). */
  #coarsen(): void {
    this.#rekey(this.#level === null ? FINEST_LEVEL : this.#level - 1);
    while (this.#count > this.cap) this.#rekey((this.#level as number) - 1);
  }

  /** Rebuilds the cells on grid level `level` (coarser than, or the first grid after, now). */
  #rekey(level: number): void {
    const old = {
      count: this.#count,
      keys: this.#keys,
      n: this.#n,
      hits: this.#hits,
      sum: this.#sum,
      rn: this.#rn,
      rh: this.#rh,
      rs: this.#rs,
      level: this.#level,
    };
    // The replicates' sums as the grid holds them (distinct values: rounded value × count).
    const b = this.replicates;
    const sums = this.#withSums && b > 0 && old.level === null
      ? Float64Array.from(
        { length: old.count * b },
        (_, i) => this.#gridSum(Math.floor(i / b), i % b),
      )
      : old.rs;
    this.#level = level;
    this.#index = new Map();
    this.#count = 0;
    this.#capacity = 0;
    this.#keys = new Float64Array(0);
    this.#n = new Float64Array(0);
    this.#hits = new Float64Array(0);
    this.#sum = new Float64Array(0);
    this.#rn = new Uint32Array(0);
    this.#rh = new Uint32Array(0);
    this.#rs = new Float64Array(0);
    this.#grow(Math.min(old.count, this.cap + 1));
    const shift = old.level === null ? 0 : 2 ** (old.level - level);
    for (let o = 0; o < old.count; o++) {
      const k = old.keys[o] as number;
      const c = this.#cell(old.level === null ? Math.floor(k * 2 ** level) : Math.floor(k / shift));
      this.#n[c] = (this.#n[c] as number) + (old.n[o] as number);
      this.#hits[c] = (this.#hits[c] as number) + (old.hits[o] as number);
      this.#sum[c] = (this.#sum[c] as number) + (old.sum[o] as number);
      for (let r = 0; r < b; r++) {
        this.#rn[c * b + r] = (this.#rn[c * b + r] as number) + (old.rn[o * b + r] as number);
        this.#rh[c * b + r] = (this.#rh[c * b + r] as number) + (old.rh[o * b + r] as number);
        if (this.#withSums) {
          this.#rs[c * b + r] = (this.#rs[c * b + r] as number) + (sums[o * b + r] as number);
        }
      }
    }
  }
}

/**
 * A type-7 percentile (linear interpolation between closest ranks) of the values in cells: cell
 * values repeated by their counts, in ascending order.
 *
 * @param cells The histogram.
 * @param p The percentile, 0–100.
 * @returns The percentile, or null when the histogram is empty.
 */
export function cellPercentile(cells: Cells, p: number): number | null {
  const order = cells.order();
  let total = 0;
  for (const c of order) total += cells.n(c, -1);
  if (total === 0) return null;
  const h = (total - 1) * (p / 100);
  const lo = Math.floor(h);
  const at = (rank: number): number => {
    let seen = 0;
    for (const c of order) {
      seen += cells.n(c, -1);
      if (rank < seen) return cells.value(c);
    }
    return cells.value(order[order.length - 1] as number);
  };
  const a = at(lo);
  if (lo + 1 >= total) return a;
  return a + (h - lo) * (at(lo + 1) - a);
}
