import type Anthropic from "@anthropic-ai/sdk";
import type { AgentClient } from "./agent-client";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { classifyAnthropicError } from "../../core/errors/classify";
import { FatalConfigError } from "../../core/errors/taxonomy";
import type { Logger } from "@aws-lambda-powertools/logger";
import { AGENT_SETUP_CONFIG_NAME, putAgentSetup, readAgentSetup, type AgentSetup } from "../../store/agent-setup-record";
import type { AgentConfig } from "./agent-config";

/**
 * The agent and the environment are created ONCE (docs/architecture.md, the approved Process is the capability), on first use, and their ids kept in the
 * table under `Keys.appConfig("managed-agent")`. Two cold starts racing both create a pair; the conditional
 * put lets exactly one pair win and the loser archives its own pair and uses the winner's ids.
 * A new pair is made only when the definition changes (the config fingerprint: MCP URL, model, prompt version).
 */

export { AGENT_SETUP_CONFIG_NAME, type AgentSetup };

export interface AgentSetupDeps {
  client: AgentClient;
  doc: DynamoDBDocumentClient;
  tableName: string;
  config: AgentConfig;
  logger: Logger;
  now?: () => Date;
}

/** Metadata on everything this app creates, so an operator can find (and clean) what it made. */
export const APP_METADATA = { app: "slack-mcp-agent" } as const;

export async function ensureAgentSetup(deps: AgentSetupDeps): Promise<AgentSetup> {
  const existing = await readSetup(deps);
  if (existing !== undefined && existing.fingerprint === deps.config.fingerprint) return existing;

  const created = await createPair(deps);
  const written = await writeSetup(deps, created, existing?.fingerprint);
  if (written) {
    deps.logger.info("managed agent setup created", { agentId: created.agentId, environmentId: created.environmentId });
    return created;
  }
  // Lost the race: someone stored a pair for this definition first. Use theirs, archive ours.
  const winner = await readSetup(deps);
  if (winner === undefined || winner.fingerprint !== deps.config.fingerprint) {
    throw new FatalConfigError("managed agent setup: conditional write lost but no matching setup stored", {
      details: { fingerprint: deps.config.fingerprint },
    });
  }
  await archiveOrphans(deps, created);
  return winner;
}

/** Memoises the setup per container: one read per cold start, a failed attempt is retried next call. */
export function memoizedAgentSetup(deps: AgentSetupDeps): () => Promise<AgentSetup> {
  let pending: Promise<AgentSetup> | undefined;
  return () => {
    pending ??= ensureAgentSetup(deps).catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}

const readSetup = (deps: AgentSetupDeps) => readAgentSetup(deps.doc, deps.tableName);

async function writeSetup(deps: AgentSetupDeps, setup: AgentSetup, previousFingerprint: string | undefined): Promise<boolean> {
  const createdAt = (deps.now ?? (() => new Date()))().toISOString();
  try {
    return await putAgentSetup(deps.doc, deps.tableName, { ...setup, mcpServerUrl: deps.config.mcpServerUrl, createdAt }, previousFingerprint);
  } catch (err) {
    // Our pair exists upstream but is not recorded: archive it rather than leak it, then fail.
    await archiveOrphans(deps, setup);
    throw err;
  }
}

async function createPair(deps: AgentSetupDeps): Promise<AgentSetup> {
  const { client, config } = deps;
  const metadata = { ...APP_METADATA, fingerprint: config.fingerprint };
  let environmentId: string | undefined;
  try {
    const environment = await client.beta.environments.create({
      name: `slack-mcp-agent-${config.fingerprint}`,
      description: "freee MCP だけに接続できる実行環境",
      metadata,
      config: {
        type: "cloud",
        networking: {
          type: "limited",
          allowed_hosts: [config.mcpHost],
          allow_mcp_servers: false,
          allow_package_managers: false,
        },
      },
    });
    environmentId = environment.id;
    const agent = await client.beta.agents.create({
      name: `slack-mcp-agent freee executor ${config.fingerprint}`,
      description: "Slack で承認された実行ステップを freee MCP ツールで実行する",
      model: config.model,
      system: config.systemPrompt,
      metadata,
      mcp_servers: [{ type: "url", name: config.mcpServerName, url: config.mcpServerUrl }],
      // Nothing is usable by default: a session enables and always_allow's only the approved tools.
      tools: [
        {
          type: "mcp_toolset",
          mcp_server_name: config.mcpServerName,
          default_config: { enabled: false, permission_policy: { type: "always_ask" } },
        },
      ],
    });
    return { agentId: agent.id, environmentId: environment.id, fingerprint: config.fingerprint };
  } catch (err) {
    if (environmentId !== undefined) await archiveOrphans(deps, { environmentId });
    throw classifyAnthropicError(err, "agent setup create") ?? err;
  }
}

/** Best effort: an orphan left behind is harmless (nothing refers to it) and carries APP_METADATA. */
async function archiveOrphans(deps: AgentSetupDeps, pair: { agentId?: string; environmentId?: string }): Promise<void> {
  const jobs: Promise<unknown>[] = [];
  if (pair.agentId !== undefined) jobs.push(deps.client.beta.agents.archive(pair.agentId));
  if (pair.environmentId !== undefined) jobs.push(deps.client.beta.environments.archive(pair.environmentId));
  const results = await Promise.allSettled(jobs);
  for (const result of results) {
    if (result.status === "rejected") {
      deps.logger.warn("could not archive an orphaned agent/environment; it stays unused", {
        ...pair,
        error: result.reason instanceof Error ? result.reason : String(result.reason),
      });
    }
  }
  if (results.every((r) => r.status === "fulfilled")) deps.logger.info("archived orphaned agent/environment", pair);
}
