/**
 * `--timeout SECONDS` and `--retries N`, the request flags bench, gate and live share: their
 * help lines and their reading, each mapped onto the workflow endpoint's `timeoutMs` and
 * `retries`.
 *
 * @module
 */
import { intFlag, numberFlag, type OptionSpec, UsageError } from "./args.ts";

/** Most retries a workflow allows (its `retries` field). */
const MAX_RETRIES = 10;

/** The options of `--timeout` and `--retries`, for a command's option list. */
export const REQUEST_OPTIONS: Record<"timeout" | "retries", OptionSpec> = {
  timeout: {
    type: "string",
    value: "SECONDS",
    help:
      "per-request deadline in seconds (a number > 0; default the workflow's timeoutMs,\n120 s); a request over it is a timeout error",
  },
  retries: {
    type: "string",
    value: "N",
    help:
      `extra attempts after a transient error (429, 5xx, timeout, network), a whole number\nfrom 0 to ${MAX_RETRIES} (default the workflow's retries, 2)`,
  },
};

/** What `--timeout` and `--retries` set, undefined when not given. */
export interface RequestFlags {
  /** Per-request timeout in ms. */
  timeoutMs: number | undefined;
  /** Extra attempts after a transient error. */
  retries: number | undefined;
}

/**
 * Reads `--timeout SECONDS` and `--retries N`.
 *
 * @param values The parsed flag values.
 * @param recorded What a resumed run recorded (`run.json`'s `timeout_ms` and `retries`), used
 *   when the flag is not given again. @default undefined
 * @returns The timeout in whole ms (at least 1) and the retries, each undefined when neither
 *   given nor recorded.
 * @throws {UsageError} When the timeout is not a number > 0, or the retries not a whole number
 *   from 0 to 10, naming the value.
 */
export function requestFlags(
  values: Record<string, unknown>,
  recorded?: { timeout_ms?: number | undefined; retries?: number | undefined },
): RequestFlags {
  const seconds = numberFlag(values.timeout, "timeout", 0);
  if (seconds === 0) {
    throw new UsageError(
      `Cannot use --timeout "${values.timeout}": it is zero; give a number of seconds > 0, e.g. 30`,
    );
  }
  return {
    timeoutMs: seconds === undefined
      ? recorded?.timeout_ms
      : Math.max(1, Math.round(seconds * 1000)),
    retries: intFlag(values.retries, "retries", 0, MAX_RETRIES) ?? recorded?.retries,
  };
}
