import type Anthropic from "@anthropic-ai/sdk";
import { BaseAnthropic, type ClientOptions } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import { optionalEnv, type Env } from "../core/config/env";
import { FatalConfigError } from "../core/errors/taxonomy";

/**
 * The default per-request timeout of each caller. The layers (L1–L3 Messages) need long enough for a plan of a
 * few thousand tokens, yet well inside a Lambda's limit (each layer's own `<LAYER>_TIMEOUT_MS` narrows it per
 * call); a Managed Agents call (L4) is short, and the L4 Lambdas' timeouts are derived from it
 * (infra/lambda-budgets.ts). `ANTHROPIC_TIMEOUT_MS` overrides it in the Lambda that sets it.
 */
export const ANTHROPIC_TIMEOUT_MS = { layers: 120_000, agent: 30_000 } as const;
export type AnthropicCaller = keyof typeof ANTHROPIC_TIMEOUT_MS;

export interface AnthropicClientOptions {
  apiKey: string;
  /** Defaults to `ANTHROPIC_BASE_URL` when set, otherwise the SDK's own default. */
  baseURL?: string;
  timeoutMs: number;
  /** 0 unless told: Step Functions owns retries (docs/architecture.md, shape on AWS). */
  maxRetries?: number;
}

/** What L1–L3 call: the Messages API. A full `Anthropic` client is one too (tests). */
export type MessagesClient = Pick<Anthropic, "messages">;

/**
 * The SDK's base client with only the Messages resource: the full `Anthropic` class attaches every resource
 * (beta, organization, skills, files…, ~300 KiB bundled) that the layers never call.
 */
class AnthropicMessagesClient extends BaseAnthropic {
  readonly messages: Anthropic["messages"] = new Messages(this);
}

/**
 * The SDK options every caller gets. `maxRetries: 0` by default: Step Functions owns the retry policy (docs/architecture.md, shape on AWS),
 * so one policy lives in one place, a 429 / 5xx / timeout leaves as a taxonomy error and every attempt shows in
 * the execution history.
 */
export function anthropicClientOptions(options: AnthropicClientOptions, env: Env = process.env): ClientOptions {
  if (options.apiKey.trim() === "") {
    throw new FatalConfigError("missing Anthropic API key", { details: { setting: "ANTHROPIC_API_KEY" } });
  }
  const baseURL = options.baseURL ?? optionalEnv("ANTHROPIC_BASE_URL", env);
  return {
    apiKey: options.apiKey,
    ...(baseURL === undefined ? {} : { baseURL }),
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeoutMs,
  };
}

/** The layers' client (L1–L3); the agent's is lib/model/agent/agent-client.ts. */
export function createAnthropicClient(options: AnthropicClientOptions, env: Env = process.env): BaseAnthropic & MessagesClient {
  return new AnthropicMessagesClient(anthropicClientOptions(options, env));
}
