/**
 * The per-replica table of a run spread over `endpoint.replicas`: each server's slots, requests,
 * answers, errors, latency and whether it was left out, as run.json records them.
 *
 * @module
 */
import type { RunJson } from "../record/mod.ts";

/**
 * The replicas table's header and rows (none for a run against one server).
 *
 * @param run The run record.
 * @returns Header and one row per replica, in the workflow's order.
 */
export function replicaData(run: RunJson): { header: string[]; rows: string[][] } {
  const header = [
    "replica",
    "slots",
    "requests",
    "answered",
    "errors",
    "p50 ms",
    "p95 ms",
    "mean ms",
    "state",
  ];
  const rows = (run.replicas ?? []).map((r) => [
    r.url,
    String(r.slots),
    String(r.requests),
    String(r.answered),
    String(r.errors),
    r.latency ? r.latency.p50.toFixed(1) : "n/a",
    r.latency ? r.latency.p95.toFixed(1) : "n/a",
    r.latency ? r.latency.mean.toFixed(1) : "n/a",
    r.excluded ? "left out" : "live",
  ]);
  return { header, rows };
}
