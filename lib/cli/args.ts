/**
 * Command-line parsing helpers shared by the scripts.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** A usage error: exit status 2 with the message and a usage hint. */
export class UsageError extends Error {
  /**
   * @param message What is wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Option definitions as `node:util` parseArgs takes them. */
export type OptionDefs = Record<
  string,
  { type: "string" | "boolean"; short?: string; multiple?: boolean }
>;

/**
 * Parses arguments strictly, turning parse errors into `UsageError`.
 *
 * @param args Command-line arguments.
 * @param options Option definitions.
 * @returns Values and positionals.
 * @throws {UsageError} On an unknown flag or a missing value.
 */
export function parse(
  args: readonly string[],
  options: OptionDefs,
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options,
      allowPositionals: true,
      strict: true,
    });
    return {
      values: values as Record<string, string | boolean | string[] | undefined>,
      positionals,
    };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Reads an integer flag.
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @param min Smallest allowed value.
 * @returns The integer, or undefined when not given.
 * @throws {UsageError} When the value is not an integer ≥ min.
 */
export function intFlag(value: unknown, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== "string" || !Number.isInteger(n) || n < min) {
    throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${String(value)}"`);
  }
  return n;
}

/**
 * Reads a number flag.
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @param min Smallest allowed value.
 * @returns The number, or undefined when not given.
 * @throws {UsageError} When the value is not a number ≥ min.
 */
export function numberFlag(value: unknown, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== "string" || value.trim() === "" || !Number.isFinite(n) || n < min) {
    throw new UsageError(`--${name} must be a number ≥ ${min}, got "${String(value)}"`);
  }
  return n;
}

/**
 * Reads a string flag.
 *
 * @param value The flag's value.
 * @returns The string, or undefined.
 */
export function stringFlag(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
