// Ollama 0.35 and later serving a decision model at /v1/systemone. Ollama has no default model:
// name the one you pulled in `model` (or pass --model). Bodies are capped at 64 KiB; a case that
// would exceed the cap is recorded with error kind "limit" and never sent or truncated.
// Then: deno task bench workflows/ollama.ts
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "ollama",
  description: "Ollama serving a decision model on this machine",
  endpoint: {
    name: "ollama",
    engine: "ollama",
    baseUrl: "http://127.0.0.1:11434",
    model: "decider-0.8b",
    apiKeyEnv: "OLLAMA_API_KEY",
    timeoutMs: 120_000,
    retries: 2,
  },
  parallel: 4,
});
