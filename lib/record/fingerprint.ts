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
  /**
   * The question set, when it is not the Typed Decisions card protocol (a subset of its questions,
   * or a user file's sha256, rows and question definitions). Absent leaves the fingerprint of a
   * card-protocol run as it always was.
   */
  questionSet?: string | undefined;
}

/**
 * A 16-hex-digit fingerprint over dataset id and revision, endpoint identity, engine, model,
 * questions sent, state encoding and (when it is not the card protocol) the question set.
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
    ...(input.questionSet !== undefined ? [input.questionSet] : []),
  ]);
  return (await sha256Hex(canonical)).slice(0, 16);
}
