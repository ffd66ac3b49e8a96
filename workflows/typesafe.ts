// TypeSafe's hosted Jev. `jev-latest` resolves to a versioned model (the run records the id it
// answers with, such as jev-1.13.0). Needs TYPESAFE_API_KEY in the environment.
// Then: deno task bench workflows/typesafe.ts
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "typesafe",
  description: "TypeSafe's hosted Jev over System One",
  endpoint: {
    name: "typesafe",
    baseUrl: "https://api.typesafe.ai/v1/systemone",
    model: "jev-latest",
    apiKeyEnv: "TYPESAFE_API_KEY",
    apiKeyRequired: true,
    timeoutMs: 60_000,
    retries: 3,
  },
  parallel: 4,
});
