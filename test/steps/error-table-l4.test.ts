import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cancelExecution, rerunExecution } from "../../lib/ingress/actions";
import { AgentFailureMessages, SlackMessages } from "../../lib/core/messages/ja";
import { ev } from "../../dev/fakes/anthropic";
import { entriesOf, path, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { approveTask, runExecution, slackTexts } from "./fixtures";

/**
 * Error table conformance, L4: the ExecutionRun that the approved pipeline starts
 * runs against the scripted Managed Agents server; faults are injected there.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.slack.reset();
});

/** A task through both approvals; returns its first ExecutionRun. */
async function untilRun() {
  const { execution, taskId } = await approveTask(h);
  expect(execution.status).toBe("SUCCEEDED");
  return { taskId, run: await runExecution(h, taskId) };
}

const RUNNING_FOREVER = { polls: [{ events: [ev.running()] }] };

async function expectRunFailure(taskId: string, run: Awaited<ReturnType<typeof untilRun>>["run"], e: { status: "failed" | "timed_out"; errorName: string; message: string }) {
  await run.done;
  expect(run.status).toBe("FAILED");
  expect(path(run)).toContain("RecordRunFailure");
  expect(run.events.filter((ev) => ev.type === "StateFailed" && (ev as { state: { name: string } }).state.name === "RecordRunFailure")).toEqual([]);
  const history = await h.store.loadHistory(taskId);
  expect(history.executions[0]).toMatchObject({ status: e.status, errorName: e.errorName });
  expect(history.task.status).toBe("failed");
  expect(history.task.failure).toMatchObject({ layer: "L4", errorName: e.errorName });
  const audit = history.audit.filter((a) => a.action === "error.L4");
  expect(audit).toHaveLength(1);
  expect(audit[0]?.errorType).toBe(e.errorName);
  const texts = slackTexts(h);
  expect(texts.some((t) => t.includes(e.message))).toBe(true);
  // The failed card offers [再実行] while reruns remain.
  expect(texts.some((t) => t.includes(e.message) && t.includes("再実行"))).toBe(true);
}

describe("L4: Managed Agent Session", () => {
  it("golden path: completed; progress polled every interval; execution + task completed", async () => {
    const { taskId, run } = await untilRun();
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    expect(path(run)).toEqual(["StartSession", "SessionStarted", "WaitForProgress", "PollSession", "RunState", "WaitForProgress", "PollSession", "RunState", "RunCompleted"]);
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]?.status).toBe("completed");
    expect(history.task.status).toBe("completed");
  });

  it("Session 作成失敗: retried 2 times, then failed + [再実行]", async () => {
    h.agents.failNext({ method: "POST", path: "/v1/sessions", status: 500, times: 3 });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, { status: "failed", errorName: "UpstreamServerError", message: SlackMessages.l4Failed });
    expect(retriesOf(run, "StartSession")).toBe(2);
    expect(run.error).toBe("UpstreamServerError");
  });

  it("ポーリングタイムアウト: 360 s of polling (120 polls of 3 s) → timed_out with RunTimeoutError", async () => {
    h.agents.scriptNextSession(RUNNING_FOREVER);
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, { status: "timed_out", errorName: "RunTimeoutError", message: SlackMessages.l4TimedOut });
    expect(entriesOf(run, "PollSession")).toBe(360 / 3);
    expect(retriesOf(run, "PollSession")).toBe(0);
    expect(path(run).at(-1)).toBe("RunTimedOut");
    expect(run.error).toBe("RunTimeoutError");
    // The session is interrupted so it stops working after the timeout.
    expect(h.agents.requests.some((r) => r.method === "POST" && /\/events$/.test(r.path) && String(JSON.stringify(r.body)).includes("user.interrupt"))).toBe(true);
  }, 60_000);

  it("Session エラーステータス: a terminal session.error → failed, no retry", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running()] }, { events: [ev.sessionError("api_error", "terminal")] }] });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, { status: "failed", errorName: "AgentRunFailedError", message: SlackMessages.l4Failed });
    expect(retriesOf(run, "PollSession")).toBe(0);
  });

  it("MCP Server 到達不可: mcp_connection_failed → failed", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running(), ev.sessionError("mcp_connection_failed_error", "exhausted")] }] });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, { status: "failed", errorName: "AgentRunFailedError", message: SlackMessages.l4Failed });
    // Issue 14 defect 5: the reason survives the Catch as a field (not only inside the message text) and reaches
    // the error.L4 entry and the card the user reads.
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]?.agentFailure?.reason).toBe("mcp_unreachable");
    expect(history.audit.find((a) => a.action === "error.L4")?.details).toMatchObject({ agentFailureReason: "mcp_unreachable" });
    expect(slackTexts(h).some((t) => t.includes(SlackMessages.l4Failed) && t.includes(AgentFailureMessages.mcp_unreachable))).toBe(true);
  });

  it("認証エラー: the MCP server refuses the session's credential → AuthError, no retry → failed with the freee connection message", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running(), ev.sessionError("mcp_authentication_failed_error", "terminal")] }] });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, { status: "failed", errorName: "AuthError", message: SlackMessages.freeeConnectionFailed });
    expect(retriesOf(run, "PollSession")).toBe(0);
  });

  it("ツール実行エラー: returned to the agent, the run goes on; the card shows progress (the agent retries and finishes)", async () => {
    h.agents.scriptNextSession({
      polls: [
        { events: [ev.running(), ev.mcpToolUse("freee_hr_list_employees", { year: 2026, month: 12 }), ev.mcpToolResult({ text: "403 Forbidden", isError: true })] },
        { events: [ev.agentMessage("1 回目は権限不足でしたが、やり直して一覧を取得しました。\n[result:done]"), ev.idle("end_turn")] },
      ],
    });
    const { taskId, run } = await untilRun();
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    const execution = (await h.store.loadHistory(taskId)).executions[0];
    expect(execution?.status).toBe("completed");
    expect(execution?.resultSummary).toBe("1 回目は権限不足でしたが、やり直して一覧を取得しました。");
    expect(execution?.progress?.toolErrors).toHaveLength(1);
    expect(h.slack.callsTo("chat.update").length + h.slack.callsTo("chat.postMessage").length).toBeGreaterThan(2);
  });

  it("ツール実行エラー, and the agent reports the step undone: IncompleteRunError + [再実行], not 完了", async () => {
    h.agents.scriptNextSession({
      polls: [
        { events: [ev.running(), ev.mcpToolUse("freee_hr_list_employees", { year: 2026, month: 12 }), ev.mcpToolResult({ text: "403 Forbidden", isError: true })] },
        { events: [ev.agentMessage("権限不足のため一覧を取得できませんでした。\n[result:incomplete]"), ev.idle("end_turn")] },
      ],
    });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, { status: "failed", errorName: "IncompleteRunError", message: SlackMessages.l4Failed });
    expect((await h.store.loadHistory(taskId)).executions[0]?.completion).toMatchObject({ reported: "incomplete", writeStepsMissing: [] });
  });

  it("transient during polling (503 once): PollSession retried, the run completes", async () => {
    h.agents.failNext({ method: "GET", path: /^\/v1\/sessions\/[^/]+$/, status: 503, times: 1 });
    const { run } = await untilRun();
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    expect(retriesOf(run, "PollSession")).toBe(1);
  });
});

