import type { SFNClient } from "@aws-sdk/client-sfn";
import { limitsEnvironment } from "../infra/settings";
import { L1_SYSTEM_PROMPT } from "../lib/model/l1-task";
import { L2_SYSTEM_PROMPT } from "../lib/model/l2-prompt";
import { L3_SYSTEM_PROMPT } from "../lib/model/l3-process";
import { cachePlan, type CachePlan } from "../lib/model/prompt-cache";
import { LAYER_DEFAULTS, type LayerName } from "../lib/model/settings";
import { taskIdFor } from "../lib/core/domain/records";
import { localSfnClient } from "../dev/local/local-sfn-client";
import type { LocalExecution } from "../dev/local/local-step-functions";
import type { AslDefinition } from "../dev/local/synth-definitions";
import { ActionIds } from "../lib/ingress/cards";
import { fromFunctionUrlEvent } from "../lib/ingress/http/types";
import type { IngressHandler } from "../lib/ingress/ingress";
import { createIngressFromEnv } from "../wiring/ingress-env";
import { jsonReply, messageReply, type ScriptedReply } from "../dev/fakes/anthropic";
import { ev } from "../dev/fakes/anthropic";
import { L1_REPLY, L3_STEPS, PROMPT_TEXT } from "../test/steps/fixtures";
import { startPipelineHarness, type PipelineHarness } from "../test/support/local-sfn";
import { signedInteraction, signedJson, TEST_SIGNING_SECRET } from "../test/support/slack-signing";
import type { CountingDynamo } from "./dynamo";
import { BENCH_CHANNEL, BENCH_TEAM, buttonClick, messageEnvelope, nextTs } from "./payloads";
import { median, round } from "./stats";
import type { TokenUsage } from "./prices";
import { DEFAULT_AGENT_MODEL } from "../lib/model/agent/agent-config";

export interface TaskCounts {
  stateTransitions: number;
  lambdaInvocations: number;
  stepLambdaInvocations: number;
  ingressInvocations: number;
  dynamoRequests: number;
  dynamoRequestsByOperation: Record<string, number>;
  /** By operation and the kind of item: what each request read or wrote (docs/bench.md says which step). */
  dynamoRequestsByItem: Record<string, number>;
  slackApiCalls: number;
  slackApiCallsByMethod: Record<string, number>;
  anthropicRequests: number;
  anthropicMessagesRequests: number;
  managedAgentsRequests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationInputTokens: number;
  /** Bytes of the Messages request bodies (the prompt size the model is sent). */
  messagesRequestBytes: number;
  /** Measured duration of every invocation, summed by function (ingress included), each rounded up to 1 ms as billed. */
  lambdaMsByFunction: Record<string, number>;
  lambdaMs: number;
  /** Each PollSession invocation's duration (ms), in order: a poll's cost is billed from these, not a difference. */
  pollSessionMs: number[];
  /** On-demand request units of the DynamoDB requests above (bench/dynamo.ts requestUnits). */
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
  /** Token usage by layer, with the model it was billed on (L1–L3 the scripted replies, L4 the execution record). */
  usageByLayer: Record<string, { model: string } & TokenUsage>;
}

export interface PollCounts {
  /** Extra poll iterations the second run was scripted with; the figures are per iteration. */
  iterationsMeasured: number;
  stateTransitions: number;
  lambdaInvocations: number;
  dynamoRequests: number;
  slackApiCalls: number;
  managedAgentsRequests: number;
  lambdaMs: number;
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
}

export interface PipelineResult {
  perTask: TaskCounts;
  perPoll: PollCounts;
  wallMs: number;
}

