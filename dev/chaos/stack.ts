import { randomUUID } from "node:crypto";
import { RUN_FUNCTIONS } from "../../infra/state-machines/functions";
import { startLocalStack, type LocalStack } from "../local/local-stack";
import type { FakeAnthropic } from "../fakes/anthropic";
import type { FakeFreee } from "../fakes/freee/fake-freee";
import type { FakeSlack } from "../fakes/slack/fake-slack";
import { TaskStore } from "../../lib/store/task-store";
import { startFaultProxy, type FaultProxy } from "./fault-proxy";
import type { Dependency } from "./faults";
import { PhaseTracker } from "./phases";

/**
 * One whole back end for one cell: the `npm run dev` sandbox stack (DynamoDB Local, the synthesized state machines with
 * the real handlers, the ingress, the MCP server and the strict fakes of dev/fakes: Slack, the model playing
 * the sessions itself, and the freee company) with every dependency behind a fault proxy. The stack's consumer hook gives each consumer (the
 * ingress, the MCP server, each step Lambda) endpoints that name it, so a fault can be aimed at one of them.
 */
export interface ChaosStack {
  stack: LocalStack;
  proxies: Record<Dependency, FaultProxy>;
  phases: PhaseTracker;
  slack: FakeSlack;
  model: FakeAnthropic;
  freee: FakeFreee;
  /** The stack's own store: it reads DynamoDB directly (the checks must not meet the faults). */
  direct: TaskStore;
  close(): Promise<void>;
}

export interface ChaosStackOptions {
  /** Pause of the scripted agent before each step (ms). */
  stepDelayMs?: number;
  env?: Record<string, string>;
  /** A DynamoDB that already runs (one DynamoDB Local for every cell, or the test suite's): the cell gets its own table on it. */
  dynamoEndpoint?: string;
}

/** Which proxy stands in front of which endpoint setting. */
const ENDPOINTS: ReadonlyArray<{ key: string; dependency: (consumer: string) => Dependency }> = [
  { key: "DYNAMODB_ENDPOINT", dependency: () => "DynamoDB" },
  { key: "SFN_ENDPOINT", dependency: () => "Step Functions" },
  { key: "SLACK_API_URL", dependency: () => "Slack" },
  // One scripted model serves both APIs: the run's Lambdas talk Managed Agents, the pipeline's talk Messages.
  { key: "ANTHROPIC_BASE_URL", dependency: (consumer) => ((RUN_FUNCTIONS as readonly string[]).includes(consumer) ? "Managed Agents" : "Anthropic Messages") },
  { key: "FREEE_API_BASE_URL", dependency: () => "freee" },
  { key: "FREEE_OAUTH_BASE_URL", dependency: () => "freee" },
];

export async function startChaosStack(options: ChaosStackOptions = {}): Promise<ChaosStack> {
  let stack: LocalStack | undefined;
  const phases = new PhaseTracker(() => stack?.local);
  // What each proxy forwards to, learnt from the stack's environment when the first consumer is built.
  const targets: Partial<Record<Dependency, string>> = {};
  const target = (dependency: Dependency) => () => {
    const url = targets[dependency];
    if (url === undefined) throw new Error(`chaos: no target for ${dependency} yet`);
    return url;
  };
  const names: Dependency[] = ["DynamoDB", "Step Functions", "Slack", "Anthropic Messages", "Managed Agents", "freee"];
  const started = await Promise.all(names.map((dependency) => startFaultProxy({ dependency, target: target(dependency), phases: () => phases.active() })));
  const proxies = Object.fromEntries(started.map((p) => [p.dependency, p])) as Record<Dependency, FaultProxy>;

  const consumerEnv = (consumer: string, env: Readonly<Record<string, string>>): Record<string, string> => {
    const out = { ...env };
    for (const { key, dependency } of ENDPOINTS) {
      const real = env[key];
      if (real === undefined) continue;
      const dep = dependency(consumer);
      const base = real.replace(/\/+$/, "");
      targets[dep] ??= base;
      if (targets[dep] !== base) throw new Error(`chaos: ${dep} has two targets (${targets[dep]} and ${base})`);
      out[key] = `${proxies[dep].url}/@${consumer}${real.endsWith("/") ? "/" : ""}`;
    }
    return out;
  };

  stack = await startLocalStack(
    {
      PATH: process.env.PATH,
      LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? "SILENT",
      POWERTOOLS_METRICS_DISABLED: "true",
      PORT: "0",
      DATA_DIR: ":memory:",
      SANDBOX_STEP_DELAY_MS: String(options.stepDelayMs ?? 30),
      LOCAL_WAIT_MS: "20",
      LOCAL_RETRY_MS: "20",
      // The chaos user approves their own plans (one person's workspace).
      LOCAL_APPROVAL_POLICY: "one_person",
      // Client timeouts short enough that a "timeout" cell takes seconds, not minutes.
      L1_TIMEOUT_MS: "1500",
      L2_TIMEOUT_MS: "1500",
      L3_TIMEOUT_MS: "1500",
      ANTHROPIC_TIMEOUT_MS: "1500",
      ...(options.dynamoEndpoint === undefined ? {} : { DYNAMODB_ENDPOINT: options.dynamoEndpoint, TABLE_NAME: `chaos-${randomUUID()}` }),
      ...options.env,
    },
    { consumerEnv },
  );
  const { slack, model, freee } = stack;
  if (slack === undefined || model === undefined || freee === undefined) throw new Error("chaos: the stack must run in sandbox mode");
  const up = stack;
  return {
    stack: up,
    proxies,
    phases,
    slack,
    model,
    freee,
    direct: up.store,
    async close() {
      await up.close();
      await Promise.all(Object.values(proxies).map((p) => p.close()));
    },
  };
}
