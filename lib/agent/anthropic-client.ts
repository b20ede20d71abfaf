import Anthropic from "@anthropic-ai/sdk";
import { intEnv, optionalEnv, type Env } from "../config/env";
import { resolveSecret } from "../config/secrets";

/**
 * The SDK client for `client.beta.*`. SDK retries are off: Step Functions owns the retry policy (DESIGN §2),
 * so a 429 / 5xx / timeout leaves as a taxonomy error and shows in the execution history.
 * `ANTHROPIC_BASE_URL` points it at the scripted server in tests.
 */
/** Per-request timeout of a Managed Agents call; the L4 Lambdas' timeouts are derived from it (infra/lambda-budgets.ts). */
export const DEFAULT_AGENT_TIMEOUT_MS = 30_000;

export async function createManagedAgentsClient(env: Env = process.env): Promise<Anthropic> {
  const apiKey = await resolveSecret("ANTHROPIC_API_KEY", env);
  return new Anthropic({
    apiKey,
    baseURL: optionalEnv("ANTHROPIC_BASE_URL", env) ?? null,
    maxRetries: intEnv("ANTHROPIC_MAX_RETRIES", 0, env),
    timeout: intEnv("ANTHROPIC_TIMEOUT_MS", DEFAULT_AGENT_TIMEOUT_MS, env),
  });
}
