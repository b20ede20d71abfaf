import type { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { requireEnv, type Env } from "../lib/core/config/env";
import { createLogger } from "../lib/core/observability/logger";
import { createDocumentClient } from "../lib/store/dynamo-client";
import type { AgentRunner } from "../lib/model/agent/agent-runner";
import { loadAgentConfig } from "../lib/model/agent/agent-config";
import { memoizedAgentSetup } from "../lib/model/agent/agent-setup";
import { anthropicOptionsFromEnv } from "./anthropic-client";
import { createAgentClient, type AgentClient } from "../lib/model/agent/agent-client";
import { loadMcpBearerSecret } from "../lib/mcp/bearer";
import { ManagedAgentRunner } from "../lib/model/agent/managed-agent-runner";

export interface AgentRunnerDeps {
  client?: AgentClient;
  doc?: DynamoDBDocumentClient;
  logger?: Logger;
  now?: () => Date;
}

/**
 * The runner the ExecutionRun Lambdas use. Call once per cold start and keep the result: settings are read
 * here (a missing one is a FatalConfigError now, not mid-run); the agent / environment setup and the bearer
 * secret are resolved on first use and cached.
 * Env: MCP_SERVER_URL, TABLE_NAME, ANTHROPIC_API_KEY(_SECRET_ARN), MCP_BEARER_SECRET(_SECRET_ARN),
 * optional ANTHROPIC_BASE_URL, AGENT_MODEL, MCP_BEARER_TTL_SECONDS, RUN_TIMEOUT_SECONDS, DYNAMODB_ENDPOINT.
 */
export async function createAgentRunner(env: Env = process.env, deps: AgentRunnerDeps = {}): Promise<AgentRunner> {
  const config = loadAgentConfig(env);
  const tableName = requireEnv("TABLE_NAME", env);
  const logger = deps.logger ?? createLogger("agent");
  const client = deps.client ?? createAgentClient(await anthropicOptionsFromEnv("agent", env), env);
  const doc = deps.doc ?? createDocumentClient(env);
  let secret: Promise<string> | undefined;
  return new ManagedAgentRunner({
    client,
    config,
    logger,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    setup: memoizedAgentSetup({ client, doc, tableName, config, logger, ...(deps.now === undefined ? {} : { now: deps.now }) }),
    bearerSecret: () => {
      secret ??= loadMcpBearerSecret(env).catch((err: unknown) => {
        secret = undefined;
        throw err;
      });
      return secret;
    },
  });
}
