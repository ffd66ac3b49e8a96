/**
 * Run records: the decision and run schemas, the run directory writer and the fingerprint.
 *
 * @module
 */
export * from "./schemas.ts";
export * from "./recorder.ts";
export * from "./fingerprint.ts";
