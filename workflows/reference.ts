// The default workflow: starts the built-in reference server in-process on a free port and
// benchmarks it on all 400 Typed Decisions test cases (2,000 decisions).
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "reference",
  description: "Built-in reference server (embedded default): no model needed",
  endpoint: {
    name: "reference",
    reference: { predictor: "fitted" },
    model: "decibench-reference",
  },
  parallel: 8,
});
