import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NotARequestMessages, SlackMessages } from "../../lib/core/messages/ja";
import { buildLedger } from "../../lib/store/ledger";
import { messageReply } from "../../dev/fakes/anthropic";
import { path, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { expectPipelineFailure, l1Answer, l1NotARequest } from "./fixtures";

/**
 * Issue 16, "not every message is a request": L1 reads a greeting or a question as no request; the task ends
 * `answered` (a normal end, user-originated), the thread gets L1's short reply and no plan, the audit
 * has `task.answered` and the ledger counts it as not_a_request. A malformed answer is an L1 failure as before.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
beforeEach(() => h.slack.reset());

const REPLY = "こんにちは。freee で行いたいことを書いて送ってください。";
const slackBodies = () => h.slack.calls.filter((c) => c.method === "chat.postMessage" || c.method === "chat.update").map((c) => c.body as Record<string, unknown>);

describe("a message that asks for no work on freee", () => {
  it("「こんにちは」 → the task is answered with L1's reply in the thread; no Prompt, no Process; audited; counted as not_a_request", async () => {
    h.anthropic.enqueue(l1NotARequest(REPLY));
    const { execution, taskId, thread } = h.startTask("こんにちは");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(path(execution)).toEqual(["CreateTask", "AnalyzeTask", "IsRequest?", "TaskAnswered"]);
    expect(h.anthropic.requests.filter((r) => r.path.endsWith("/messages"))).toHaveLength(1);

    const history = await h.store.loadHistory(taskId);
    expect(history.task.status).toBe("answered");
    expect(history.task.reply).toBe(REPLY);
    expect(history.task.spec).toBeUndefined();
    expect(history.prompts).toHaveLength(0);
    expect(history.processes).toHaveLength(0);
    expect(history.audit.map((a) => a.action)).toEqual(["task.created", "task.answered"]);
    expect(history.audit.find((a) => a.action === "task.answered")).toMatchObject({ layer: "L1", details: { kind: "not_a_request" } });

    // One message in the thread: the Task card, which now is the reply (no plan, no buttons).
    const bodies = slackBodies();
    const last = bodies.at(-1)!;
    expect(last.channel).toBe(thread.channelId);
    expect(last.text).toBe(REPLY);
    expect(JSON.stringify(last.blocks)).toContain(NotARequestMessages.noTask);
    expect(JSON.stringify(last.blocks)).not.toContain('"type":"actions"');
    expect(h.slack.calls.filter((c) => c.method === "chat.postMessage")).toHaveLength(1);

    const ledger = buildLedger(await h.store.listAuditByTeam(thread.teamId), { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" });
    expect(ledger.tasks.find((t) => t.taskId === taskId)?.outcome).toBe("not_a_request");
    expect(ledger.failuresByClass.filter((f) => f.layer === "L1")).toEqual([]);
  });

  it("a malformed answer (a non-request without its reply) is retried once; the second answer is used", async () => {
    h.anthropic.enqueue(messageReply(JSON.stringify({ kind: "not_a_request", reply: " ", task: null })), l1NotARequest(REPLY));
    const { execution, taskId } = h.startTask("こんにちは");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(retriesOf(execution, "AnalyzeTask")).toBe(1);
    expect((await h.store.getTaskOrThrow(taskId)).status).toBe("answered");
  });

  it("a malformed answer twice (a request without its task) → the L1 failure, as before", async () => {
    const broken = () => messageReply(JSON.stringify({ kind: "request", reply: null, task: null }));
    h.anthropic.enqueue(broken(), broken());
    const { execution, taskId } = h.startTask("こんにちは");
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 1, errorName: "MalformedOutputError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("a request still goes on to L2 (the Choice reads isRequest)", async () => {
    h.anthropic.enqueue(l1Answer(), messageReply("目的: テスト。\n1. 従業員一覧を取得する。"));
    const { execution, taskId } = h.startTask();
    const token = await h.local.waitForToken(taskId, "AwaitPromptApproval");
    expect(path(execution)).toContain("FirstPrompt");
    h.local.timeOutTask(token.token);
    await execution.done;
  });
});
