/**
 * The tool's name and version, read from deno.json.
 *
 * @module
 */
import meta from "../deno.json" with { type: "json" };

/** Tool name recorded in runs. */
export const TOOL_NAME = "decibench";
/** Tool version recorded in runs. */
export const TOOL_VERSION: string = meta.version;
