// Cloudflare's clef on Workers AI. Put your account id in baseUrl (or pass
// --base-url https://api.cloudflare.com/client/v4/accounts/<id>); the model goes in the URL
// (.../ai/run/@cf/cloudflare/clef). Needs CLOUDFLARE_API_TOKEN. Requests carry 1-64 questions;
// replies come in Cloudflare's {result, success, errors, messages} envelope with probabilities
// rounded to 4 decimals. Out of capacity (3040) and timeouts are retried; a used-up daily
// allocation (3036) stops the run; invalid input is final for its case.
// Then: deno task bench workflows/clef.ts
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "clef",
  description: "Cloudflare Workers AI clef",
  endpoint: {
    name: "clef",
    engine: "clef",
    baseUrl: "https://api.cloudflare.com/client/v4/accounts/YOUR_ACCOUNT_ID",
    model: "@cf/cloudflare/clef",
    apiKeyEnv: "CLOUDFLARE_API_TOKEN",
    apiKeyRequired: true,
    timeoutMs: 60_000,
    retries: 3,
  },
  parallel: 4,
});