/**
 * One happy-path task end to end, on one machine: a signed Slack message into OUR ingress (lib/ingress, wired as
 * the Lambda wires it), the synthesized TaskPipeline / ExecutionRun run by test/support/local-sfn.ts with the
 * real step handlers, L1–L3 on the scripted Messages server, L4 on the scripted Managed Agents server, and the
 * two approvals clicked through the ingress. Counts come from where the work lands: the event log (state
 * transitions, Lambda invocations), a counting proxy in front of DynamoDB Local (bench/dynamo.ts), the recording Slack server, the fake
 * Anthropic servers, and the execution record (L4 token usage, as the app itself accounts it).
 * A second task whose L4 session stays `running` for `extraPolls` more polls gives the per-poll figures.
 */
export async function measurePipeline(dynamo: CountingDynamo, extraPolls = 3): Promise<PipelineResult> {
  const started = Date.now();
  const suiteDynamo = process.env.TEST_DYNAMODB_ENDPOINT;
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.LOG_LEVEL = "SILENT";
  const invocations: Invocation[] = [];
  const h = await startPipelineHarness({ onInvocation: (fn, ms) => invocations.push({ fn, ms }) });
  try {
    const env = {
      ...h.table.env,
      ...limitsEnvironment(h.machines.settings),
      SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
      SLACK_API_URL: h.slack.url,
      SLACK_BOT_TOKEN: "xoxb-bench",
      TASK_PIPELINE_ARN: h.machines.taskPipelineArn,
      EXECUTION_RUN_ARN: h.machines.executionRunArn,
    };
    const ingress = await createIngressFromEnv(env, { doc: h.table.doc, sfn: localSfnClient(h.local) as SFNClient });
    const first = await runTask(h, ingress, dynamo, 0, invocations);
    const second = await runTask(h, ingress, dynamo, extraPolls, invocations);
    const per = (key: keyof TaskCounts) => round(((second[key] as number) - (first[key] as number)) / extraPolls, 2);
    return {
      perTask: first,
      perPoll: {
        iterationsMeasured: extraPolls,
        stateTransitions: per("stateTransitions"),
        lambdaInvocations: per("lambdaInvocations"),
        dynamoRequests: per("dynamoRequests"),
        slackApiCalls: per("slackApiCalls"),
        managedAgentsRequests: per("managedAgentsRequests"),
        // Durations vary from run to run, so the difference of two tasks' totals could go negative: the running
        // polls' own median is billed instead (the second task's, all running but its last).
        lambdaMs: median(second.pollSessionMs.slice(0, -1)),
        dynamoReadUnits: per("dynamoReadUnits"),
        dynamoWriteUnits: per("dynamoWriteUnits"),
      },
      wallMs: Date.now() - started,
    };
  } finally {
    await h.close();
    await dynamo.close();
    if (suiteDynamo === undefined) delete process.env.TEST_DYNAMODB_ENDPOINT;
    else process.env.TEST_DYNAMODB_ENDPOINT = suiteDynamo;
  }
}

interface Invocation {
  fn: string;
  ms: number;
}

