import type Anthropic from "@anthropic-ai/sdk";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Agents } from "@anthropic-ai/sdk/resources/beta/agents/agents";
import { Environments } from "@anthropic-ai/sdk/resources/beta/environments/environments";
import { Sessions } from "@anthropic-ai/sdk/resources/beta/sessions/sessions";
import { Vaults } from "@anthropic-ai/sdk/resources/beta/vaults/vaults";
import type { Env } from "../../core/config/env";
import { anthropicClientOptions, type AnthropicClientOptions } from "../anthropic-client";

/** What L4 calls: the Managed Agents resources of the beta API. A full `Anthropic` client is one too (tests). */
export interface AgentClient {
  beta: Pick<Anthropic["beta"], "agents" | "environments" | "sessions" | "vaults">;
}

/**
 * The SDK's base client with the four beta resources L4 uses: the full `Anthropic` class attaches every
 * resource (Messages, organization, skills, files, the rest of beta…, ~220 KiB bundled) that a run never calls.
 */
class AnthropicAgentClient extends BaseAnthropic implements AgentClient {
  readonly beta: AgentClient["beta"] = {
    agents: new Agents(this),
    environments: new Environments(this),
    sessions: new Sessions(this),
    vaults: new Vaults(this),
  };
}

export function createAgentClient(options: AnthropicClientOptions, env: Env = process.env): BaseAnthropic & AgentClient {
  return new AnthropicAgentClient(anthropicClientOptions(options, env));
}
