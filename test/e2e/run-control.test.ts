import { describe, expect, it } from "vitest";
import { SlackMessages } from "../../lib/core/messages/ja";
import { ev } from "../../dev/fakes/anthropic";
import { auditActions, blockText, historyOf, settled, SlackUser, texts, waitFor, type E2E, useE2E, postAndApprove } from "./support";

/**
 * End-to-end over HTTP: a running Execution is cancelled from its card, and one that never finishes
 * times out at the product's 360 s — the limit is unchanged, only the Wait state is shrunk
 * (LOCAL_WAIT_MS): each poll still counts the 3 s interval, so 120 polls reach 360 s in a few seconds.
 */
let e2e: E2E;
let user: SlackUser;
useE2E({ LOCAL_WAIT_MS: "10" }, (started) => ({ e2e, user } = started));

/** A session that starts and never ends its turn. */
const endless = { polls: [{ events: [ev.running(), ev.agentMessage("[step:s1] 従業員一覧を取得します")] }] };

async function startRun(): Promise<{ ts: string; taskId: string }> {
  e2e.agents.scriptNextSession(endless);
  return postAndApprove(e2e, user);
}

describe("e2e: run control", { timeout: 60_000 }, () => {
  it("cancel while running: [中止] marks it cancelled at once, the run interrupts the session and ends 中止", async () => {
    const { ts, taskId } = await startRun();
    // The agent is at work: the session exists and the card shows its progress.
    await waitFor("the session at work", async () => (await historyOf(e2e, taskId)).executions[0]?.progress?.currentStepId === "s1");
    const click = await user.click(ts, "cancel_execution", { taskId, executionNo: 1 });
    expect(click.status).toBe(200);
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("cancelled");
    expect(h.executions.map((x) => x.status)).toEqual(["cancelled"]);
    expect(h.executions[0]?.cancelledBy).toBe(e2e.stack.sandbox.userId);
    expect(h.executions[0]?.cancelFinalizedAt).toBeDefined();
    expect(auditActions(h).filter((a) => a.startsWith("execution."))).toEqual(["execution.started", "execution.session_created", "execution.cancelled"]);
    const sessionId = h.executions[0]?.sessionId as string;
    const interrupts = e2e.agents.requestsTo("POST", `/v1/sessions/${sessionId}/events`).filter((r) => JSON.stringify(r.body).includes("user.interrupt"));
    expect(interrupts).toHaveLength(1);
    const card = user.thread(ts).at(-1);
    expect(card?.text).toBe("実行 #1: 中止");
    // After a cancel the user may run it again.
    expect(JSON.stringify(card?.blocks)).toContain("rerun_execution");
  });

  // The test's limit, well under 360 s, is what shows the run's clock is the state machine's, not waited out.
  it("360 s timeout: the run ends timed_out with the timeout message and [再実行]", async () => {
    const { ts, taskId } = await startRun();
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("failed");
    expect(h.executions.map((x) => [x.status, x.errorName])).toEqual([["timed_out", "RunTimeoutError"]]);
    expect(h.audit.find((a) => a.action === "error.L4")?.errorType).toBe("RunTimeoutError");
    const run = e2e.stack.local.execution("ExecutionRun", `${taskId}-e1`)!;
    const polls = run.events.filter((e) => e.type === "StateEntered" && (e as { state?: { name?: string } }).state?.name === "PollSession").length;
    expect(polls).toBe(360 / 3);
    expect(run.error).toBe("RunTimeoutError");
    const card = await waitFor("the timeout card", () => user.thread(ts).find((m) => blockText(m).includes(SlackMessages.l4TimedOut)));
    expect(texts([card])).toEqual([`実行 #1: ${SlackMessages.l4TimedOut}`]);
    expect(JSON.stringify(card.blocks)).toContain("rerun_execution");
  }, 180_000);
});
