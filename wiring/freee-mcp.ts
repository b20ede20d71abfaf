import { AuditLog } from "../lib/store/audit-log";
import { loadMcpBearerSecret } from "../lib/mcp/bearer";
import { requireEnv, type Env } from "../lib/core/config/env";
import { FreeeClient } from "../lib/freee/client";
import { loadFreeeAppCredentials, loadFreeeEndpoints } from "../lib/freee/config";
import { invocationRemainingTimeMs } from "../lib/core/aws/invocation-deadline";
import { FreeeConnectionStore } from "../lib/store/freee-connections";
import { PendingTokenStore } from "../lib/store/pending-freee-tokens";
import { createTokenCipher } from "../lib/store/token-cipher";
import { FreeeTokenEndpoint } from "../lib/freee/token-endpoint";
import { createLogger } from "../lib/core/observability/logger";
import { PipelineMetrics } from "../lib/core/observability/metrics";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { TaskStore } from "../lib/store/task-store";
import { createBotTokenResolver } from "../lib/slack-api/bot-token";
import { DynamoInstallationStore, INSTALLATION_CACHE_MS, installationCipher } from "../lib/store/installations";
import { createWebClient } from "../lib/slack-api/web-client";
import { optionalEnv } from "../lib/core/config/env";
import { createFreeeMcpHandler } from "../lib/mcp/server";
import type { McpHttpHandler } from "../lib/mcp/http";
import { SLACK_FILE_HOST, SlackFileFetcher } from "../lib/mcp/slack-files";
import { WriteOnceLedger } from "../lib/store/write-ledger";

/**
 * The MCP handler wired from the environment: TABLE_NAME (+ DYNAMODB_ENDPOINT), MCP_BEARER_SECRET(_SECRET_ARN),
 * FREEE_CLIENT_ID, FREEE_CLIENT_SECRET(_SECRET_ARN), FREEE_API_BASE_URL, FREEE_OAUTH_BASE_URL,
 * TOKEN_KMS_KEY_ID (+ KMS_ENDPOINT) or FREEE_TOKEN_LOCAL_KEY for local development; for file-box uploads the
 * workspace's bot token (its sealed installation, or SLACK_BOT_TOKEN), SLACK_API_URL and SLACK_FILES_ORIGIN
 * (default https://files.slack.com) for a local Slack.
 * Missing settings fail here, at cold start (FatalConfigError).
 */
export interface FreeeMcpWiringOptions {
  /**
   * How the server waits (the freee client's backoff, rate-limit resets and token lease polls; a lost write
   * reply's pause before its read-back); real time unless given.
   */
  sleep?: (ms: number) => Promise<void>;
}

export async function createFreeeMcpHandlerFromEnv(env: Env = process.env, options: FreeeMcpWiringOptions = {}): Promise<McpHttpHandler> {
  const logger = createLogger("freee-mcp");
  const tableName = requireEnv("TABLE_NAME", env);
  const doc = createDocumentClient(env);
  const taskStore = new TaskStore(doc, tableName);
  const cipher = createTokenCipher(env);
  const connections = new FreeeConnectionStore(doc, tableName, cipher);
  const pending = new PendingTokenStore(doc, tableName, cipher);
  const endpoints = loadFreeeEndpoints(env);
  const tokenEndpoint = new FreeeTokenEndpoint(endpoints.oauthBaseUrl, await loadFreeeAppCredentials(env));
  const bearerSecret = await loadMcpBearerSecret(env);
  const installations = new DynamoInstallationStore(doc, tableName, { cipher: installationCipher(env), cacheTtlMs: INSTALLATION_CACHE_MS });
  const slackFiles = new SlackFileFetcher({
    tokens: createBotTokenResolver(installations, env),
    clientFor: (token) => createWebClient(token, env),
    fileOrigins: [new URL(optionalEnv("SLACK_FILES_ORIGIN", env) ?? SLACK_FILE_HOST).origin],
  });
  return createFreeeMcpHandler({
    slackFiles,
    taskStore,
    audit: new AuditLog(taskStore, logger),
    logger,
    bearerSecret: async () => bearerSecret,
    writes: new WriteOnceLedger(doc, tableName),
    metrics: new PipelineMetrics(),
    sleep: options.sleep,
    freeeClient: (teamId) =>
      new FreeeClient({ teamId, store: connections, pending, tokenEndpoint, apiBaseUrl: endpoints.apiBaseUrl, logger, remainingTimeMs: invocationRemainingTimeMs, sleep: options.sleep }),
  });
}