async function runTask(h: PipelineHarness, ingress: IngressHandler, dynamo: CountingDynamo, extraPolls: number, invocations: Invocation[]): Promise<TaskCounts> {
  const replies: ScriptedReply[] = [l1Reply(), l2Reply(), l3Reply()];
  h.anthropic.enqueue(...replies);
  h.agents.scriptNextSession({
    polls: [
      ...Array.from({ length: 1 + extraPolls }, () => ({ events: [ev.running()] })),
      { events: [ev.agentMessage("すべてのステップを実行しました。\n[result:done]"), ev.idle("end_turn")], usage: { input_tokens: 2400, output_tokens: 310, cache_read_input_tokens: 1800 } },
    ],
  });
  dynamo.reset();
  const slackBefore = h.slack.calls.length;
  const messagesBefore = h.anthropic.requests.length;
  const agentsBefore = h.agents.requests.length;
  const invocationsBefore = invocations.length;
  const ts = nextTs();
  const thread = { teamId: BENCH_TEAM, channelId: BENCH_CHANNEL, messageTs: ts };
  const taskId = taskIdFor(thread);
  let ingressInvocations = 0;
  const send = async (event: ReturnType<typeof signedJson>) => {
    ingressInvocations += 1;
    const started = performance.now();
    const response = await ingress(fromFunctionUrlEvent(event));
    invocations.push({ fn: "ingress", ms: performance.now() - started });
    if (response.statusCode !== 200) throw new Error(`bench pipeline: ingress answered ${response.statusCode}`);
  };

  await send(signedJson(messageEnvelope(ts)));
  const pipeline = await h.local.waitFor(() => h.local.execution("TaskPipeline", taskId), 10_000, "the TaskPipeline the message started");
  for (const [kind, state] of [["prompt", "AwaitPromptApproval"], ["process", "AwaitProcessApproval"]] as const) {
    await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === state), 15_000, `${kind} approval`);
    await send(signedInteraction(buttonClick(ActionIds.approve, { taskId, kind, version: 1 })));
  }
  await pipeline.done;
  if (pipeline.status !== "SUCCEEDED") throw new Error(`bench pipeline: TaskPipeline ${pipeline.status}: ${String(pipeline.cause)}`);
  const run = await h.local.waitFor(() => h.local.execution("ExecutionRun", `${taskId}-e1`), 10_000, "ExecutionRun");
  await run.done;
  if (run.status !== "SUCCEEDED") throw new Error(`bench pipeline: ExecutionRun ${run.status}: ${String(run.cause)}`);
  // Counted before the bench's own check below, which is no request of the task's.
  const dynamoRequests = dynamo.total();
  const dynamoRequestsByOperation = { ...dynamo.counts };
  const dynamoRequestsByItem = { ...dynamo.byItem };
  const units = dynamo.units;
  const lambdaMsByFunction: Record<string, number> = {};
  const pollSessionMs: number[] = [];
  for (const { fn, ms } of invocations.slice(invocationsBefore)) {
    lambdaMsByFunction[fn] = (lambdaMsByFunction[fn] ?? 0) + Math.ceil(ms);
    if (fn === "poll-session") pollSessionMs.push(Math.ceil(ms));
  }
  const history = await h.store.loadHistory(taskId);
  if (history.task.status !== "completed") throw new Error(`bench pipeline: task ended ${history.task.status}`);

  const slackCalls = h.slack.calls.slice(slackBefore);
  const messages = h.anthropic.requests.slice(messagesBefore);
  const usage = replies.map((r) => (r.body as { usage: Record<string, number | null> }).usage);
  const l4 = history.executions[0]?.usage;
  const pipelineCounts = countExecution(pipeline, h.machines.taskPipeline);
  const runCounts = countExecution(run, h.machines.executionRun);
  const stepLambdaInvocations = pipelineCounts.lambdaInvocations + runCounts.lambdaInvocations;
  const sum = (field: string) => usage.reduce((acc, u) => acc + (u[field] ?? 0), 0);
  return {
    stateTransitions: pipelineCounts.transitions + runCounts.transitions,
    lambdaInvocations: stepLambdaInvocations + ingressInvocations,
    stepLambdaInvocations,
    ingressInvocations,
    dynamoRequests,
    dynamoRequestsByOperation,
    dynamoRequestsByItem,
    slackApiCalls: slackCalls.length,
    slackApiCallsByMethod: tally(slackCalls.map((c) => c.method)),
    anthropicRequests: messages.length + (h.agents.requests.length - agentsBefore),
    anthropicMessagesRequests: messages.length,
    managedAgentsRequests: h.agents.requests.length - agentsBefore,
    inputTokens: sum("input_tokens") + (l4?.inputTokens ?? 0),
    outputTokens: sum("output_tokens") + (l4?.outputTokens ?? 0),
    cachedInputTokens: sum("cache_read_input_tokens") + (l4?.cacheReadInputTokens ?? 0),
    cacheCreationInputTokens: sum("cache_creation_input_tokens") + (l4?.cacheCreationInputTokens ?? 0),
    messagesRequestBytes: messages.reduce((acc, r) => acc + Buffer.byteLength(JSON.stringify(r.body ?? {})), 0),
    lambdaMsByFunction,
    lambdaMs: Object.values(lambdaMsByFunction).reduce((a, b) => a + b, 0),
    pollSessionMs,
    dynamoReadUnits: units.read,
    dynamoWriteUnits: units.write,
    usageByLayer: {
      ...Object.fromEntries(
        (["L1", "L2", "L3"] as const).map((layer, i) => {
          const u = usage[i]!;
          return [layer, { model: LAYER_DEFAULTS[layer].model, inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0, cacheReadInputTokens: u.cache_read_input_tokens ?? 0, cacheCreationInputTokens: u.cache_creation_input_tokens ?? 0 }];
        }),
      ),
      L4: { model: DEFAULT_AGENT_MODEL, inputTokens: l4?.inputTokens ?? 0, outputTokens: l4?.outputTokens ?? 0, cacheReadInputTokens: l4?.cacheReadInputTokens ?? 0, cacheCreationInputTokens: l4?.cacheCreationInputTokens ?? 0 },
    },
  };
}

