/**
 * The argument layer every command shares: strict flags on top of `node:util` `parseArgs`, with
 * values that start with a dash (`--parallel -1`) read as values, an unknown flag answered with
 * the nearest known one ("did you mean --parallel?"), number flags that name the value they
 * refuse, and a full `--help` text built from the same option list.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { parseBaseUrl, safeUrl } from "../client/mod.ts";
import { commandOf } from "../invocation.ts";
import { closest } from "../suggest.ts";

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

/** One option as `node:util` parseArgs takes it. */
export interface OptionDef {
  /** `string` takes a value, `boolean` does not. */
  type: "string" | "boolean";
  /** One-letter alias. @default undefined */
  short?: string;
  /** May be given several times. @default false */
  multiple?: boolean;
}

/** Option definitions as `node:util` parseArgs takes them. */
export type OptionDefs = Record<string, OptionDef>;

/** One option of a command, with what `--help` says about it. */
export interface OptionSpec extends OptionDef {
  /** The value's placeholder in the help, e.g. `N` or `URL`. @default "VALUE" for a string */
  value?: string;
  /** What the option does (and its default), one or more lines. */
  help: string;
}

/** A command: its name, arguments and options, from which parsing and `--help` follow. */
export interface CommandSpec {
  /** The task name, e.g. `bench` (`deno task bench`). */
  name: string;
  /** How it is run, when it is not a task. @default `deno task <name>` (`decibench <name>` installed) */
  command?: string;
  /** Positional arguments as the usage line shows them, e.g. `[WORKFLOW]`. @default "" */
  args?: string;
  /** What the command does. */
  summary: string;
  /** The options (`--help` is added). */
  options: Record<string, OptionSpec>;
  /** Text printed after the options: examples, exit statuses. @default "" */
  more?: string;
}

/** Parsed arguments. */
export interface ParsedArgs {
  /** Option values by long name. */
  values: Record<string, string | boolean | string[] | undefined>;
  /** Positional arguments. */
  positionals: string[];
}

function optionList(options: OptionDefs): string {
  return Object.keys(options).map((name) => `--${name}`).join(", ");
}

function unknownOption(flag: string, options: OptionDefs, command?: string): UsageError {
  const suggestion = closest(flag.replace(/^-+/, ""), Object.keys(options));
  const hint = suggestion !== undefined
    ? `did you mean --${suggestion}?`
    : command !== undefined
    ? `run ${command.includes(" ") ? command : commandOf(command)} --help for the options`
    : `the options are ${optionList(options)}`;
  return new UsageError(`Cannot use "${flag}": no such option; ${hint}`);
}

/**
 * Rewrites the arguments so that parseArgs reads them the way a person means them: a value that
 * starts with a dash is the option's value (`--parallel -1` → `--parallel=-1`), and every mistake
 * — an unknown flag, a missing value, a value given to a switch — is a `UsageError` in plain words.
 */
function normalise(args: readonly string[], options: OptionDefs, command?: string): string[] {
  const shorts = new Map<string, string>();
  for (const [name, def] of Object.entries(options)) if (def.short) shorts.set(def.short, name);
  const isOption = (token: string): boolean => {
    if (token.startsWith("--")) return token.slice(2).split("=")[0] as string in options;
    return /^-[A-Za-z]$/.test(token) && shorts.has(token.slice(1));
  };
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i] as string;
    if (token === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const name = eq < 0 ? token.slice(2) : token.slice(2, eq);
      const def = options[name];
      if (def === undefined) {
        throw unknownOption(eq < 0 ? token : token.slice(0, eq), options, command);
      }
      if (def.type === "boolean") {
        if (eq >= 0) throw new UsageError(`Cannot use "${token}": --${name} takes no value`);
        out.push(token);
        continue;
      }
      if (eq >= 0) {
        out.push(token);
        continue;
      }
      const next = args[i + 1];
      if (next === undefined || next === "--" || isOption(next)) {
        throw new UsageError(`Cannot use --${name}: it needs a value`);
      }
      out.push(`--${name}=${next}`);
      i++;
      continue;
    }
    if (token.startsWith("-") && token.length > 1) {
      const letter = token.slice(1, 2);
      const name = shorts.get(letter);
      if (name === undefined || token.length > 2) {
        // A dash followed by a digit is a negative number given where no option takes it.
        throw /^-[\d.]/.test(token)
          ? new UsageError(`Cannot use "${token}": an argument cannot start with "-"`)
          : unknownOption(token, options, command);
      }
      out.push(token);
      continue;
    }
    out.push(token);
  }
  return out;
}

