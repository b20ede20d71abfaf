import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from "../../dev/chaos/fault-proxy";
import { ev, type ScriptedReply } from "../../dev/fakes/anthropic";
import { cancelExecution, rerunExecution } from "../../lib/ingress/actions";
import { DYNAMODB_CALL } from "../../lib/core/config/client-budgets";
import { BadRequestError } from "../../lib/core/errors/taxonomy";
import { path, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { accessKeyFor } from "../support/recording-dynamo";
import { decide, l1Ok, l2Ok, l3Ok, runExecution } from "./fixtures";

/**
 * Issue 14 defect 2, "no effect without its audit": approve, reject, cancel and rerun each promise their audit entry
 * in the write that makes the effect possible (the decision write, the cancel write, the Execution's creation),
 * before SendTaskSuccess / the run's next poll / StartExecution; the entry is written under its deterministic key
 * after the effect, and a lost write is repaired on retry (the step's own retry, the failure path, a repeated
 * click). Entries that ride their effect's own write (one TransactWriteItems: task.created, prompt/process.generated,
 * process.previewed, the Process approval with the first Execution, session_created) land with it or not at all.
 * Each action runs here with its audit write failing once, at the DynamoDB wire (a fault proxy in front of
 * DynamoDB Local answers ProvisionedThroughputExceeded to every SDK attempt of that one call).
 */
let h: PipelineHarness;
let proxy: FaultProxy;
beforeAll(async () => {
  let target = "";
  proxy = await startFaultProxy({ dependency: "DynamoDB", target: () => target, phases: () => [] });
  h = await startPipelineHarness({
    dynamo: { endpoint: proxy.url, calls: [], forwardTo: (t) => void (target = t), close: () => proxy.close() },
  });
});
afterAll(async () => {
  await h.close();
  await proxy.close();
});
beforeEach(() => h.slack.reset());

/** The request that writes this entry: its own PutItem, or the TransactWriteItems of the effect it rides. */
const isAuditPut = (taskId: string, auditKey: string) => (r: ProxiedRequest) =>
  ["DynamoDB_20120810.PutItem", "DynamoDB_20120810.TransactWriteItems"].includes(r.headers["x-amz-target"] ?? "") &&
  r.body.includes(taskId) &&
  r.body.includes(`"auditKey":{"S":"${auditKey}"}`);

/** The next write of this entry fails once as the code sees it (every SDK attempt of one call throttled). */
function failAuditWriteOnce(taskId: string, auditKey: string): () => number {
  proxy.arm({ when: isAuditPut(taskId, auditKey), kind: "throttle", times: DYNAMODB_CALL.attempts });
  const before = proxy.hits.length;
  return () => proxy.hits.length - before;
}

const entries = async (taskId: string, action: string) => (await h.store.loadHistory(taskId)).audit.filter((a) => a.action === action);

/** L1 and L2 answer; `later` are the replies the test's next model calls take (L3's, when it approves). */
async function untilPromptApproval(...later: ScriptedReply[]) {
  h.anthropic.enqueue(l1Ok(), l2Ok(), ...later);
  const started = h.startTask();
  await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === started.taskId && p.stateName === "AwaitPromptApproval"), 10_000, "prompt approval");
  return started;
}