/**
 * Step Functions bills a state transition per state entered (a retry re-runs the state: one more). A Lambda
 * is invoked per entry or retry of a Task state (waitForTaskToken states invoke theirs once per entry too).
 */
function countExecution(execution: LocalExecution, definition: AslDefinition): { transitions: number; lambdaInvocations: number } {
  let transitions = 0;
  let lambdaInvocations = 0;
  for (const event of execution.events) {
    if (event.type !== "StateEntered" && event.type !== "StateRetried") continue;
    transitions += 1;
    const name = (event as { state?: { name?: string } }).state?.name ?? "";
    if (definition.States[name]?.Type === "Task") lambdaInvocations += 1;
  }
  return { transitions, lambdaInvocations };
}

function tally(names: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of names) out[n] = (out[n] ?? 0) + 1;
  return out;
}

export type LayerCache = CachePlan & { model: string };

/**
 * Each layer's static prefix (its system block) against its model's minimum cacheable prompt, at the default
 * settings: the estimate of lib/model/prompt-cache.ts (low side: 4 ASCII characters or 0.75 of another per token).
 */
export function layerCaches(): Record<LayerName, LayerCache> {
  const systems: Record<LayerName, string> = { L1: L1_SYSTEM_PROMPT, L2: L2_SYSTEM_PROMPT, L3: L3_SYSTEM_PROMPT };
  const out = {} as Record<LayerName, LayerCache>;
  for (const layer of ["L1", "L2", "L3"] as const) out[layer] = { model: LAYER_DEFAULTS[layer].model, ...cachePlan(LAYER_DEFAULTS[layer].model, systems[layer]) };
  return out;
}

/**
 * The replies of test/steps/fixtures.ts with usage a real reply could carry: a layer whose prefix is cached
 * reads it (a warm cache: another task within the 5-minute TTL) and pays input for its ~250-token user message
 * only; L1, whose prefix is below Haiku's minimum, pays input for all of it and caches nothing.
 */
function usageOf(layer: LayerName, outputTokens: number) {
  const plan = layerCaches()[layer];
  const user = 250;
  return plan.breakpoint
    ? { input_tokens: user, output_tokens: outputTokens, cache_read_input_tokens: plan.prefixTokensEstimate, cache_creation_input_tokens: 0 }
    : { input_tokens: plan.prefixTokensEstimate + user, output_tokens: outputTokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}
const l1Reply = (): ScriptedReply => jsonReply({ kind: "request", reply: null, task: L1_REPLY }, { usage: usageOf("L1", 180) });
const l2Reply = (): ScriptedReply => messageReply({ texts: [PROMPT_TEXT], usage: usageOf("L2", 400) });
const l3Reply = (): ScriptedReply => jsonReply({ steps: L3_STEPS }, { usage: usageOf("L3", 300) });
