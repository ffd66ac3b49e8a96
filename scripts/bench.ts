/**
 * `deno task bench [WORKFLOW] [--base-url URL] [--model M] [--parallel N|auto] [--limit N] [--out DIR]
 * [--resume DIR] [--db PATH | --no-db] [--dry-run] [--json] [--repeat K [--parallel-sweep 1,4,16]]`:
 * benchmark a decision model on Typed Decisions, with `--repeat` also its stability under load
 * (`--help` lists every option).
 *
 * Ctrl+C (SIGINT or SIGTERM) stops sending requests, gives those in flight 2 s, writes the run as
 * `interrupted` and exits 130; `deno task bench --resume DIR` finishes it.
 *
 * The run's modules load from a bundle of them kept in `.cache/` while it matches the sources
 * (`lib/cli/bundle.ts`; `deno task bundle` builds it, `DECIBENCH_BUNDLE=off` runs the sources).
 *
 * @module
 */
import { launch } from "../lib/cli/bundle.ts";

if (import.meta.main) await launch("scripts/_bench.ts");
