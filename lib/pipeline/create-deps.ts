import type { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createSfnClient } from "../workflow/sfn-client";
import { AuditLog } from "../audit/audit-log";
import type { AgentRunner } from "../agent/agent-runner";
import { createAgentRunner } from "../agent/create-agent-runner";
import { intEnv, requireEnv, type Env } from "../config/env";
import { loadLimits } from "../config/limits";
import { FatalConfigError } from "../errors/taxonomy";
import { FreeeClient } from "../freee/client";
import { loadFreeeAppCredentials, loadFreeeEndpoints } from "../freee/config";
import { FreeeConnectionStore } from "../freee/connection-store";
import { PendingTokenStore } from "../freee/pending-tokens";
import { createTokenCipher } from "../freee/token-cipher";
import { FreeeTokenEndpoint } from "../freee/token-endpoint";
import { createAnthropicClientFromEnv } from "../anthropic/client";
import { loadLayerSettings } from "../layers/settings";
import { WriteOnceLedger } from "../mcp/write-once";
import { createLogger } from "../observability/logger";
import { PREVIEW_CLIENT, type PreviewClient } from "../preview/reader";
import { PipelineMetrics } from "../observability/metrics";
import { createCardRefresher } from "../slack/factory";
import { createDocumentClient } from "../store/dynamo-client";
import { TaskStore } from "../store/task-store";
import { AnthropicLayers } from "./anthropic-layers";
import type { PipelineDeps, PipelineLayers } from "./ports";

export interface DepsNeeds {
  /** L1–L3 (Anthropic Messages): TaskPipeline generation Lambdas. */
  layers?: boolean;
  /** L4 (Managed Agents): ExecutionRun Lambdas. */
  agent?: boolean;
  /** StartExecution(ExecutionRun): the Lambda that starts the first run. */
  executionRun?: boolean;
  /** freee reads with the workspace's connection (the preview). */
  freee?: boolean;
}

/**
 * The production dependencies of a pipeline Lambda, read from the environment once per cold start: a missing
 * setting the function needs is a FatalConfigError now, not halfway through a task. Ports a function does not
 * need throw FatalConfigError if called (a wiring bug, loud).
 */
export async function createPipelineDeps(service: string, needs: DepsNeeds, env: Env = process.env): Promise<PipelineDeps> {
  const doc = createDocumentClient(env);
  const store = new TaskStore(doc, requireEnv("TABLE_NAME", env));
  const log = createLogger(service);
  const audit = new AuditLog(store, log);
  const metrics = new PipelineMetrics();
  return {
    store,
    audit,
    log,
    cards: createCardRefresher(store, doc, env),
    layers: needs.layers ? new AnthropicLayers(() => createAnthropicClientFromEnv("layers", env), loadLayerSettings(env), { metrics }) : notWired<PipelineLayers>(service, "layers"),
    agent: needs.agent ? await createAgentRunner(env, { doc, logger: log }) : notWired<AgentRunner>(service, "agent"),
    freee: needs.freee ? await freeeReadClients(doc, requireEnv("TABLE_NAME", env), log, env) : () => notWired<PreviewClient>(service, "freee"),
    writes: new WriteOnceLedger(doc, requireEnv("TABLE_NAME", env)),
    sfn: createSfnClient(env),
    limits: loadLimits(env),
    executionRunArn: needs.executionRun ? requireEnv("EXECUTION_RUN_ARN", env) : undefined,
    metrics,
    clock: () => new Date(),
  };
}

/**
 * FreeeClients for reads, built as the MCP server builds them (lib/mcp/create-from-env.ts) — the same
 * connection, token refresh and lease — but with the client's own retries off: the preview is a state of the
 * pipeline, and its Retry rows are the only retry policy (DESIGN §2).
 */
async function freeeReadClients(doc: DynamoDBDocumentClient, tableName: string, logger: Logger, env: Env): Promise<(teamId: string) => PreviewClient> {
  const cipher = createTokenCipher(env);
  const connections = new FreeeConnectionStore(doc, tableName, cipher);
  const pending = new PendingTokenStore(doc, tableName, cipher);
  const endpoints = loadFreeeEndpoints(env);
  const tokenEndpoint = new FreeeTokenEndpoint(endpoints.oauthBaseUrl, await loadFreeeAppCredentials(env));
  const requestTimeoutMs = intEnv("FREEE_READ_TIMEOUT_MS", PREVIEW_CLIENT.requestTimeoutMs, env);
  return (teamId) => new FreeeClient({ teamId, store: connections, pending, tokenEndpoint, apiBaseUrl: endpoints.apiBaseUrl, logger, ...PREVIEW_CLIENT, requestTimeoutMs });
}

function notWired<T extends object>(service: string, port: string): T {
  return new Proxy({} as T, {
    get(_target, method) {
      return () => {
        throw new FatalConfigError(`${service} does not wire the ${port} port (called ${String(method)})`, { details: { service, port } });
      };
    },
  });
}
