// Jev through OpenRouter's relay (POST https://openrouter.ai/api/v1/systemone). Each decision keeps
// the relay's extra reply fields: response id, upstream provider and usage.cost. Needs
// OPENROUTER_API_KEY. A 402 (no credit left) stops the run; resume it after adding credit.
// Then: deno task bench workflows/openrouter.ts
// Against the reference server's relay emulation: --base-url http://127.0.0.1:PORT/api/v1
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "openrouter",
  description: "Jev through OpenRouter's System One relay",
  endpoint: {
    name: "openrouter",
    baseUrl: "https://openrouter.ai/api/v1",
    model: "typesafe/jev-1.13",
    apiKeyEnv: "OPENROUTER_API_KEY",
    apiKeyRequired: true,
    timeoutMs: 60_000,
    retries: 3,
  },
  parallel: 4,
});
