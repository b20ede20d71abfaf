import { createHash } from "node:crypto";
import { intEnv, optionalEnv, requireEnv, type Env } from "../../core/config/env";
import { loadLimits } from "../../core/config/limits";
import { FatalConfigError } from "../../core/errors/taxonomy";
import { AGENT_SYSTEM_PROMPT, AGENT_SYSTEM_PROMPT_VERSION } from "./agent-prompt";

/** Settings of the Managed Agents run (docs/architecture.md, the approved Process is the capability), read once per cold start. */
export interface AgentConfig {
  /** The freee MCP Function URL the agent calls (`MCP_SERVER_URL`). */
  mcpServerUrl: string;
  /** The only host the environment's network allows. */
  mcpHost: string;
  /** Name of the MCP server inside the agent definition; tool configs refer to it. */
  mcpServerName: string;
  model: string;
  systemPrompt: string;
  /** Lifetime of the per-execution MCP bearer: the run timeout plus a margin for the last tool call. */
  bearerTtlSeconds: number;
  /** How far back `start` looks for a session it may already have created (a retried start). */
  sessionLookbackSeconds: number;
  /** Changes whenever the agent / environment definition changes: a new pair is created then. */
  fingerprint: string;
}

export const DEFAULT_AGENT_MODEL = "claude-sonnet-4-6";
export const MCP_SERVER_NAME = "freee";

export function loadAgentConfig(env: Env = process.env): AgentConfig {
  const mcpServerUrl = requireEnv("MCP_SERVER_URL", env);
  let url: URL;
  try {
    url = new URL(mcpServerUrl);
  } catch (cause) {
    throw new FatalConfigError("MCP_SERVER_URL is not a URL", { cause, details: { setting: "MCP_SERVER_URL" } });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new FatalConfigError("MCP_SERVER_URL must be http(s)", { details: { setting: "MCP_SERVER_URL" } });
  }
  const model = optionalEnv("AGENT_MODEL", env) ?? DEFAULT_AGENT_MODEL;
  const runTimeout = loadLimits(env).runTimeoutSeconds;
  const bearerTtlSeconds = intEnv("MCP_BEARER_TTL_SECONDS", runTimeout + 300, env);
  const fingerprint = createHash("sha256")
    .update(JSON.stringify([mcpServerUrl, model, MCP_SERVER_NAME, AGENT_SYSTEM_PROMPT_VERSION]))
    .digest("hex")
    .slice(0, 16);
  return {
    mcpServerUrl,
    mcpHost: url.host,
    mcpServerName: MCP_SERVER_NAME,
    model,
    systemPrompt: AGENT_SYSTEM_PROMPT,
    bearerTtlSeconds,
    sessionLookbackSeconds: intEnv("AGENT_SESSION_LOOKBACK_SECONDS", 900, env),
    fingerprint,
  };
}
