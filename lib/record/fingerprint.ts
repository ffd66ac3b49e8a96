/**
 * The comparison fingerprint: a short hash of what makes two runs comparable.
 *
 * @module
 */
import { sha256Hex } from "../bytes.ts";

export { sha256Hex };

/** What enters the fingerprint. */
export interface FingerprintInput {
  /** Dataset id. */
  dataset: string;
  /** Dataset revision. */
  revision: string;
  /** Endpoint identity (scheme, host, port, path; never credentials). */
  endpoint: string;
  /** Engine name. */
  engine: string;
  /** Model sent. */
  model: string;
  /** sha256 of the questions sent (all cases). */
  questionsSha256: string;
  /** State encoding. */
  stateEncoding: string;
}

/**
 * A 16-hex-digit fingerprint over dataset id and revision, endpoint identity, engine, model,
 * questions sent and state encoding.
 *
 * @param input What identifies the configuration.
 * @returns The fingerprint.
 */
export async function fingerprint(input: FingerprintInput): Promise<string> {
  const canonical = JSON.stringify([
    input.dataset,
    input.revision,
    input.endpoint,
    input.engine,
    input.model,
    input.questionsSha256,
    input.stateEncoding,
  ]);
  return (await sha256Hex(canonical)).slice(0, 16);
}
