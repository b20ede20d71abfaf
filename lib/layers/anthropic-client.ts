import Anthropic from "@anthropic-ai/sdk";
import { optionalEnv, intEnv, type Env } from "../config/env";
import { resolveSecret } from "../config/secrets";
import { FatalConfigError } from "../errors/taxonomy";

/** Long enough for an L2/L3 plan of a few thousand tokens; short enough to fail well inside a Lambda's limit. */
export const DEFAULT_ANTHROPIC_TIMEOUT_MS = 120_000;

export interface AnthropicClientOptions {
  apiKey: string;
  /** Defaults to `ANTHROPIC_BASE_URL` when set, otherwise the SDK's own default. */
  baseURL?: string;
  timeoutMs?: number;
}

/**
 * The one Anthropic client the layers use. `maxRetries: 0`: Step Functions owns retries (DESIGN §2), so one
 * policy lives in one place and every attempt shows in the execution history.
 */
export function createAnthropicClient(options: AnthropicClientOptions, env: Env = process.env): Anthropic {
  if (options.apiKey.trim() === "") {
    throw new FatalConfigError("missing Anthropic API key", { details: { setting: "ANTHROPIC_API_KEY" } });
  }
  const baseURL = options.baseURL ?? optionalEnv("ANTHROPIC_BASE_URL", env);
  return new Anthropic({
    apiKey: options.apiKey,
    ...(baseURL === undefined ? {} : { baseURL }),
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_ANTHROPIC_TIMEOUT_MS,
  });
}

/**
 * For Lambda handlers: the key from `ANTHROPIC_API_KEY` or Secrets Manager (`ANTHROPIC_API_KEY_SECRET_ARN`),
 * the endpoint from `ANTHROPIC_BASE_URL`, the timeout from `ANTHROPIC_TIMEOUT_MS`.
 */
export async function createAnthropicClientFromEnv(env: Env = process.env): Promise<Anthropic> {
  const apiKey = await resolveSecret("ANTHROPIC_API_KEY", env);
  return createAnthropicClient(
    { apiKey, timeoutMs: intEnv("ANTHROPIC_TIMEOUT_MS", DEFAULT_ANTHROPIC_TIMEOUT_MS, env) },
    env,
  );
}
