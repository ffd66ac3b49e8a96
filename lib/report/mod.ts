/**
 * Reports: terminal text and Markdown.
 *
 * @module
 */
export * from "./format.ts";
export * from "./terminal.ts";
export * from "./markdown.ts";
export * from "./write.ts";
