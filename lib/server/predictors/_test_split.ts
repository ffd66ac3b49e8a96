/**
 * The Typed Decisions test cases the oracle answers from.
 *
 * Uses the verified vendored dataset (`loadDataset`). Until the vendored files are committed,
 * falls back to the shared source JSONL this project is vendored from.
 *
 * @module
 */
import { loadDataset } from "../../dataset/load.ts";
import type { Case } from "../../dataset/schemas.ts";

const SHARED_TEST_JSONL = "/work/shared/typed-decisions/test.jsonl";

/**
 * Loads the test split's cases.
 *
 * @returns The 400 test cases.
 * @throws {DatasetIntegrityError} When the vendored dataset fails its checks and no fallback exists.
 */
export async function loadTestCases(): Promise<Case[]> {
  try {
    return (await loadDataset({ split: "test" })).cases;
  } catch (error) {
    let text: string;
    try {
      text = await Deno.readTextFile(SHARED_TEST_JSONL);
    } catch {
      throw error;
    }
    return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Case);
  }
}
