// pcdServer (POST /v1/pcd/decode). Each case is translated from System One: the state becomes
// `context` (JSON text, at most 64 KiB), each question a field (yes/no → [false, true], score →
// "0".."n-1" with the level texts in the description). Every limit is checked before sending; a
// case that cannot fit is recorded with error kind "limit", never truncated. pcdServer's
// probabilities are uncalibrated: answers are recorded with calibrated: false and confidence
// thresholds tuned on a System One engine do not transfer (accuracy comparisons do).
// Then: deno task bench workflows/pcd.ts
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "pcd",
  description: "pcdServer on this machine (uncalibrated)",
  endpoint: {
    name: "pcd",
    engine: "pcd",
    baseUrl: "http://127.0.0.1:8080",
    apiKeyEnv: "PCD_API_KEY",
    timeoutMs: 120_000,
    retries: 2,
  },
  parallel: 4,
});
