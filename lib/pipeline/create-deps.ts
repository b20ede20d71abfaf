import { createSfnClient } from "../workflow/sfn-client";
import { AuditLog } from "../audit/audit-log";
import type { AgentRunner } from "../agent/agent-runner";
import { createAgentRunner } from "../agent/create-agent-runner";
import { requireEnv, type Env } from "../config/env";
import { loadLimits } from "../config/limits";
import { FatalConfigError } from "../errors/taxonomy";
import { createAnthropicClientFromEnv } from "../layers/anthropic-client";
import { loadLayerSettings } from "../layers/settings";
import { createLogger } from "../observability/logger";
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
    layers: needs.layers ? new AnthropicLayers(() => createAnthropicClientFromEnv(env), loadLayerSettings(env), { metrics }) : notWired<PipelineLayers>(service, "layers"),
    agent: needs.agent ? await createAgentRunner(env, { doc, logger: log }) : notWired<AgentRunner>(service, "agent"),
    sfn: createSfnClient(env),
    limits: loadLimits(env),
    executionRunArn: needs.executionRun ? requireEnv("EXECUTION_RUN_ARN", env) : undefined,
    metrics,
    clock: () => new Date(),
  };
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
