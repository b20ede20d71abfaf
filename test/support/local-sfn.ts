import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { StartExecutionCommand, type SFNClient } from "@aws-sdk/client-sfn";
import { AuditLog } from "../../lib/store/audit-log";
import { ONE_PERSON_POLICY } from "../../lib/core/domain/approval-policy";
import { AdminDirectory, TeamSettingsStore, type ActionDeps, type Actor } from "../../lib/ingress/actions";
import { limitsEnvironment } from "../../infra/settings";
import { PIPELINE_FUNCTIONS, RUN_FUNCTIONS, type StepFunctionName } from "../../infra/state-machines/functions";
import type { SlackThread } from "../../lib/core/domain/records";
import { taskIdFor } from "../../lib/core/domain/records";
import { localSfnClient } from "../../dev/local/local-sfn-client";
import { LocalStepFunctions, type EventLog, type LocalExecution, type LocalHandler } from "../../dev/local/local-step-functions";
import { synthesizeMachines, type SynthesizedMachines } from "../../dev/local/synth-definitions";
import { createLogger } from "../../lib/core/observability/logger";
import type { DefinedStep } from "../../lib/steps/step-handler";
import { createCardRefresher } from "../../wiring/slack-factory";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { TaskStore } from "../../lib/store/task-store";
import { listenFetch } from "../../dev/local/node-http";
import { handleSfnRequest } from "../../dev/local/sfn-http-facade";
import { startTestTable, type TestTable } from "./dynamo";
import { startHttpRouter } from "./http-router";
import { holdTestsToScripts } from "./open-harnesses";
import type { BundledStep } from "./step-bundles";
import { startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { startFakeManagedAgents, type FakeAnthropic as FakeManagedAgents } from "../../dev/fakes/anthropic";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { accessKeyFor, type RecordingDynamo } from "./recording-dynamo";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { until } from "./until";
import { connect } from "../freee/helpers";

export const ANTHROPIC_TEST_KEY = "sk-ant-test-pipeline";
export const MCP_BEARER_SECRET = "test-mcp-bearer-secret-0123456789abcdef";
export const REQUESTER = "UREQ";

/**
 * The whole back end on one machine: the synthesized TaskPipeline / ExecutionRun run by aws-local-stepfunctions,
 * every Task state mapped to the REAL Lambda handler (lambdas/<name>/handler.ts) wired with the production deps
 * (each step's own `wire`) pointed at DynamoDB Local, a scripted Anthropic Messages server (L1–L3), a scripted Managed
 * Agents server (L4) and a recording Slack. Approvals and cancels go through the real lib/ingress/actions code with a
 * local Step Functions client, exactly as the ingress calls them.
 */
export interface PipelineHarness {
  machines: SynthesizedMachines;
  local: LocalStepFunctions;
  table: TestTable;
  anthropic: FakeAnthropic;
  agents: FakeManagedAgents;
  slack: FakeSlack;
  /** The strict freee the preview reads; workspace T0001 is connected to its company 101. */
  freee: FakeFreee;
  /** (Re)connect a workspace to the fake with fresh tokens. */
  connectFreee(teamId?: string): Promise<void>;
  /**
   * Put the fake freee's companies back as seeded: a test whose plan writes what an earlier test already wrote
   * would change nothing, and the preview takes such a write out of the plan.
   */
  resetFreeeData(): void;
  /** The settings every step Lambda was built with (table, Slack, freee): what a freee MCP server beside them needs. */
  env: Record<string, string>;
  store: TaskStore;
  actions: ActionDeps;
  /** Start a TaskPipeline as the ingress does (execution name = task id). */
  startTask(text?: string): { execution: LocalExecution; taskId: string; thread: SlackThread };
  actor: Actor;
  /** The next StartExecution calls (any machine) fail with these errors, in order (as the SDK would throw them). */
  failStartExecution(...errors: Error[]): void;
  /** The next invocations of a step Lambda fail with these errors before running (as the Lambda service reports them). */
  failInvocation(fn: StepFunctionName, ...errors: Error[]): void;
  /** Resolve once no invocation of this step Lambda is running (one a stopped execution had started still ends). */
  idle(fn: StepFunctionName): Promise<void>;
  close(): Promise<void>;
}

let threadCounter = 0;

export interface PipelineHarnessOptions {
  context?: Record<string, unknown>;
  env?: Record<string, string>;
  /**
   * Run the esbuild bundles (test/support/step-bundles.ts) as the Task resources instead of the TypeScript
   * handlers: each bundle wires itself from `process.env` exactly as on AWS (Step Functions through the local
   * HTTP facade at `SFN_ENDPOINT`, Anthropic through one base URL). `failStartExecution` is not available.
   */
  bundles?: Record<StepFunctionName, BundledStep>;
  /**
   * Route every handler's DynamoDB calls through this recorder, each signed as its Lambda (AWS_ACCESS_KEY_ID =
   * accessKeyFor(the folder name); the actions as `ingress`), as test/infra/table-access.test.ts checks them against IAM.
   */
  dynamo?: RecordingDynamo;
  /** Told each finished invocation's duration (the bench bills GB-seconds from them). */
  onInvocation?: (fn: StepFunctionName, ms: number) => void;
}

export async function startPipelineHarness(options: PipelineHarnessOptions = {}): Promise<PipelineHarness> {
  process.env.LOG_LEVEL ??= "SILENT";
  const machines = synthesizeMachines(options.context);
  const [table, anthropic, agents, slack, freee] = await Promise.all([
    startTestTable(),
    startFakeAnthropic({ apiKey: ANTHROPIC_TEST_KEY }),
    // Bundles share one ANTHROPIC_API_KEY (one process env), so both fakes accept the same key then.
    startFakeManagedAgents(options.bundles === undefined ? {} : { apiKey: ANTHROPIC_TEST_KEY }),
    // The bot token Slack issued: the default, or the one the caller's env names.
    startFakeSlack({ botTokens: ["xoxb-test-pipeline", ...(options.env?.SLACK_BOT_TOKEN === undefined ? [] : [options.env.SLACK_BOT_TOKEN])] }),
    startFakeFreee(),
  ]);
  // The runs' channel is private (Slack's conversations.info facts): an HR plan's card there carries its [承認]
  // button. The public-channel card, approved in the private view, is test/e2e/approval-policy.test.ts.
  slack.directory.addChannel({ id: "C0001", isPrivate: true, name: "payroll" });
  options.dynamo?.forwardTo(table.endpoint);
  const dynamoEnv: Record<string, string> = options.dynamo === undefined ? {} : { DYNAMODB_ENDPOINT: options.dynamo.endpoint };
  // The key the steps decrypt with: a caller that sets its own (options.env) has the connection sealed with it too.
  const freeeKey = options.env?.FREEE_TOKEN_LOCAL_KEY ?? randomBytes(32).toString("base64");
  const freeeEnv = { FREEE_API_BASE_URL: freee.url, FREEE_OAUTH_BASE_URL: freee.url, FREEE_CLIENT_ID: FAKE_CLIENT_ID, FREEE_CLIENT_SECRET: FAKE_CLIENT_SECRET, FREEE_TOKEN_LOCAL_KEY: freeeKey };
  const common = { ...table.env, ...dynamoEnv, ...limitsEnvironment(machines.settings), SLACK_API_URL: slack.url, SLACK_BOT_TOKEN: "xoxb-test-pipeline", ...freeeEnv, ...options.env };
  const connections = new FreeeConnectionStore(table.doc, table.tableName, new LocalTokenCipher(freeeKey));
  const connectFreee = async (teamId = "T0001") => {
    await connect(connections, freee, teamId, undefined, { connectedBy: REQUESTER });
  };
  await connectFreee();
  const seeded = structuredClone(freee.companies);
  const resetFreeeData = () => void freee.companies.splice(0, freee.companies.length, ...structuredClone(seeded));
  // Only requesters click in these runs: the workspace is one person's, who approves their own plans.
  await new TeamSettingsStore(table.doc, table.tableName).savePolicy("T0001", ONE_PERSON_POLICY, REQUESTER, undefined);
  const layerEnv = { ...common, ANTHROPIC_BASE_URL: anthropic.baseURL, ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY, L1_TIMEOUT_MS: "400", L2_TIMEOUT_MS: "400", L3_TIMEOUT_MS: "400", ...options.env };
  const agentEnv = { ...common, ANTHROPIC_BASE_URL: agents.url, ANTHROPIC_API_KEY: agents.apiKey, MCP_SERVER_URL: "https://mcp.example.test/mcp", MCP_BEARER_SECRET, ...options.env };

  let local!: LocalStepFunctions;
  // The runner needs the handlers and the handlers need the runner's client: resolve it at call time.
  const sfnFaults: Error[] = [];
  const sfn = () =>
    ({
      send: async (command: unknown) => {
        const fault = command instanceof StartExecutionCommand ? sfnFaults.shift() : undefined;
        if (fault !== undefined) throw fault;
        return localSfnClient(local).send(command as never);
      },
    }) as unknown as ReturnType<typeof localSfnClient>;
  const handlers = {} as Record<StepFunctionName, LocalHandler>;
  let closeBundled = async () => {};
  if (options.bundles !== undefined) {
    closeBundled = await wireBundledEnvironment({ common, anthropic, agents, machines, local: () => local, env: options.env });
    for (const [name, bundled] of Object.entries(options.bundles) as [StepFunctionName, BundledStep][]) {
      handlers[name] = (event: unknown) => bundled.handler(event, lambdaContext(name)) as never;
    }
  } else {
    const steps = await loadSteps();
    for (const [name, step] of Object.entries(steps) as [StepFunctionName, DefinedStep<unknown>][]) {
      const env = step.needs.agent ? agentEnv : step.needs.layers ? layerEnv : common;
      const deps = await step.wire({ ...env, EXECUTION_RUN_ARN: machines.executionRunArn, ...(options.dynamo === undefined ? {} : { AWS_ACCESS_KEY_ID: accessKeyFor(name) }) });
      handlers[name] = step.withDeps({ ...deps, sfn: sfn() });
    }
  }
  const invocationFaults = new Map<StepFunctionName, Error[]>();
  const running = new Map<StepFunctionName, number>();
  for (const [name, run] of Object.entries(handlers) as [StepFunctionName, LocalHandler][]) {
    handlers[name] = (async (event: unknown) => {
      const fault = invocationFaults.get(name)?.shift();
      if (fault !== undefined) throw fault;
      running.set(name, (running.get(name) ?? 0) + 1);
      const started = performance.now();
      try {
        return await (run as (e: unknown) => Promise<unknown>)(event);
      } finally {
        running.set(name, (running.get(name) ?? 1) - 1);
        options.onInvocation?.(name, performance.now() - started);
      }
    }) as LocalHandler;
  }
  local = new LocalStepFunctions({ machines, handlers });

  const store = new TaskStore(table.doc, table.tableName);
  const log = createLogger("test-ingress");
  // The clicks run where the ingress runs them: with the ingress's identity when calls are recorded.
  const ingressDoc = options.dynamo === undefined ? table.doc : createDocumentClient({ ...common, AWS_ACCESS_KEY_ID: "ingress" });
  const ingressStore = options.dynamo === undefined ? store : new TaskStore(ingressDoc, table.tableName);
  const actions: ActionDeps = {
    store: ingressStore,
    doc: ingressDoc,
    sfn: sfn() as SFNClient,
    audit: new AuditLog(ingressStore, log),
    cards: createCardRefresher(ingressStore, ingressDoc, common),
    // Only requesters click in these runs: nobody else is an admin (no Slack role is ever needed).
    admins: new AdminDirectory({ adminUserIds: [], settings: new TeamSettingsStore(ingressDoc, table.tableName), lookup: async () => undefined }),
    // No approval policy here names a user group.
    groupMembers: { isMember: async () => false },
    limits: machines.settings,
    executionRunArn: machines.executionRunArn,
    log,
  };
  // test/setup/scripted-replies.ts holds each test to what it scripted.
  const releaseScripts = holdTestsToScripts(anthropic, agents);
  return {
    machines,
    local,
    table,
    anthropic,
    agents,
    slack,
    freee,
    connectFreee,
    resetFreeeData,
    env: common,
    store,
    actions,
    actor: { teamId: "T0001", userId: REQUESTER },
    failStartExecution: (...errors) => void sfnFaults.push(...errors),
    failInvocation: (fn, ...errors) => void invocationFaults.set(fn, [...(invocationFaults.get(fn) ?? []), ...errors]),
    async idle(fn) {
      await until(`${fn} to finish running`, () => (running.get(fn) ?? 0) === 0, 10);
    },
    startTask(text = "来月から山田さんの基本給を30万円に変更して") {
      threadCounter += 1;
      const thread = { teamId: "T0001", channelId: "C0001", messageTs: `1700000${String(threadCounter).padStart(3, "0")}.000100` };
      const taskId = taskIdFor(thread);
      const execution = local.startExecution(machines.taskPipelineArn, taskId, { thread, requesterId: REQUESTER, requestText: text });
      return { execution, taskId, thread };
    },
    async close() {
      releaseScripts();
      for (const execution of local.executions.values()) if (execution.status === "RUNNING") execution.abort();
      await Promise.all([...local.executions.values()].map((e) => e.done));
      await closeBundled();
      await Promise.all([anthropic.close(), agents.close(), slack.close(), freee.stop()]);
      await table.close();
    },
  };
}

/** The real Lambda handler modules, by folder. */
async function loadSteps(): Promise<Record<StepFunctionName, DefinedStep<unknown>>> {
  const entries = await Promise.all(
    [...PIPELINE_FUNCTIONS, ...RUN_FUNCTIONS].map(async (name) => {
      const mod = (await import(`../../lambdas/${name}/handler.ts`)) as { step: DefinedStep<unknown> };
      return [name, mod.step] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<StepFunctionName, DefinedStep<unknown>>;
}

/**
 * The process environment a bundled Lambda reads, as the stack sets it: one Anthropic base URL routed to the
 * Messages or Managed Agents fake, Step Functions over its HTTP API (the local facade), the table, Slack.
 */
async function wireBundledEnvironment(w: {
  common: Record<string, string>;
  anthropic: FakeAnthropic;
  agents: FakeManagedAgents;
  machines: SynthesizedMachines;
  local: () => LocalStepFunctions;
  env: Record<string, string> | undefined;
}): Promise<() => Promise<void>> {
  const router = await startHttpRouter([{ prefix: "/v1/messages", target: w.anthropic.baseURL }], w.agents.url);
  const facade = await listenFetch("127.0.0.1", 0, createLogger("test-sfn-facade"));
  facade.setHandler((request) => handleSfnRequest(w.local(), request));
  const env: Record<string, string> = {
    ...w.common,
    ANTHROPIC_BASE_URL: router.url,
    ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY,
    L1_TIMEOUT_MS: "400",
    L2_TIMEOUT_MS: "400",
    L3_TIMEOUT_MS: "400",
    MCP_SERVER_URL: "https://mcp.example.test/mcp",
    MCP_BEARER_SECRET,
    EXECUTION_RUN_ARN: w.machines.executionRunArn,
    SFN_ENDPOINT: `http://127.0.0.1:${facade.port}`,
    AWS_REGION: "us-east-1",
    ...w.env,
  };
  const previous = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return async () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await Promise.all([router.close(), facade.close()]);
  };
}

/** The parts of the Lambda context the handlers read (a generous deadline: local runs are not timed). */
function lambdaContext(name: string) {
  const deadline = Date.now() + 900_000;
  return {
    functionName: name,
    awsRequestId: `local-${name}-${Date.now()}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

// ---------------------------------------------------------------- reading the event log

/** How many times a state was retried (StateRetried events). */
export function retriesOf(execution: LocalExecution, stateName: string): number {
  return execution.events.filter((e) => e.type === "StateRetried" && stateOf(e) === stateName).length;
}

/** How many times a state was entered (a Catch loop re-enters; a Retry does not). */
export function entriesOf(execution: LocalExecution, stateName: string): number {
  return execution.events.filter((e) => e.type === "StateEntered" && stateOf(e) === stateName).length;
}

/** The errors a state failed with, in order (StateFailed events). */
export function failuresOf(execution: LocalExecution, stateName: string): string[] {
  return execution.events.filter((e) => e.type === "StateFailed" && stateOf(e) === stateName).map((e) => (e as { Error: string }).Error);
}

/** Names of the states entered, in order. */
export function path(execution: LocalExecution): string[] {
  return execution.events.filter((e) => e.type === "StateEntered").map((e) => stateOf(e) ?? "?");
}

export function caughtBy(execution: LocalExecution, stateName: string): boolean {
  return execution.events.some((e) => e.type === "StateCaught" && stateOf(e) === stateName);
}

function stateOf(event: EventLog): string | undefined {
  return (event as { state?: { name?: string } }).state?.name;
}
