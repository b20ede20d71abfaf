import type { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { intEnv, type Env } from "../lib/core/config/env";
import { resolveSecret } from "../lib/core/config/secrets";
import { ANTHROPIC_TIMEOUT_MS, createAnthropicClient, type AnthropicCaller, type AnthropicClientOptions, type MessagesClient } from "../lib/model/anthropic-client";

/**
 * For Lambda handlers: the key from `ANTHROPIC_API_KEY` or Secrets Manager (`ANTHROPIC_API_KEY_SECRET_ARN`), the
 * endpoint from `ANTHROPIC_BASE_URL`, the timeout from `ANTHROPIC_TIMEOUT_MS` (default: the caller's), retries
 * from `ANTHROPIC_MAX_RETRIES` (default 0).
 */
export async function anthropicOptionsFromEnv(caller: AnthropicCaller, env: Env = process.env): Promise<AnthropicClientOptions> {
  const apiKey = await resolveSecret("ANTHROPIC_API_KEY", env);
  return { apiKey, timeoutMs: intEnv("ANTHROPIC_TIMEOUT_MS", ANTHROPIC_TIMEOUT_MS[caller], env), maxRetries: intEnv("ANTHROPIC_MAX_RETRIES", 0, env) };
}

/** The layers' Messages client from the environment (the agent's: wiring/agent-runner.ts). */
export async function createAnthropicClientFromEnv(caller: AnthropicCaller, env: Env = process.env): Promise<BaseAnthropic & MessagesClient> {
  return createAnthropicClient(await anthropicOptionsFromEnv(caller, env), env);
}
