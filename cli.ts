#!/usr/bin/env -S deno run -A
/**
 * The `decibench` command: `decibench <command> [args]` runs `bench`, `compare`, `view`, `export`,
 * `live`, `serve`, `audit`, `gate`, `sweep`, `train` or `vendor` from any folder (runs go to
 * `./runs/` of that folder; `decibench --help` lists them). Install it once from a clone:
 *
 * ```sh
 * deno install -g -A -n decibench --config <clone>/deno.json <clone>/cli.ts
 * ```
 *
 * @module
 */
import { runCli } from "./lib/cli/dispatch.ts";

if (import.meta.main) Deno.exit(await runCli(Deno.args));
