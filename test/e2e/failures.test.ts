import { describe, expect, it } from "vitest";
import { AgentFailureMessages, SlackMessages } from "../../lib/core/messages/ja";
import { ev } from "../../dev/fakes/anthropic";
import { messageReply } from "../../dev/fakes/anthropic";
import { l1Ok, l2Ok } from "../steps/fixtures";
import { auditActions, blockText, history, historyOf, settled, SlackUser, texts, waitFor, type E2E, useE2E, postAndApprove, PAY_REQUEST as REQUEST } from "./support";

/**
 * End-to-end over HTTP: layer failures end visibly and runs recover through [再実行].
 */
let e2e: E2E;
let user: SlackUser;
useE2E({}, (started) => ({ e2e, user } = started));

const failingSession = { polls: [{ events: [ev.running()] }, { events: [ev.sessionError("api_error", "terminal", "scripted failure")] }] };

function userContent(r: { body: unknown }): string {
  const messages = (r.body as { messages?: { content: unknown }[] }).messages ?? [];
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

/** Everything shown in the thread (fallback texts and card bodies). */
const shown = (ts: string) => user.thread(ts).map((m) => `${m.text}\n${blockText(m)}`).join("\n");

const toApprovedProcess = () => postAndApprove(e2e, user);

describe("e2e: failures", { timeout: 60_000 }, () => {
  it("L2 refusal: no retry, the Prompt fails, the task fails with the L2 message", async () => {
    e2e.anthropic.enqueue(l1Ok(), messageReply({ texts: [], stopReason: "refusal", stopDetails: { type: "refusal", category: "cyber" } }));
    const { ts, taskId } = await user.post(REQUEST);
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("failed");
    expect(h.prompts.map((p) => [p.status, p.errorName])).toEqual([["failed", "RefusedResponseError"]]);
    const error = h.audit.find((a) => a.action === "error.L2");
    expect(error?.errorType).toBe("RefusedResponseError");
    expect(auditActions(h)).toEqual(["task.created", "task.analyzed", "error.L2"]);
    expect(e2e.anthropic.requests.map(userContent).filter((u) => u.includes("<task>"))).toHaveLength(1); // refused: not retried
    expect(shown(ts)).toContain(SlackMessages.l2Failed);
    expect(history(e2e, ts).at(-1)).toContain("失敗");
  });

  it("L3 malformed twice: one retry with the validation error in the prompt, then the L3 message", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok(), messageReply("これは JSON ではありません"), messageReply('{"steps": []}'));
    const { ts, taskId } = await user.post(REQUEST);
    await user.approve(ts, taskId, "prompt", 1);
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("failed");
    expect(h.processes.map((p) => [p.status, p.errorName])).toEqual([["failed", "MalformedOutputError"]]);
    expect(h.audit.find((a) => a.action === "error.L3")?.errorType).toBe("MalformedOutputError");
    const l3 = e2e.anthropic.requests.map(userContent).filter((u) => u.includes("<approved_prompt>"));
    expect(l3.slice(-2).map((u) => u.includes("<validation_error>"))).toEqual([false, true]);
    expect(shown(ts)).toContain(SlackMessages.l3Failed);
    expect(h.executions).toEqual([]);
  });

  it("execution fails, then [再実行] succeeds: a new Execution and a new session on the same Process", async () => {
    e2e.agents.scriptNextSession(failingSession);
    const { ts, taskId } = await toApprovedProcess();
    await waitFor("run 1 failed", async () => (await historyOf(e2e, taskId)).executions[0]?.status === "failed");
    await waitFor("the L4 message", () => shown(ts).includes(SlackMessages.l4Failed));
    const sessionsBefore = e2e.agents.sessions.size;

    expect((await user.click(ts, "rerun_execution", { taskId, executionNo: 1 })).status).toBe(200);
    await waitFor("run 2 ends", async () => (await historyOf(e2e, taskId)).task.status === "completed");
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.executions.map((x) => [x.executionNo, x.status, x.processVersion])).toEqual([
      [1, "failed", 1],
      [2, "completed", 1],
    ]);
    expect(h.executions[0]?.sessionId).not.toBe(h.executions[1]?.sessionId);
    expect(e2e.agents.sessions.size).toBe(sessionsBefore + 1);
    expect(auditActions(h).filter((a) => a.startsWith("execution.") || a.startsWith("error."))).toEqual([
      "execution.started",
      "execution.session_created",
      "error.L4",
      "execution.started",
      "execution.session_created",
      "execution.completed",
    ]);
    // The session's failure reason follows the message.
    expect(texts(user.thread(ts)).slice(-2)).toEqual([`実行 #1: ${SlackMessages.l4Failed} (${AgentFailureMessages.session_error})`, "実行 #2 (再実行): 完了"]);
  });

  it("rerun limit: after 3 reruns the 4th [再実行] shows the limit message and starts nothing", async () => {
    for (let i = 0; i < 4; i++) e2e.agents.scriptNextSession(failingSession);
    const { ts, taskId } = await toApprovedProcess();
    for (let n = 1; n <= 3; n++) {
      await waitFor(`run ${n} failed`, async () => (await historyOf(e2e, taskId)).executions[n - 1]?.status === "failed");
      await user.click(ts, "rerun_execution", { taskId, executionNo: n });
    }
    await waitFor("run 4 failed", async () => (await historyOf(e2e, taskId)).executions[3]?.status === "failed");
    await settled(e2e, taskId);
    // The 4th run's card shows the limit message instead of [再実行].
    const card4 = await waitFor("run 4's card with the limit message", () => user.thread(ts).find((m) => m.text.startsWith("実行 #4") && blockText(m).includes(SlackMessages.rerunLimit)));
    expect(JSON.stringify(card4.blocks)).not.toContain("rerun_execution");
    // A stale [再実行] (e.g. run 3's card in another client) is refused with the same message; nothing starts.
    const sessions = e2e.agents.sessions.size;
    const ephemeralsBefore = user.ephemerals().length;
    const stale = await user.clickFound({ message: card4, value: JSON.stringify({ taskId, executionNo: 4 }) }, "rerun_execution");
    expect(stale.status).toBe(200);
    await waitFor("the limit message to the user", () => user.ephemerals().length > ephemeralsBefore);
    expect(user.ephemerals().at(-1)?.text).toBe(SlackMessages.rerunLimit);

    const h = await historyOf(e2e, taskId);
    expect(h.executions.map((x) => x.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(h.task.status).toBe("failed");
    expect(e2e.agents.sessions.size).toBe(sessions);
    expect(auditActions(h).filter((a) => a === "execution.started")).toHaveLength(4);
    expect(auditActions(h).filter((a) => a === "error.L4")).toHaveLength(4);
  });
});