describe("an entry that rides its effect's transaction", () => {
  it("CreateTask: the task and task.created are one TransactWriteItems; throttled once → retried, the task and its entry once", async () => {
    const isCreate = (r: ProxiedRequest) => r.headers["x-amz-target"] === "DynamoDB_20120810.TransactWriteItems" && r.body.includes(`"auditKey":{"S":"task.created#task"}`);
    proxy.arm({ when: isCreate, kind: "throttle", times: DYNAMODB_CALL.attempts });
    const before = proxy.hits.length;
    const { taskId, execution } = await untilPromptApproval();
    expect(proxy.hits.length - before).toBe(DYNAMODB_CALL.attempts);
    expect(retriesOf(execution, "CreateTask")).toBeGreaterThanOrEqual(1);
    expect(proxy.requests.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.PutItem" && r.body.includes(taskId) && r.body.includes("task.created#task"))).toEqual([]);
    expect(await entries(taskId, "task.created")).toHaveLength(1);
    execution.abort();
  });

  it("AnalyzeTask: the spec, the status and task.analyzed are one TransactWriteItems; throttled once → retried (L1 asked again: nothing was saved), the entry once", async () => {
    const isAnalyzed = (r: ProxiedRequest) => r.headers["x-amz-target"] === "DynamoDB_20120810.TransactWriteItems" && r.body.includes(`"auditKey":{"S":"task.analyzed#task"}`);
    proxy.arm({ when: isAnalyzed, kind: "throttle", times: DYNAMODB_CALL.attempts });
    const before = proxy.hits.length;
    // The retried step asks L1 again (nothing was saved): its second answer comes before L2's.
    h.anthropic.enqueue(l1Ok());
    const { taskId, execution } = await untilPromptApproval();
    expect(proxy.hits.length - before).toBe(DYNAMODB_CALL.attempts);
    expect(retriesOf(execution, "AnalyzeTask")).toBeGreaterThanOrEqual(1);
    expect(proxy.requests.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.PutItem" && r.body.includes(taskId) && r.body.includes("task.analyzed#task"))).toEqual([]);
    expect(await entries(taskId, "task.analyzed")).toHaveLength(1);
    expect((await h.store.getTaskOrThrow(taskId)).status).toBe("prompt_review");
    execution.abort();
  });

  it("GenerateProcess: Process v1 with its pointer and the Prompt's approval, then the steps, process.generated and the task's move to process_review: two TransactWriteItems; the Task card shows the move", async () => {
    const { taskId, execution } = await untilPromptApproval(l3Ok());
    const from = proxy.requests.length;
    await decide(h, taskId, "prompt", 1, "approve");
    await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === "AwaitProcessApproval"), 10_000, "process approval");
    const sent = proxy.requests.slice(from).filter((r) => r.body.includes(taskId));
    const steps = sent.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.TransactWriteItems" && r.body.includes(`"auditKey":{"S":"process.generated#process#1"}`));
    expect(steps).toHaveLength(1);
    expect(steps[0]!.body).toContain('"sk":{"S":"META"}');
    expect(steps[0]!.body).toContain('"process_review"');
    expect(sent.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem" && r.body.includes('"process_review"'))).toEqual([]);
    // Process v1's creation carries the task's pointer to it (the step read the task with the approved Prompt).
    const created = sent.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.TransactWriteItems" && r.body.includes("currentProcessVersion"));
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toContain('"auditKey":{"S":"prompt.approved#prompt#1"}');
    expect(sent.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem" && r.body.includes("currentProcessVersion"))).toEqual([]);
    expect((await h.store.getTaskOrThrow(taskId)).status).toBe("process_review");
    const taskCard = (await h.store.getTaskOrThrow(taskId)).cards.task;
    const lastTaskCard = h.slack.calls.filter((c) => c.method === "chat.update" && (c.body as { ts?: string }).ts === taskCard).at(-1);
    expect(JSON.stringify(lastTaskCard?.body)).toContain("実行ステップのレビュー中");
    execution.abort();
  });

  it("AwaitApproval: the task token and approval_requested are one TransactWriteItems after one read of the task and the version", async () => {
    const isOpen = (r: ProxiedRequest) => r.headers["x-amz-target"] === "DynamoDB_20120810.TransactWriteItems" && r.body.includes(`"auditKey":{"S":"prompt.approval_requested#prompt#1"}`);
    proxy.arm({ when: isOpen, kind: "throttle", times: DYNAMODB_CALL.attempts });
    const before = proxy.hits.length;
    const { taskId, execution } = await untilPromptApproval();
    expect(proxy.hits.length - before).toBe(DYNAMODB_CALL.attempts);
    expect(retriesOf(execution, "AwaitPromptApproval")).toBeGreaterThanOrEqual(1);
    const byAwait = proxy.requests.filter((r) => (r.headers.authorization ?? "").includes(`Credential=${accessKeyFor("await-approval")}/`) && r.body.includes(taskId));
    expect(byAwait.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.TransactGetItems").length).toBeGreaterThanOrEqual(1);
    expect(byAwait.filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.GetItem")).toEqual([]);
    expect(await entries(taskId, "prompt.approval_requested")).toHaveLength(1);
    expect(await h.store.getVersionOrThrow("prompt", taskId, 1)).toMatchObject({ status: "pending_approval" });
    execution.abort();
  });

  // The run's own entries: execution.started rides pending → running, execution.completed the completing write.
  for (const [auditKey, state] of [
    ["execution.started#execution#1", "StartSession"],
    ["execution.completed#execution#1", "PollSession"],
  ] as const) {
    it(`${state}: the Execution's status change and ${auditKey.split("#")[0]} are one TransactWriteItems; throttled once → retried, both once`, async () => {
      const { taskId, execution } = await untilPromptApproval(l3Ok());
      const failed = failAuditWriteOnce(taskId, auditKey);
      await decide(h, taskId, "prompt", 1, "approve");
      await decide(h, taskId, "process", 1, "approve");
      const run = await runExecution(h, taskId);
      await run.done;
      expect(run.status, String(run.cause)).toBe("SUCCEEDED");
      expect(failed()).toBe(DYNAMODB_CALL.attempts);
      expect(retriesOf(run, state)).toBeGreaterThanOrEqual(1);
      expect(proxy.requests.filter((r) => isAuditPut(taskId, auditKey)(r) && r.headers["x-amz-target"] === "DynamoDB_20120810.PutItem")).toEqual([]);
      expect((await h.store.loadHistory(taskId)).audit.filter((a) => a.auditKey === auditKey)).toHaveLength(1);
      await execution.done;
    });
  }

  it("the session's transaction fails once → StartSession retried on a running Execution: its promised execution.started is confirmed, stored once", async () => {
    const { taskId, execution } = await untilPromptApproval(l3Ok());
    const failed = failAuditWriteOnce(taskId, "execution.session_created#execution#1");
    await decide(h, taskId, "prompt", 1, "approve");
    await decide(h, taskId, "process", 1, "approve");
    const run = await runExecution(h, taskId);
    await run.done;
    expect(run.status, String(run.cause)).toBe("SUCCEEDED");
    expect(failed()).toBe(DYNAMODB_CALL.attempts);
    expect(retriesOf(run, "StartSession")).toBeGreaterThanOrEqual(1);
    const started = await h.store.getExecutionOrThrow(taskId, 1);
    expect(await entries(taskId, "execution.started")).toMatchObject([{ actor: h.actor.userId, at: started.startAudit?.at }]);
    expect(await entries(taskId, "execution.session_created")).toHaveLength(1);
    await execution.done;
  });
});

describe("approve", () => {
  it("the decision write promises prompt.approved; its write (with Process v1, one transaction) fails once in the resumed step → retried, stored once", async () => {
    const { taskId, execution } = await untilPromptApproval(l3Ok());
    const failed = failAuditWriteOnce(taskId, "prompt.approved#prompt#1");
    await decide(h, taskId, "prompt", 1, "approve");
    const version = await h.store.getVersionOrThrow("prompt", taskId, 1);
    expect(version.decisionAudit).toMatchObject({ action: "prompt.approved", subject: "prompt#1", actor: h.actor.userId, at: version.decision?.decidedAt });
    await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === "AwaitProcessApproval"), 10_000, "process approval");
    expect(failed()).toBe(DYNAMODB_CALL.attempts);
    expect(retriesOf(execution, "GenerateProcess")).toBeGreaterThanOrEqual(1);
    expect(await entries(taskId, "prompt.approved")).toMatchObject([{ actor: h.actor.userId, at: version.decision?.decidedAt }]);
    execution.abort();
  });

  it("the resumed step dies before it writes the entry → the failure path writes the promised one", async () => {
    const { taskId, execution } = await untilPromptApproval();
    h.failInvocation("generate-process", new BadRequestError("scripted: GenerateProcess died before its first write"));
    await decide(h, taskId, "prompt", 1, "approve");
    await execution.done;
    expect(path(execution)).toContain("RecordPipelineFailure");
    expect((await h.store.getTaskOrThrow(taskId)).status).toBe("failed");
    expect(await entries(taskId, "prompt.approved")).toHaveLength(1);
  });
});

describe("reject", () => {
  it("the rejection's entry fails once in HandleRejection → retried, stored once with the reason; v2 is generated", async () => {
    const { taskId, execution } = await untilPromptApproval();
    const failed = failAuditWriteOnce(taskId, "prompt.rejected#prompt#1");
    h.anthropic.enqueue(l2Ok());
    await decide(h, taskId, "prompt", 1, { reject: "金額の確認を追加して" });
    expect((await h.store.getVersionOrThrow("prompt", taskId, 1)).decisionAudit).toMatchObject({ action: "prompt.rejected", details: { reason: "金額の確認を追加して" } });
    await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && (p.payload as { version?: number }).version === 2), 10_000, "prompt v2");
    expect(failed()).toBe(DYNAMODB_CALL.attempts);
    expect(await entries(taskId, "prompt.rejected")).toMatchObject([{ details: { reason: "金額の確認を追加して" } }]);
    execution.abort();
  });

  it("HandleRejection never runs → the failure path writes the promised rejection", async () => {
    const { taskId, execution } = await untilPromptApproval();
    h.failInvocation("handle-rejection", new BadRequestError("scripted: HandleRejection died"));
    await decide(h, taskId, "prompt", 1, { reject: "部署コードも指定して" });
    await execution.done;
    // The failure path itself used to fail here (StateConflictError: the version it failed was already rejected).
    expect(path(execution).slice(-2)).toEqual(["RecordPipelineFailure", "TaskFailed"]);
    expect(execution.error).toBe("BadRequestError");
    expect(await entries(taskId, "prompt.rejected")).toMatchObject([{ details: { reason: "部署コードも指定して" } }]);
  });
});

