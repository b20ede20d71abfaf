import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusChangeEvent } from "../../dev/local/status-change";
import { step as reconciler } from "../../lambdas/reconcile-execution/handler";
import { limitsEnvironment } from "../../infra/settings";
import { ThrottledError } from "../../lib/core/errors/taxonomy";
import { LIVE_EXECUTION_STATUSES } from "../../lib/mcp/execution-scope";
import { AgentFailureMessages, SlackMessages } from "../../lib/core/messages/ja";
import { errorReply } from "../../dev/fakes/anthropic";
import { ev } from "../../dev/fakes/anthropic";
import { MCP_BEARER_SECRET, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { cancelExecution } from "../../lib/ingress/actions";
import { path } from "../support/local-sfn";
import { approveTask, l1Ok, runExecution } from "./fixtures";

/**
 * Issue 14 defect 1, the second line: when the failure path itself dies (here: DynamoDB throttled through all 13
 * attempts of RecordRunFailure / RecordPipelineFailure), the machine ends FAILED while the table still says the
 * task is live. The reconciler (the EventBridge rule's target) brings the table, the audit log and the cards to
 * the truth, interrupts the session, and the MCP server then refuses the run; a second delivery changes nothing.
 */
let h: PipelineHarness;
let reconcile: (event: unknown) => Promise<unknown>;
beforeAll(async () => {
  h = await startPipelineHarness();
  const env = {
    ...h.table.env,
    ...limitsEnvironment(h.machines.settings),
    SLACK_API_URL: h.slack.url,
    SLACK_BOT_TOKEN: "xoxb-test-pipeline",
    ANTHROPIC_BASE_URL: h.agents.url,
    ANTHROPIC_API_KEY: h.agents.apiKey,
    MCP_SERVER_URL: "https://mcp.example.test/mcp",
    MCP_BEARER_SECRET,
  };
  reconcile = reconciler.withDeps(await reconciler.wire(env)) as (event: unknown) => Promise<unknown>;
});
afterAll(async () => h.close());

const outage = () => Array.from({ length: 13 }, () => new ThrottledError("DynamoDB throttled the failure write"));
const texts = () => h.slack.calls.filter((c) => c.method === "chat.postMessage" || c.method === "chat.update").map((c) => String(c.body.text));

describe("the reconciler", () => {
  it("a run whose failure path died: execution and task failed, error.L4 once, session interrupted, MCP refuses, card 失敗 + [再実行]", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running()] }, { events: [ev.sessionError("api_error", "terminal", "scripted failure")] }] });
    const { taskId } = await approveTask(h);
    h.failInvocation("record-run-failure", ...outage());
    const run = await runExecution(h, taskId);
    await run.done;
    expect(run.status).toBe("FAILED");
    expect(run.error).toBe("ThrottledError"); // the failure path's own death
    const before = await h.store.loadHistory(taskId);
    expect([before.task.status, before.executions[0]?.status]).toEqual(["executing", "running"]); // the lie the reconciler repairs
    expect(before.audit.some((a) => a.action === "error.L4")).toBe(false);

    const result = (await reconcile(statusChangeEvent(run))) as { repaired: string[] };
    expect(result.repaired).toEqual(["execution #1 failed", "task failed", "error.L4 audited"]);
    const after = await h.store.loadHistory(taskId);
    expect(after.executions[0]).toMatchObject({ status: "failed", errorName: "ThrottledError" });
    expect(LIVE_EXECUTION_STATUSES.has(after.executions[0]!.status)).toBe(false); // the MCP server refuses the run's calls
    expect(after.task).toMatchObject({ status: "failed", failure: { layer: "L4", errorName: "ThrottledError" } });
    expect(after.audit.filter((a) => a.action === "error.L4")).toHaveLength(1);
    const sessionId = after.executions[0]!.sessionId!;
    expect(h.agents.requestsTo("POST", `/v1/sessions/${sessionId}/events`).some((r) => JSON.stringify(r.body).includes("user.interrupt"))).toBe(true);
    // The session's reason (AgentRunFailedError, stored by the poll) follows the message.
    expect(texts().at(-2)).toBe(`実行 #1: ${SlackMessages.l4Failed} (${AgentFailureMessages.session_error})`);

    // Delivered again (EventBridge / Lambda retries): nothing more to repair, nothing written twice.
    expect(((await reconcile(statusChangeEvent(run))) as { repaired: string[] }).repaired).toEqual([]);
    expect((await h.store.loadHistory(taskId)).audit.filter((a) => a.action === "error.L4")).toHaveLength(1);
  });

  it("a cancel whose interrupt failed past the poll's retries: run and task cancelled, card 中止中... until the reconciler gets the interrupt through, then 中止 + [再実行]", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running()] }] });
    const { taskId } = await approveTask(h);
    const run = await runExecution(h, taskId);
    // The poll's 4 attempts and RecordRunFailure's one more; the reconciler's gets through.
    h.agents.failNext({ method: "POST", path: /\/events$/, status: 500, times: 5, when: (b) => JSON.stringify(b).includes("user.interrupt") });
    await h.local.waitFor(() => run.events.some((e) => e.type === "StateExited" && (e as { state: { name: string } }).state.name === "PollSession"), 10_000, "first poll");
    expect((await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 })).outcome).toBe("applied");
    await run.done;
    expect(run.status).toBe("FAILED");
    expect(path(run)).toContain("RecordRunFailure");
    const before = await h.store.loadHistory(taskId);
    const sessionId = before.executions[0]!.sessionId!;
    // cancelled whatever the interrupt does, so the MCP server refuses the run's calls; the card does
    // not claim the stop the session has not taken.
    expect(before.executions[0]).toMatchObject({ status: "cancelled", cancelledBy: h.actor.userId });
    expect(before.executions[0]?.cancelFinalizedAt).toBeUndefined();
    expect(LIVE_EXECUTION_STATUSES.has(before.executions[0]!.status)).toBe(false);
    expect(before.task.status).toBe("cancelled");
    expect(h.agents.sessions.get(sessionId)?.interrupted).toBe(false);
    expect(texts().filter((t) => t.startsWith("実行 #1")).at(-1)).toBe("実行 #1: 中止中...");
    expect(before.audit.filter((a) => a.auditKey === "error.L4#interrupt#execution#1")).toHaveLength(1);
    expect(before.audit.filter((a) => a.action === "execution.cancelled")).toHaveLength(1);

    const result = (await reconcile(statusChangeEvent(run))) as { repaired: string[] };
    expect(result.repaired).toEqual(["execution #1 cancel finalised"]);
    expect(h.agents.sessions.get(sessionId)?.interrupted).toBe(true);
    const after = await h.store.loadHistory(taskId);
    expect(after.executions[0]?.cancelFinalizedAt).toBeDefined();
    expect(after.task.status).toBe("cancelled");
    const card = h.slack.calls.filter((c) => c.method === "chat.update" && String(c.body.text).startsWith("実行 #1")).at(-1)!;
    expect(card.body.text).toBe("実行 #1: 中止");
    expect(JSON.stringify(card.body.blocks)).toContain("rerun_execution");
    expect(after.audit.filter((a) => a.action === "execution.cancelled")).toHaveLength(1);
  });

  it("a pipeline whose failure path died at L2: the Prompt and the task failed, error.L2, the card shows the L2 message", async () => {
    h.anthropic.enqueue(l1Ok(), errorReply(400, "invalid_request_error", "scripted refusal"));
    h.failInvocation("record-pipeline-failure", ...outage());
    const { execution, taskId } = h.startTask();
    await execution.done;
    expect(execution.error).toBe("ThrottledError");
    expect((await h.store.loadHistory(taskId)).task.status).toBe("prompt_review");

    const result = (await reconcile(statusChangeEvent(execution))) as { repaired: string[] };
    expect(result.repaired).toEqual(["prompt v1 failed", "task failed", "error.L2 audited"]);
    const after = await h.store.loadHistory(taskId);
    expect(after.prompts[0]?.status).toBe("failed");
    expect(after.task.status).toBe("failed");
    expect(after.audit.filter((a) => a.action === "error.L2")).toHaveLength(1);
    expect(texts()).toContain(SlackMessages.l2Failed);
  });
});
