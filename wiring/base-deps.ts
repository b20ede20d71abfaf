import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { AuditLog } from "../lib/store/audit-log";
import type { AgentRunner } from "../lib/model/agent/agent-runner";
import { requireEnv, type Env } from "../lib/core/config/env";
import { loadLimits } from "../lib/core/config/limits";
import { FatalConfigError } from "../lib/core/errors/taxonomy";
import { WriteOnceLedger } from "../lib/store/write-ledger";
import { createLogger } from "../lib/core/observability/logger";
import { PipelineMetrics } from "../lib/core/observability/metrics";
import type { PreviewClient } from "../lib/preview/reader";
import { createCardRefresher } from "./slack-factory";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { TaskStore } from "../lib/store/task-store";
import { TeamSettingsStore } from "../lib/store/team-settings";
import { readConnectionStatus } from "../lib/store/freee-connection-status";
import type { PipelineDeps, PipelineLayers } from "../lib/steps/ports";

/** What a step's wiring has built so far: its deps, and the clients the optional ports are built on. */
export interface Wiring {
  service: string;
  env: Env;
  doc: DynamoDBDocumentClient;
  tableName: string;
  deps: PipelineDeps;
}

/**
 * The dependencies every pipeline step has (table, audit, cards, write ledger, limits, metrics), read from
 * the environment once per cold start: a missing setting is a FatalConfigError now, not halfway through a task.
 * The model, the agent, freee reads and Step Functions are ports of their own (wiring/layers.ts, agent.ts,
 * freee-reads.ts, execution-run.ts), so a step's bundle holds only the clients it imports; a port a step was
 * not wired with throws FatalConfigError if called (a wiring bug, loud).
 */
export function baseWiring(service: string, env: Env = process.env): Wiring {
  const doc = createDocumentClient(env);
  const tableName = requireEnv("TABLE_NAME", env);
  const store = new TaskStore(doc, tableName);
  const log = createLogger(service);
  return {
    service,
    env,
    doc,
    tableName,
    deps: {
      store,
      audit: new AuditLog(store, log),
      log,
      cards: createCardRefresher(store, doc, env),
      layers: notWired<PipelineLayers>(service, "layers"),
      agent: notWired<AgentRunner>(service, "agent"),
      freee: () => notWired<PreviewClient>(service, "freee"),
      freeeConnection: (teamId) => readConnectionStatus(doc, tableName, teamId),
      writes: new WriteOnceLedger(doc, tableName),
      sfn: notWired<PipelineDeps["sfn"]>(service, "sfn"),
      limits: loadLimits(env),
      executionRunArn: undefined,
      metrics: new PipelineMetrics(),
      settings: new TeamSettingsStore(doc, tableName),
      clock: () => new Date(),
    },
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