/**
 * Parses arguments strictly, turning every mistake into a `UsageError` that says what is wrong.
 *
 * @param args Command-line arguments.
 * @param options Option definitions.
 * @param command The task name, for the hint after an unknown flag. @default undefined
 * @returns Values and positionals.
 * @throws {UsageError} On an unknown flag (naming the nearest known one), a missing value, or a
 *   value given to a switch.
 * @example
 * ```ts
 * import { parse } from "./args.ts";
 * parse(["--parallel", "-1"], { parallel: { type: "string" } }).values.parallel; // "-1"
 * ```
 */
export function parse(
  args: readonly string[],
  options: OptionDefs,
  command?: string,
): ParsedArgs {
  const normalised = normalise(args, options, command);
  const defs: OptionDefs = {};
  for (const [name, def] of Object.entries(options)) {
    defs[name] = {
      type: def.type,
      ...(def.short !== undefined ? { short: def.short } : {}),
      ...(def.multiple !== undefined ? { multiple: def.multiple } : {}),
    };
  }
  try {
    const { values, positionals } = parseArgs({
      args: normalised,
      options: defs,
      allowPositionals: true,
      strict: true,
    });
    return {
      values: values as Record<string, string | boolean | string[] | undefined>,
      positionals,
    };
  } catch (error) {
    throw new UsageError(
      `Cannot read the arguments: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

const HELP_OPTION: OptionSpec = { type: "boolean", short: "h", help: "show this help" };

/**
 * The one-line usage of a command.
 *
 * @param spec The command.
 * @returns e.g. `usage: deno task bench [WORKFLOW] [options] (--help for the options)`.
 */
export function usageLine(spec: CommandSpec): string {
  const args = spec.args ? ` ${spec.args}` : "";
  const command = invocation(spec);
  return `usage: ${command}${args} [options]  (${command} --help for every option)`;
}

function invocation(spec: CommandSpec): string {
  return spec.command ?? commandOf(spec.name);
}

/**
 * The full `--help` text of a command: usage, summary, every option with its value and help.
 *
 * @param spec The command.
 * @returns The text.
 */
export function helpText(spec: CommandSpec): string {
  const options = { ...spec.options, help: HELP_OPTION };
  const heads = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ""}--${name}`;
    return o.type === "string" ? `${flag} ${o.value ?? "VALUE"}` : flag;
  });
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  const lines = Object.values(options).map((o, i) => {
    const [first = "", ...rest] = o.help.split("\n");
    const pad = " ".repeat(width + 2);
    return [`  ${(heads[i] as string).padEnd(width)}${first}`, ...rest.map((l) => pad + l)]
      .join("\n");
  });
  const args = spec.args ? ` ${spec.args}` : "";
  const parts = [
    `Usage: ${invocation(spec)}${args} [options]`,
    spec.summary,
    `Options:\n${lines.join("\n")}`,
  ];
  if (spec.more) parts.push(spec.more);
  return parts.join("\n\n");
}

/** `--help` was asked for: `runMain` prints `text` on stdout and exits 0. */
export class HelpRequested extends Error {
  /**
   * @param text The command's help (`helpText`).
   */
  constructor(readonly text: string) {
    super("help requested");
    this.name = "HelpRequested";
  }
}

/**
 * Parses a command's arguments against its spec (`--help`/`-h` included).
 *
 * @param args Command-line arguments.
 * @param spec The command.
 * @returns The parsed arguments.
 * @throws {HelpRequested} When `--help` was asked for (`runMain` prints the help and exits 0).
 * @throws {UsageError} As `parse` does.
 */
