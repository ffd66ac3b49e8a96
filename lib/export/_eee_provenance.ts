/**
 * Who evaluated, where the model ran and with what, for an Every Eval Ever record: stated by the
 * exporter (`--org`, `--relationship`, `--availability`) or derived from the run's endpoint — the
 * embedded reference server, a server on this machine or a private network (self-deployed, the
 * engine named by the wire format), Cloudflare's `clef` or another public host (externally
 * managed, the host as the platform, the relay's upstream providers when it reported them).
 *
 * @module
 */
import type { RunJson } from "../record/mod.ts";

/** `source_metadata.evaluator_relationship` values. */
export const EVALUATOR_RELATIONSHIPS = [
  "first_party",
  "third_party",
  "collaborative",
  "other",
] as const;
/** An evaluator relationship. */
export type EvaluatorRelationship = (typeof EVALUATOR_RELATIONSHIPS)[number];

/** `model_info.additional_details.model_availability` values. */
export const MODEL_AVAILABILITIES = ["open_weights", "closed_weights", "unknown"] as const;
/** A model availability. */
export type ModelAvailability = (typeof MODEL_AVAILABILITIES)[number];

/** What the exporter stated (each undefined when not given). */
export interface StatedProvenance {
  /** `--org`. */
  organization?: string | undefined;
  /** `--relationship`. */
  relationship?: EvaluatorRelationship | undefined;
  /** `--availability`. */
  availability?: ModelAvailability | undefined;
}

/** The provenance blocks of the aggregate record. */
export interface Provenance {
  /** `source_organization_name`. */
  organization: string;
  /** `evaluator_relationship`. */
  relationship: EvaluatorRelationship;
  /** `deployment_type`. */
  deployment: "self_deployed" | "externally_managed" | "unknown";
  /** `model_availability`. */
  availability: ModelAvailability;
  /** `inference_platform`, when the model ran on someone else's platform. */
  platform?: string | undefined;
  /** `inference_engine`, when known. */
  engine?: { name: string; version?: string } | undefined;
  /** How each value was found, for `additional_details`. */
  basis: Record<string, string>;
}

/** Wire formats served by software one runs oneself, and the engine each names. */
const SELF_HOSTED_ENGINES: Readonly<Record<string, string>> = {
  systemone: "systemone",
  ollama: "ollama",
  pcd: "pcdserver",
};

/** Whether a host is this machine or a private network (RFC 1918, link-local, ULA, no dot). */
function privateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1" || h.endsWith(".local") || h.endsWith(".internal")) {
    return true;
  }
  if (/^(fc|fd)[0-9a-f]{2}:/.test(h) || h.startsWith("fe80:")) return true;
  const v4 = h.match(/^(\d+)\.(\d+)\.\d+\.\d+$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  return !h.includes(".") && !h.includes(":"); // a bare name on the local network
}

function hostOf(endpoint: string): string | null {
  try {
    return new URL(endpoint).hostname;
  } catch {
    return null;
  }
}

/**
 * The provenance of a run's record.
 *
 * @param run The run record.
 * @param stated What the exporter said.
 * @param providers Upstream providers a relay reported on the run's decisions (a few).
 * @returns Organisation, relationship, deployment, availability, platform and engine.
 */
export function eeeProvenance(
  run: RunJson,
  stated: StatedProvenance,
  providers: readonly string[] = [],
): Provenance {
  const spec = run.spec;
  const basis: Record<string, string> = {};
  let deployment: Provenance["deployment"] = "unknown";
  let platform: string | undefined;
  let engine: Provenance["engine"];
  const reference = spec.reference !== null;
  const host = reference ? null : hostOf(spec.endpoint);
  if (reference) {
    deployment = "self_deployed";
    engine = { name: "decibench-reference", version: run.tool_version };
    basis.deployment = "the embedded reference server";
  } else if (spec.engine === "clef") {
    deployment = "externally_managed";
    platform = "cloudflare-workers-ai";
    basis.deployment = "the clef engine (Cloudflare Workers AI)";
  } else if (host !== null && privateHost(host)) {
    deployment = "self_deployed";
    const name = SELF_HOSTED_ENGINES[spec.engine];
    if (name !== undefined) engine = { name };
    basis.deployment = `endpoint host ${host} is on this machine or a private network`;
  } else if (host !== null) {
    deployment = "externally_managed";
    platform = host;
    if (spec.engine === "ollama") engine = { name: "ollama" };
    basis.deployment = `endpoint host ${host} is a public host`;
  } else {
    basis.deployment = "the endpoint names no host";
  }
  if (providers.length > 0) basis.upstream_providers = providers.join(",");
  const relationship = stated.relationship ?? (reference ? "first_party" : "third_party");
  basis.evaluator_relationship = stated.relationship !== undefined
    ? "stated (--relationship)"
    : reference
    ? "default: decibench evaluating its own reference model"
    : "default: not stated (--relationship)";
  const availability = stated.availability ?? (reference ? "open_weights" : "unknown");
  basis.model_availability = stated.availability !== undefined
    ? "stated (--availability)"
    : reference
    ? "default: the reference model ships with decibench"
    : "default: not stated (--availability)";
  const organization = stated.organization ?? "unknown";
  basis.source_organization = stated.organization !== undefined
    ? "stated (--org)"
    : "not stated (--org)";
  return { organization, relationship, deployment, availability, platform, engine, basis };
}
