// llama.cpp's llama-server serving a decision model at /v1/systemone (b11361 and later).
// Start it with your decision model, then: deno task bench workflows/llama.ts
// Set LLAMA_API_KEY when the server was started with --api-key.
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "llama",
  description: "llama-server on this machine",
  endpoint: {
    name: "llama.cpp",
    baseUrl: "http://127.0.0.1:8080",
    model: "default",
    apiKeyEnv: "LLAMA_API_KEY",
    timeoutMs: 120_000,
    retries: 2,
  },
  parallel: 4,
  thresholds: [
    { metric: "accuracy", op: ">=", limit: 0.6 },
    { metric: "kl", op: "<=", limit: 0.3 },
    { metric: "ece", op: "<=", limit: 0.1 },
  ],
});