describe("hand-off to ExecutionRun", () => {
  it("StartExecution throttled: StartRun retried 3 times, then caught → the claimed run and the task are failed, a rerun stays possible", async () => {
    const throttled = () => Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException", $metadata: {} });
    h.failStartExecution(throttled(), throttled(), throttled(), throttled());
    const { execution, taskId } = await approveTask(h);
    expect(execution.status).toBe("FAILED");
    expect(retriesOf(execution, "StartRun")).toBe(3);
    expect(path(execution)).toContain("StartRunFailed");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status: "failed", errorName: "ThrottledError" });
    expect(history.task).toMatchObject({ status: "failed", failure: { layer: "L4", errorName: "ThrottledError" } });
    expect(history.audit.filter((a) => a.action === "error.L4")).toHaveLength(1);
    const rerun = await rerunExecution(h.actions, h.actor, { taskId, executionNo: 1 });
    expect(rerun.outcome).toBe("applied");
    await (await runExecution(h, taskId, 2)).done;
    expect((await h.store.getTaskOrThrow(taskId)).status).toBe("completed");
  });
});

describe("中止 / 再実行", () => {
  it("cancel while running: the poll sees `cancelled`, interrupts, stamps cancelFinalizedAt, ends cancelled", async () => {
    h.agents.scriptNextSession(RUNNING_FOREVER);
    const { taskId, run } = await untilRun();
    await h.local.waitFor(() => run.events.some((e) => e.type === "StateExited" && (e as { state: { name: string } }).state.name === "PollSession"), 10_000, "first poll");
    const result = await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 });
    expect(result.outcome).toBe("applied");
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    expect(path(run).at(-1)).toBe("RunCancelled");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status: "cancelled", cancelledBy: h.actor.userId });
    expect(history.executions[0]?.cancelFinalizedAt).toBeDefined();
    expect(history.task.status).toBe("cancelled");
    expect(history.audit.some((a) => a.action === "execution.cancelled")).toBe(true);
    expect(h.agents.requests.some((r) => r.method === "POST" && String(JSON.stringify(r.body)).includes("user.interrupt"))).toBe(true);
    expect(slackTexts(h).some((t) => t.includes("中止"))).toBe(true);
  });

  it("the interrupt fails (5xx) → the DB is cancelled all the same; the poll is retried, sends it again, and only then 中止", async () => {
    h.agents.scriptNextSession(RUNNING_FOREVER);
    const { taskId, run } = await untilRun();
    h.agents.failNext({ method: "POST", path: /\/events$/, status: 500, times: 2, when: (b) => JSON.stringify(b).includes("user.interrupt") });
    await h.local.waitFor(() => run.events.some((e) => e.type === "StateExited" && (e as { state: { name: string } }).state.name === "PollSession"), 10_000, "first poll");
    await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 });
    await run.done;
    expect(path(run).at(-1)).toBe("RunCancelled");
    expect(retriesOf(run, "PollSession")).toBe(2);
    const history = await h.store.loadHistory(taskId);
    const execution = history.executions[0]!;
    expect(execution.status).toBe("cancelled");
    expect(execution.cancelFinalizedAt).toBeDefined();
    expect(history.task.status).toBe("cancelled");
    // Sent until the session took it: the agent stops working.
    expect(h.agents.requestsTo("POST", `/v1/sessions/${execution.sessionId}/events`).filter((r) => JSON.stringify(r.body).includes("user.interrupt"))).toHaveLength(3);
    expect(h.agents.sessions.get(execution.sessionId!)?.interrupted).toBe(true);
    // The failed interrupt reached the audit log once; the cancel itself once.
    expect(history.audit.filter((a) => a.auditKey === "error.L4#interrupt#execution#1")).toHaveLength(1);
    expect(history.audit.filter((a) => a.action === "execution.cancelled")).toHaveLength(1);
  });

  it("the interrupt is refused for good (400) → 中止 at once, the refusal audited (the run's bearer is refused from now on)", async () => {
    h.agents.scriptNextSession(RUNNING_FOREVER);
    const { taskId, run } = await untilRun();
    h.agents.failNext({ method: "POST", path: /\/events$/, status: 400, times: 1, when: (b) => JSON.stringify(b).includes("user.interrupt") });
    await h.local.waitFor(() => run.events.some((e) => e.type === "StateExited" && (e as { state: { name: string } }).state.name === "PollSession"), 10_000, "first poll");
    await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 });
    await run.done;
    expect(path(run).at(-1)).toBe("RunCancelled");
    expect(retriesOf(run, "PollSession")).toBe(0);
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status: "cancelled" });
    expect(history.task.status).toBe("cancelled");
    expect(history.audit.filter((a) => a.auditKey === "error.L4#interrupt#execution#1")).toMatchObject([{ errorType: "BadRequestError", details: { status: 400 } }]);
    expect(history.audit.filter((a) => a.action === "execution.cancelled")).toHaveLength(1);
  });

  it("rerun after a failure: a new Execution and a new session, same Process, completes", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.sessionError("api_error", "terminal")] }] });
    const { taskId, run } = await untilRun();
    await run.done;
    expect(run.status).toBe("FAILED");
    const result = await rerunExecution(h.actions, h.actor, { taskId, executionNo: 1 });
    expect(result.outcome).toBe("applied");
    const rerun = await runExecution(h, taskId, 2);
    await rerun.done;
    expect(rerun.status).toBe("SUCCEEDED");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions.map((e) => [e.executionNo, e.status, e.processVersion])).toEqual([
      [1, "failed", 1],
      [2, "completed", 1],
    ]);
    expect(new Set(history.executions.map((e) => e.sessionId)).size).toBe(2);
    expect(history.task.status).toBe("completed");
  });
});
