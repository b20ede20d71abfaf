import type { SessionCreateParams } from "@anthropic-ai/sdk/resources/beta/sessions/sessions";
import type { StartRunInput } from "./agent-runner";
import type { AgentConfig } from "./agent-config";
import { buildTaskMessage } from "./agent-prompt";
import { APP_METADATA } from "./agent-setup";

/** Metadata keys that link a session to its task and execution (and let a retried start find it). */
export const SESSION_METADATA_KEYS = { taskId: "taskId", executionId: "executionId", teamId: "teamId" } as const;

/**
 * The session for one Execution: the agent with per-session tool overrides — the freee toolset stays
 * disabled/always_ask by default and only the approved tools are enabled and always_allow'ed (docs/architecture.md, the approved Process is the capability) —
 * the per-execution vault holding the MCP bearer, and the approved steps as the first user.message.
 */
export function buildSessionCreateParams(args: {
  input: StartRunInput;
  config: AgentConfig;
  agentId: string;
  environmentId: string;
  vaultId: string;
}): SessionCreateParams {
  const { input, config } = args;
  const allowed = [...new Set(input.allowedTools)].sort();
  return {
    agent: {
      type: "agent_with_overrides",
      id: args.agentId,
      mcp_servers: [{ type: "url", name: config.mcpServerName, url: config.mcpServerUrl }],
      tools: [
        {
          type: "mcp_toolset",
          mcp_server_name: config.mcpServerName,
          default_config: { enabled: false, permission_policy: { type: "always_ask" } },
          configs: allowed.map((name) => ({ name, enabled: true, permission_policy: { type: "always_allow" as const } })),
        },
      ],
    },
    environment_id: args.environmentId,
    vault_ids: [args.vaultId],
    title: `freee 実行 ${input.executionId}`,
    metadata: {
      ...APP_METADATA,
      [SESSION_METADATA_KEYS.taskId]: input.taskId,
      [SESSION_METADATA_KEYS.executionId]: input.executionId,
      [SESSION_METADATA_KEYS.teamId]: input.teamId,
    },
    initial_events: [{ type: "user.message", content: [{ type: "text", text: buildTaskMessage(input.steps, input.doneStepIds) }] }],
  };
}