export function parseCommand(args: readonly string[], spec: CommandSpec): ParsedArgs {
  const parsed = parse(args, { ...spec.options, help: HELP_OPTION }, invocation(spec));
  if (parsed.values.help === true) throw new HelpRequested(helpText(spec));
  return parsed;
}

function describeNumber(text: string): string {
  return text.trim().startsWith("-") && Number.isFinite(Number(text)) ? "it is negative" : "";
}

/**
 * Reads an integer flag.
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @param min Smallest allowed value. @default 0
 * @param max Largest allowed value. @default Number.MAX_SAFE_INTEGER
 * @returns The integer, or undefined when not given.
 * @throws {UsageError} When the value is not a whole number in [min, max], naming the value.
 */
export function intFlag(
  value: unknown,
  name: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const n = Number(text);
  if (
    typeof value !== "string" || text.trim() === "" || !Number.isSafeInteger(n) || n < min ||
    n > max
  ) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    const why = text.trim() === "" || !Number.isFinite(n)
      ? "it is not a number"
      : !Number.isInteger(n)
      ? "it is not a whole number"
      : describeNumber(text) || (n < min ? "it is too small" : "it is too large");
    throw new UsageError(`Cannot use --${name} "${text}": ${why}; give a whole number ${range}`);
  }
  return n;
}

/**
 * Reads a number flag.
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @param min Smallest allowed value. @default 0
 * @returns The number, or undefined when not given.
 * @throws {UsageError} When the value is not a number ≥ min, naming the value.
 */
export function numberFlag(value: unknown, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const n = Number(text);
  if (typeof value !== "string" || text.trim() === "" || !Number.isFinite(n) || n < min) {
    const why = text.trim() === "" || !Number.isFinite(n)
      ? "it is not a number"
      : describeNumber(text) || "it is too small";
    throw new UsageError(`Cannot use --${name} "${text}": ${why}; give a number ≥ ${min}`);
  }
  return n;
}

/**
 * Reads a size flag given in MiB (`--max-reply-mb`) as a byte count.
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @returns Whole bytes (at least 1), or undefined when not given.
 * @throws {UsageError} When the value is not a number greater than 0, naming the value.
 */
export function megabytesFlag(value: unknown, name: string): number | undefined {
  const mb = numberFlag(value, name, 0);
  if (mb === undefined) return undefined;
  if (mb === 0) {
    throw new UsageError(`Cannot use --${name} "${value}": it is too small; give a number > 0`);
  }
  return Math.max(1, Math.round(mb * 1024 * 1024));
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

/**
 * Reads a path flag that may not be empty (`--out ''` would write into the working directory).
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @returns The path, or undefined when not given.
 * @throws {UsageError} When the value is empty.
 */
export function pathFlag(value: unknown, name: string): string | undefined {
  const text = stringFlag(value);
  if (text !== undefined && text.trim() === "") {
    throw new UsageError(`Cannot use --${name} "": it is empty; give a path`);
  }
  return text;
}

/**
 * Reads a URL flag (http or https, no credentials), refusing a bad one before anything starts.
 * The value is echoed only when it holds no `@` (it could carry credentials).
 *
 * @param value The flag's value.
 * @param name Flag name for messages.
 * @param keywords Words accepted as they are instead of a URL (e.g. `off`). @default []
 * @returns The value, or undefined when not given.
 * @throws {UsageError} When it is not a usable URL (e.g. `localhost:8080`, which has no scheme).
 */
export function urlFlag(
  value: unknown,
  name: string,
  keywords: readonly string[] = [],
): string | undefined {
  const text = stringFlag(value);
  if (text === undefined || keywords.includes(text)) return text;
  try {
    parseBaseUrl(text);
  } catch (error) {
    const message = (error as Error).message;
    const match = /^Cannot use base URL(?: "[^"]*")?: (.*)$/s.exec(message);
    // Never echo credentials: a URL with user info is shown without it.
    const shown = text.includes("@") ? (safe(text) ?? "") : ` "${text}"`;
    throw new UsageError(`Cannot use --${name}${shown}: ${match ? match[1] : message}`);
  }
  return text;
}

function safe(text: string): string | undefined {
  const url = safeUrl(text);
  return url === "(unparseable URL)" ? undefined : ` "${url}"`;
}