async function untilRunning(polls: { events: unknown[] }[] = [{ events: [ev.running()] }]) {
  h.agents.scriptNextSession({ polls } as never);
  const { taskId, execution } = await untilPromptApproval(l3Ok());
  await decide(h, taskId, "prompt", 1, "approve");
  await decide(h, taskId, "process", 1, "approve");
  await execution.done;
  const run = await runExecution(h, taskId);
  await h.local.waitFor(() => run.events.some((e) => e.type === "StateExited" && (e as { state: { name: string } }).state.name === "PollSession"), 10_000, "first poll");
  return { taskId, run };
}

describe("cancel", () => {
  it("the cancel write promises execution.cancelled; its write fails once in the poll → retried, stored once", async () => {
    const { taskId, run } = await untilRunning();
    const failed = failAuditWriteOnce(taskId, "execution.cancelled#execution#1");
    expect((await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 })).outcome).toBe("applied");
    expect((await h.store.getExecutionOrThrow(taskId, 1)).cancelAudit).toMatchObject({ action: "execution.cancelled", actor: h.actor.userId });
    await run.done;
    expect(path(run).at(-1)).toBe("RunCancelled");
    expect(failed()).toBe(DYNAMODB_CALL.attempts);
    expect(await entries(taskId, "execution.cancelled")).toMatchObject([{ actor: h.actor.userId }]);
  });

  it("the poll's audit write fails through all its retries → RecordRunFailure writes the promised entry", async () => {
    const { taskId, run } = await untilRunning();
    const retry = (h.machines.executionRun.States.PollSession?.Retry ?? []) as { ErrorEquals: string[]; MaxAttempts: number }[];
    const attempts = 1 + (retry.find((r) => r.ErrorEquals.includes("ThrottledError"))?.MaxAttempts ?? 0);
    proxy.arm({ when: isAuditPut(taskId, "execution.cancelled#execution#1"), kind: "throttle", times: attempts * DYNAMODB_CALL.attempts });
    expect((await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 })).outcome).toBe("applied");
    await run.done;
    expect(path(run)).toContain("RecordRunFailure");
    expect(await entries(taskId, "execution.cancelled")).toHaveLength(1);
  });
});

describe("rerun", () => {
  it("execution.started is promised on Execution 2 before StartExecution; its write fails once → the click still starts one run, the run's first step writes it", async () => {
    const { taskId, run } = await untilRunning([{ events: [ev.sessionError("api_error", "terminal")] }]);
    await run.done;
    const failed = failAuditWriteOnce(taskId, "execution.started#execution#2");
    expect((await rerunExecution(h.actions, h.actor, { taskId, executionNo: 1 })).outcome).toBe("applied");
    const second = await runExecution(h, taskId, 2);
    await second.done;
    expect(second.status).toBe("SUCCEEDED");
    expect(failed()).toBe(DYNAMODB_CALL.attempts);
    const execution = await h.store.getExecutionOrThrow(taskId, 2);
    expect(execution.startAudit).toMatchObject({ action: "execution.started", actor: h.actor.userId, details: { rerun: true } });
    expect(await entries(taskId, "execution.started")).toHaveLength(2);
    expect((await entries(taskId, "execution.started")).find((a) => a.auditKey === "execution.started#execution#2")?.at).toBe(execution.startAudit?.at);
  });
});
