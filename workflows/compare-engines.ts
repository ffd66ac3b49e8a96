// Engines side by side on the same cases: two embedded reference servers, System One answering
// with the `fitted` predictor and pcdServer answering the gold distributions (`oracle`). Each
// endpoint gets its own run directory; the comparison shows metrics with intervals per engine,
// how often the engines' predicted answers agree (overall and per question), latency and tokens
// per engine, and the calibration caveat.
// Then: deno task bench workflows/compare-engines.ts
// With --base-url, every endpoint calls that server instead (each with its own engine's route).
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "compare-engines",
  description: "System One (fitted) and pcdServer (oracle) on the same cases",
  endpoints: [
    {
      name: "systemone-fitted",
      engine: "systemone",
      reference: { predictor: "fitted" },
      model: "decibench-reference",
    },
    {
      name: "pcd-oracle",
      engine: "pcd",
      reference: { predictor: "oracle" },
    },
  ],
  parallel: 8,
});
