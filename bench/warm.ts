import { randomBytes } from "node:crypto";
import diagnostics_channel from "node:diagnostics_channel";
import type { ClientRequest } from "node:http";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { taskIdFor } from "../lib/core/domain/records";
import { ActionIds } from "../lib/ingress/cards";
import { createTokenCipher } from "../lib/store/token-cipher";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createCardRefresher } from "../wiring/slack-factory";
import { DynamoInstallationStore } from "../lib/store/installations";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { TaskStore } from "../lib/store/task-store";
import { signedInteraction, signedJson, TEST_SIGNING_SECRET, type FunctionUrlEvent } from "../test/support/slack-signing";
import type { CountingDynamo } from "./dynamo";
import { BENCH_CHANNEL, BENCH_REQUESTER, BENCH_TEAM, buttonClick, messageEnvelope, nextTs, rejectSubmission } from "./payloads";
import type { LocalSfnServer } from "./sfn-server";
import { percentile, round } from "./stats";

type LambdaHandler = (event: FunctionUrlEvent, context: unknown) => Promise<{ statusCode: number; body?: string }>;

export const TASK_PIPELINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:TaskPipeline";
export const EXECUTION_RUN_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:ExecutionRun";

export interface LatencyStats {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

/** Upstream calls (DynamoDB, Step Functions, Slack) one request of ours makes before its response. */
export interface AckUpstreamCalls {
  message: number;
  approve: number;
  rejectClick: number;
  rejectSubmit: number;
  cancel: number;
}

export interface WarmResult {
  ackUpstreamCalls: AckUpstreamCalls;
  ours: {
    all: LatencyStats;
    message: LatencyStats;
    click: LatencyStats;
    /** Of each timed click, the time spent waiting on DynamoDB's answer (the decision write), and the rest. */
    clickDynamoWait: LatencyStats;
    clickWithoutDynamoWait: LatencyStats;
    dynamoRequestsPerMessage: number; dynamoRequestsPerClick: number; slackCallsPerClick: number };
  baseline: { all: LatencyStats; message: LatencyStats; click: LatencyStats; slackCallsPerClick: number };
}

export interface WarmOptions {
  ours: string;
  baseline: string;
  requests: number;
  warmup: number;
  dynamo: CountingDynamo;
  sfn: LocalSfnServer;
  slack: { url: string; calls: unknown[] };
}

/**
 * Warm latency, in one process: both bundles imported (the files Lambda would run), each request awaited
 * alone (one request per Lambda instance at a time), ours and the baseline alternating request by request so
 * drift hits both. Ours runs as deployed (multi-workspace: the bot token comes from the installation item);
 * every click of ours approves a fresh pending version (seeded before timing), so each does the full path:
 * conditional write, audit, SendTaskSuccess, card refresh. A response other than 200, or a pipeline call that
 * did not happen, fails the bench.
 *
 * Ours is loaded twice (two module instances of the same file): the timed one talks to DynamoDB directly, the
 * counted one through the counting proxy (bench/dynamo.ts), whose extra hop in this process would otherwise be
 * timed as ours (it doubled DynamoDB Local's round trip, 3.5 → 6.2 ms p50). The warm-up requests go to both; the
 * counted one's give the DynamoDB requests per message and per click, and it makes the ack-call counts.
 */
export async function measureWarm(options: WarmOptions): Promise<WarmResult> {
  const { dynamo, sfn, slack } = options;
  const total = options.requests + options.warmup;
  const oursTable = `bench-ours-${process.pid}`;
  await dynamo.createTable(oursTable);
  const shared = {
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    SFN_ENDPOINT: sfn.url,
    TASK_PIPELINE_ARN,
    EXECUTION_RUN_ARN,
  };
  const oursEnv = {
    ...shared,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TABLE_NAME: oursTable,
    SLACK_CLIENT_ID: "111.222",
    SLACK_CLIENT_SECRET: "client-secret",
    SLACK_STATE_SECRET: "state-secret-0123456789",
    // Installations are sealed (AES-GCM locally, KMS on AWS).
    FREEE_TOKEN_LOCAL_KEY: randomBytes(32).toString("base64"),
    LOG_LEVEL: "SILENT",
  };
  const doc = createDocumentClient(oursEnv);
  const store = new TaskStore(doc, oursTable);
  await new DynamoInstallationStore(doc, oursTable, { cipher: createTokenCipher(oursEnv) }).storeInstallation({
    team: { id: BENCH_TEAM, name: "Example" },
    enterprise: undefined,
    user: { id: "UINSTALLER", token: undefined, scopes: undefined },
    bot: { id: "BBOT", userId: "UBOT", token: "xoxb-bench", scopes: ["chat:write"] },
    isEnterpriseInstall: false,
    appId: "A0001",
    tokenType: "bot",
    authVersion: "v2",
  });
  // Every click approves a fresh version: the timed clicks, the counted warm-up clicks, the two ack counts.
  const targets = await seedApprovals(store, total + options.warmup + 2);
  const running = await seedRunning(store, doc, oursEnv);

  // Each bundle reads process.env when imported (as on Lambda): ours first, without SLACK_BOT_TOKEN.
  const importOurs = async (dynamoEndpoint: string, instance: string) => {
    Object.assign(process.env, oursEnv, { DYNAMODB_ENDPOINT: dynamoEndpoint });
    const loaded = (await import(`${pathToFileURL(options.ours).href}?${instance}`)) as { handler: LambdaHandler };
    await expect200(loaded.handler, signedJson({ type: "url_verification", challenge: "c", token: "t" }), `ours init (${instance})`);
    return loaded;
  };
  const ours = await importOurs(dynamo.directEndpoint, "timed");
  const counted = await importOurs(dynamo.endpoint, "counted");
  for (const key of Object.keys(oursEnv)) delete process.env[key];
  Object.assign(process.env, shared, { SLACK_BOT_TOKEN: "xoxb-bench" });
  const baseline = (await import(pathToFileURL(options.baseline).href)) as { handler: LambdaHandler };
  await expect200(baseline.handler, signedJson({ type: "url_verification", challenge: "c", token: "t" }), "baseline init");
  // The baseline reads TASK_PIPELINE_ARN per request, as a tutorial app does: the shared settings stay set.

  // ---- message events
  const samples = { oursMessage: [] as number[], baseMessage: [] as number[], oursClick: [] as number[], oursClickWait: [] as number[], oursClickRest: [] as number[], baseClick: [] as number[] };
  const startsBefore = sfn.calls.StartExecution ?? 0;
  dynamo.reset();
  for (let i = 0; i < options.warmup; i++) await timeOne(counted.handler, signedJson(messageEnvelope(nextTs())), "ours message (counted)");
  const oursDynamoPerMessage = dynamo.total() / options.warmup;
  for (let i = 0; i < total; i++) {
    const timed = i >= options.warmup;
    const a = await timeOne(ours.handler, signedJson(messageEnvelope(nextTs())), "ours message");
    const b = await timeOne(baseline.handler, signedJson(messageEnvelope(nextTs())), "baseline message");
    if (timed) {
      samples.oursMessage.push(a);
      samples.baseMessage.push(b);
    }
  }
  const started = (sfn.calls.StartExecution ?? 0) - startsBefore;
  if (started !== 2 * total + options.warmup) throw new Error(`bench: expected ${2 * total + options.warmup} StartExecution calls, saw ${started}`);

  // ---- button clicks
  const tokensBefore = sfn.tokensSent.length;
  let oursSlack = 0;
  let baseSlack = 0;
  dynamo.reset();
  const dynamoWait = watchWait(dynamo.directEndpoint);
  const countedTargets = targets.slice(total, total + options.warmup);
  for (const target of countedTargets) {
    await timeOne(counted.handler, signedInteraction(buttonClick(ActionIds.approve, { taskId: target.taskId, kind: "prompt", version: 1 })), "ours click (counted)");
  }
  const oursDynamoPerClick = dynamo.total() / options.warmup;
  for (let i = 0; i < total; i++) {
    const timed = i >= options.warmup;
    const target = targets[i]!;
    let before = slack.calls.length;
    dynamoWait.reset();
    const a = await timeOne(ours.handler, signedInteraction(buttonClick(ActionIds.approve, { taskId: target.taskId, kind: "prompt", version: 1 })), "ours click");
    const waited = dynamoWait.total();
    oursSlack += slack.calls.length - before;
    before = slack.calls.length;
    const b = await timeOne(baseline.handler, signedInteraction(buttonClick("approve", { taskToken: `bench-token-base-${i}` })), "baseline click");
    baseSlack += slack.calls.length - before;
    if (timed) {
      samples.oursClick.push(a);
      samples.oursClickWait.push(waited);
      samples.oursClickRest.push(a - waited);
      samples.baseClick.push(b);
    }
  }
  dynamoWait.stop();
  const sent = new Set(sfn.tokensSent.slice(tokensBefore));
  const oursResumed = targets.slice(0, total + options.warmup).filter((t) => sent.has(t.token)).length;
  if (oursResumed !== total + options.warmup) throw new Error(`bench: only ${oursResumed} of ${total + options.warmup} approvals of ours sent SendTaskSuccess`);
  if (sent.size !== 2 * total + options.warmup) throw new Error(`bench: expected ${2 * total + options.warmup} SendTaskSuccess calls, saw ${sent.size}`);
  const ackTargets = { approve: targets[total + options.warmup]!.taskId, reject: targets[total + options.warmup + 1]!.taskId, running };
  const ackUpstreamCalls = await countAckCalls(counted.handler, { dynamo, sfn, slack }, ackTargets);
  doc.destroy();

  return {
    ackUpstreamCalls,
    ours: {
      all: stats([...samples.oursMessage, ...samples.oursClick]),
      message: stats(samples.oursMessage),
      click: stats(samples.oursClick),
      clickDynamoWait: stats(samples.oursClickWait),
      clickWithoutDynamoWait: stats(samples.oursClickRest),
      dynamoRequestsPerMessage: round(oursDynamoPerMessage),
      dynamoRequestsPerClick: round(oursDynamoPerClick),
      slackCallsPerClick: round(oursSlack / total),
    },
    baseline: { all: stats([...samples.baseMessage, ...samples.baseClick]), message: stats(samples.baseMessage), click: stats(samples.baseClick), slackCallsPerClick: round(baseSlack / total) },
  };
}

/** One task per click, its prompt v1 pending approval with a task token and a card to refresh, as the pipeline leaves it. */
async function seedApprovals(store: TaskStore, count: number): Promise<Array<{ taskId: string; token: string }>> {
  const out: Array<{ taskId: string; token: string }> = [];
  const batch = 32;
  for (let start = 0; start < count; start += batch) {
    const chunk = Array.from({ length: Math.min(batch, count - start) }, (_, j) => start + j);
    out.push(
      ...(await Promise.all(
        chunk.map(async (i) => {
          const thread = { teamId: BENCH_TEAM, channelId: BENCH_CHANNEL, messageTs: `1600000000.${String(i).padStart(6, "0")}` };
          const taskId = taskIdFor(thread);
          const token = `bench-token-ours-${i}`;
          await store.createTask({ thread, requesterId: BENCH_REQUESTER, requestText: "基本給を変更して", pipelineExecutionName: taskId });
          await store.setCardTs(taskId, "prompt", `1800000000.${String(i).padStart(6, "0")}`);
          await store.createVersion("prompt", taskId, 1);
          await store.saveVersionContent("prompt", taskId, 1, { text: "目的: 基本給を変更する。" });
          await store.openApproval("prompt", taskId, 1, token, { teamId: BENCH_TEAM, requesterId: BENCH_REQUESTER });
          return { taskId, token };
        }),
      )),
    );
  }
  return out;
}

/**
 * One request of each kind, warm (the installation is cached, as on a warm Lambda), counting what reaches the
 * three upstreams before the response: DynamoDB at the counting proxy (bench/dynamo.ts), Step Functions at the local server,
 * Slack at the recording server. The Lambda's 200 waits for every listener (AwsLambdaReceiver), so all count.
 */
async function countAckCalls(
  handler: LambdaHandler,
  up: { dynamo: CountingDynamo; sfn: LocalSfnServer; slack: { calls: unknown[] } },
  ids: { approve: string; reject: string; running: string },
): Promise<AckUpstreamCalls> {
  const total = () => up.dynamo.total() + Object.values(up.sfn.calls).reduce((a, b) => a + b, 0) + up.slack.calls.length;
  const count = async (what: string, event: FunctionUrlEvent) => {
    const before = total();
    await timeOne(handler, event, what);
    return total() - before;
  };
  return {
    message: await count("ours message (count)", signedJson(messageEnvelope(nextTs()))),
    approve: await count("ours approve (count)", signedInteraction(buttonClick(ActionIds.approve, { taskId: ids.approve, kind: "prompt", version: 1 }))),
    rejectClick: await count("ours reject click (count)", signedInteraction(buttonClick(ActionIds.reject, { taskId: ids.reject, kind: "prompt", version: 1 }))),
    rejectSubmit: await count("ours reject submit (count)", signedInteraction(rejectSubmission({ taskId: ids.reject, kind: "prompt", version: 1 }, "金額を確認してください"))),
    cancel: await count("ours cancel (count)", signedInteraction(buttonClick(ActionIds.cancel, { taskId: ids.running, executionNo: 1 }))),
  };
}

/** A task whose Execution 1 runs, with its card posted (as ExecutionRun leaves it), for the cancel count. */
async function seedRunning(store: TaskStore, doc: DynamoDBDocumentClient, env: Record<string, string>): Promise<string> {
  const thread = { teamId: BENCH_TEAM, channelId: BENCH_CHANNEL, messageTs: "1650000000.000001" };
  const taskId = taskIdFor(thread);
  await store.createTask({ thread, requesterId: BENCH_REQUESTER, requestText: "基本給を変更して", pipelineExecutionName: taskId });
  await store.transitionTask(taskId, "prompt_review");
  await store.transitionTask(taskId, "process_review");
  await store.updateTask(taskId, { approvedProcessVersion: 1 });
  await store.allocateExecution(taskId, { from: ["process_review"], maxExecutions: 4 });
  await store.createExecution(taskId, { executionNo: 1, processVersion: 1, startedBy: BENCH_REQUESTER });
  await store.transitionExecution(taskId, 1, "running");
  // Its card, posted to Slack as ExecutionRun posts it (the cancel then updates it in place).
  await createCardRefresher(store, doc, env).refresh(taskId, { kind: "execution", executionNo: 1 });
  return taskId;
}

async function timeOne(handler: LambdaHandler, event: FunctionUrlEvent, what: string): Promise<number> {
  const t0 = performance.now();
  const response = await handler(event, {});
  const ms = performance.now() - t0;
  if (response.statusCode !== 200) throw new Error(`bench: ${what} answered ${response.statusCode} ${response.body ?? ""}`);
  return ms;
}

async function expect200(handler: LambdaHandler, event: FunctionUrlEvent, what: string): Promise<void> {
  await timeOne(handler, event, what);
}

export function stats(samples: number[]): LatencyStats {
  return {
    requests: samples.length,
    p50Ms: round(percentile(samples, 50), 3),
    p99Ms: round(percentile(samples, 99), 3),
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length, 3),
  };
}

/**
 * Time this process spends waiting on HTTP requests to one endpoint (request created → response read), and how
 * many it sends, from Node's own http client diagnostics: how much of a click (or an MCP call) is DynamoDB's round
 * trip rather than our code, counted without a proxy's hop.
 */
export function watchWait(endpoint: string): { reset(): void; total(): number; count(): number; stop(): void } {
  const { host } = new URL(endpoint);
  const started = new WeakMap<ClientRequest, number>();
  let waited = 0;
  let sent = 0;
  const onStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    if (request.getHeader("host") === host) {
      started.set(request, performance.now());
      sent += 1;
    }
  };
  const onFinish = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const t0 = started.get(request);
    if (t0 !== undefined) waited += performance.now() - t0;
  };
  diagnostics_channel.subscribe("http.client.request.start", onStart);
  diagnostics_channel.subscribe("http.client.response.finish", onFinish);
  return {
    reset: () => void ((waited = 0), (sent = 0)),
    total: () => waited,
    count: () => sent,
    stop() {
      diagnostics_channel.unsubscribe("http.client.request.start", onStart);
      diagnostics_channel.unsubscribe("http.client.response.finish", onFinish);
    },
  };
}
