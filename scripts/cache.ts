/**
 * `deno task cache stats|prune [--older-than AGE] [--cache-dir DIR] [--json]`: what the request
 * cache holds (replies, bytes, oldest and newest), or remove its replies (all of them, or those
 * older than an age such as `30d`).
 *
 * @module
 */
import {
  type CommandSpec,
  parseCommand,
  pathFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { cacheStats, defaultCacheDir, parseAge, pruneCache } from "../lib/client/mod.ts";

const COMMAND: CommandSpec = {
  name: "cache",
  args: "stats|prune",
  summary: `The request cache that bench --cache reads and fills: stats counts its replies and
their bytes; prune removes them, all or only those older than --older-than.`,
  options: {
    "cache-dir": {
      type: "string",
      value: "DIR",
      help: "the cache's folder (default $XDG_CACHE_HOME/decibench or ~/.cache/decibench)",
    },
    "older-than": {
      type: "string",
      value: "AGE",
      help: "prune only replies stored longer ago than AGE: a number and d, h, m or s (e.g. 30d)",
    },
    json: { type: "boolean", help: "print the result as one JSON object" },
  },
  more: `Examples:
  deno task cache stats
  deno task cache prune --older-than 30d

Exit status: 0 done; 2 a usage error.`,
};

function bytesText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  const [action, ...extra] = positionals;
  if (action !== "stats" && action !== "prune" || extra.length > 0) {
    throw new UsageError(
      `Cannot run cache ${positionals.join(" ")}: expected "stats" or "prune"`.trimEnd(),
    );
  }
  let dir = pathFlag(values["cache-dir"], "cache-dir");
  try {
    dir ??= defaultCacheDir();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const json = values.json === true;
  if (action === "stats") {
    if (values["older-than"] !== undefined) {
      throw new UsageError("Cannot use --older-than with stats: it chooses what prune removes");
    }
    const stats = await cacheStats(dir);
    if (json) console.log(JSON.stringify(stats));
    else {
      console.log(`request cache ${stats.dir}`);
      console.log(`replies     ${stats.entries} (${bytesText(stats.bytes)})`);
      if (stats.oldest !== null) console.log(`stored      ${stats.oldest} to ${stats.newest}`);
    }
    return 0;
  }
  let olderThanMs: number | undefined;
  if (values["older-than"] !== undefined) {
    try {
      olderThanMs = parseAge(String(values["older-than"]));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const pruned = await pruneCache(dir, { olderThanMs });
  if (json) console.log(JSON.stringify({ dir, ...pruned }));
  else {
    console.log(
      `request cache ${dir}: removed ${pruned.removed} replies (${
        bytesText(pruned.bytes)
      }), kept ${pruned.kept}`,
    );
  }
  return 0;
}

if (import.meta.main) {
  await runMain(main, { usage: usageLine(COMMAND) });
}
