/**
 * Compile-time helpers that tie each module's zod schemas to its public interfaces.
 *
 * @module
 */

/** True when `A` and `B` are the same type (compile-time only). */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2)
  ? true
  : false;

/** Accepts only `true`: a schema and its interface differ when `deno check` fails on it. */
export type Assert<T extends true> = T;
