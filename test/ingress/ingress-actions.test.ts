import { SendTaskSuccessCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ActionMessages } from "../../lib/ingress/actions";
import { ActionIds } from "../../lib/ingress/cards";
import { SlackMessages } from "../../lib/core/messages/ja";
import type { TestTable } from "../support/dynamo";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { signedInteraction } from "../support/slack-signing";
import { taskAwaitingPrompt, taskWithExecution } from "./actions/harness";
import { blockAction, install, rejectSubmission, startIngress, startIngressOnFakes } from "./ingress-harness";

let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes());
  await install(h, "T1", "xoxb-T1-token");
  slack.workspace.addUser({ id: "USTRANGER", teamId: "T1" });
  slack.workspace.addUser({ id: "USLACKADMIN", teamId: "T1", isAdmin: true });
});
// Slack refused nothing the test did not script: a call the real Slack would refuse fails the test.
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => {
  h.sfnMock.resetHistory();
  slack.reset();
});

/** Draw the run's card now, as the pipeline would (the ingress's own refresher), and return the message. */
async function refreshNow(taskId: string, executionNo: number) {
  await h.ingressCards.refresh(taskId, { kind: "execution", executionNo });
  const ts = (await h.store.getExecutionOrThrow(taskId, executionNo)).cardTs;
  return ts === undefined ? undefined : slack.workspace.message(ts);
}

const successes = () => h.sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input);
const click = (userId: string, actionId: string, value: unknown, teamId = "T1") => h.send(signedInteraction(blockAction(teamId, userId, actionId, value)));

describe("approve over HTTP", () => {
  it("approve click → 200 after the decision write and SendTaskSuccess only (the resumed step refreshes the card)", async () => {
    const task = await taskAwaitingPrompt(h.store, { token: "TOKEN-HTTP" });
    // Slack's 3 s budget: the answer waits on nothing but the decision write and SendTaskSuccess (no Slack call).
    const res = await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(res.statusCode).toBe(200);
    expect(successes()).toHaveLength(1);
    expect(successes()[0]!.taskToken).toBe("TOKEN-HTTP");
    expect(slack.calls).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).decision).toMatchObject({ decision: "approved", actorId: "UREQ" });
  });

  it("10 concurrent approve clicks → one decision, one SendTaskSuccess; the others are told", async () => {
    const task = await taskAwaitingPrompt(h.store);
    const value = { taskId: task.taskId, kind: "prompt", version: 1 };
    const responses = await Promise.all(Array.from({ length: 10 }, () => click("UREQ", ActionIds.approve, value)));
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect(successes()).toHaveLength(1);
    expect(slack.callsTo("chat.postEphemeral").map((c) => c.body.text)).toEqual(Array.from({ length: 9 }, () => ActionMessages.alreadyDecided));
  });

  it("unauthorised user → ephemeral refusal, nothing changes", async () => {
    const task = await taskAwaitingPrompt(h.store);
    await click("USTRANGER", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(successes()).toHaveLength(0);
    const ephemeral = slack.callsTo("chat.postEphemeral");
    expect(ephemeral).toHaveLength(1);
    expect(ephemeral[0]!.body).toMatchObject({ channel: "C1", user: "USTRANGER", text: ActionMessages.notPermitted });
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
  });

  it("a Slack admin of the workspace (users.info is_admin), not the requester, may approve: one users.info, asked only for them", async () => {
    const task = await taskAwaitingPrompt(h.store);
    await click("USLACKADMIN", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(successes()).toHaveLength(1);
    expect(slack.callsTo("users.info").map((c) => c.body.user)).toEqual(["USLACKADMIN"]);
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).decision).toMatchObject({ decision: "approved", actorId: "USLACKADMIN" });
  });

  it("a click from another workspace on this team's task changes nothing", async () => {
    await install(h, "T2");
    const task = await taskAwaitingPrompt(h.store, { teamId: "T1" });
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 }, "T2");
    expect(successes()).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
  });
});

describe("reject over HTTP (modal)", () => {
  it("[却下] opens the reason modal whose metadata holds ids only", async () => {
    const task = await taskAwaitingPrompt(h.store, { token: "TOKEN-SHOULD-NOT-LEAK" });
    const res = await click("UREQ", ActionIds.reject, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(res.statusCode).toBe(200);
    const opened = slack.callsTo("views.open");
    expect(opened).toHaveLength(1);
    // Opened with the interaction's own trigger_id, within its 3 s: Slack accepted it.
    expect(opened[0]!.error).toBeUndefined();
    expect(slack.workspace.openView?.view.callback_id).toBe("reject_reason");
    const view = opened[0]!.body.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe("reject_reason");
    expect(JSON.parse(view.private_metadata)).toEqual({ taskId: task.taskId, kind: "prompt", version: 1 });
    expect(JSON.stringify(opened[0]!.body)).not.toContain("TOKEN-SHOULD-NOT-LEAK");
    expect(successes()).toHaveLength(0);
  });

  it("[却下]: views.open is the click's first and only call (the trigger_id dies in 3 s); a stranger's submit is refused in the modal", async () => {
    const task = await taskAwaitingPrompt(h.store);
    await click("USTRANGER", ActionIds.reject, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(slack.calls.map((c) => c.method)).toEqual(["views.open"]);
    const res = await h.send(signedInteraction(rejectSubmission("T1", "USTRANGER", { taskId: task.taskId, kind: "prompt", version: 1 }, "理由")));
    expect(JSON.parse(res.body)).toEqual({ response_action: "errors", errors: { reason: ActionMessages.notPermitted } });
    expect(successes()).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
  });

  it.each([["empty", ""], ["whitespace only", "   \n\t\u3000 "], ["missing", undefined]])("%s reason → response_action errors in the modal, nothing changes", async (_n, reason) => {
    const task = await taskAwaitingPrompt(h.store);
    const res = await h.send(signedInteraction(rejectSubmission("T1", "UREQ", { taskId: task.taskId, kind: "prompt", version: 1 }, reason)));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ response_action: "errors", errors: { reason: ActionMessages.reasonRequired } });
    expect(successes()).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
  });

  it("a reason past the modal's max_length (2000) → the modal's error, nothing written", async () => {
    const task = await taskAwaitingPrompt(h.store);
    const reason = "理".repeat(2001);
    const res = await h.send(signedInteraction(rejectSubmission("T1", "UREQ", { taskId: task.taskId, kind: "prompt", version: 1 }, reason)));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ response_action: "errors", errors: { reason: ActionMessages.reasonTooLong } });
    expect(ActionMessages.reasonTooLong).toContain("2000");
    expect(successes()).toHaveLength(0);
    const version = await h.store.getVersionOrThrow("prompt", task.taskId, 1);
    expect(version.status).toBe("pending_approval");
    expect(version.decision).toBeUndefined();
    // Exactly at the limit (counted in characters, as Slack counts) is accepted.
    const ok = await h.send(signedInteraction(rejectSubmission("T1", "UREQ", { taskId: task.taskId, kind: "prompt", version: 1 }, "𠮷".repeat(2000))));
    expect(ok.body).toBe("");
    expect(successes()).toHaveLength(1);
  });

  it("a reason → version rejected with it, SendTaskSuccess carries it (the pipeline regenerates with it)", async () => {
    const task = await taskAwaitingPrompt(h.store);
    const res = await h.send(signedInteraction(rejectSubmission("T1", "UREQ", { taskId: task.taskId, kind: "prompt", version: 1 }, "部署コードも指定してください")));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("");
    expect(successes()).toHaveLength(1);
    expect(JSON.parse(successes()[0]!.output!)).toEqual({ decision: "rejected", reason: "部署コードも指定してください", actorId: "UREQ" });
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).decision).toMatchObject({ decision: "rejected", reason: "部署コードも指定してください" });
  });

  it("a late submission after someone approved → error shown in the modal, nothing changes", async () => {
    const task = await taskAwaitingPrompt(h.store);
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    const res = await h.send(signedInteraction(rejectSubmission("T1", "UADMIN", { taskId: task.taskId, kind: "prompt", version: 1 }, "理由")));
    expect(JSON.parse(res.body)).toEqual({ response_action: "errors", errors: { reason: ActionMessages.alreadyDecided } });
    expect(successes()).toHaveLength(1);
  });
});

describe("cancel / rerun over HTTP", () => {
  it("即時反映: cancel click → card shows 中止中... at once", async () => {
    const task = await taskWithExecution(h.store, "running");
    await click("UREQ", ActionIds.cancel, { taskId: task.taskId, executionNo: 1 });
    expect((await h.store.getExecutionOrThrow(task.taskId, 1)).status).toBe("cancelled");
    const card = [...slack.callsTo("chat.postMessage"), ...slack.callsTo("chat.update")].at(-1);
    expect(JSON.stringify(card?.body.blocks)).toContain("中止中...");
  });

  it("実行中のみ: cancel of a finished run → ephemeral explanation", async () => {
    const task = await taskWithExecution(h.store, "completed");
    await click("UREQ", ActionIds.cancel, { taskId: task.taskId, executionNo: 1 });
    expect(slack.callsTo("chat.postEphemeral")[0]!.body.text).toBe(ActionMessages.staleCancel);
  });

  it("Slack was down while the failure was recorded (card at 実行中 with a live [中止]) → the stale 中止 draws the truth: 失敗 + [再実行]", async () => {
    const task = await taskWithExecution(h.store, "running");
    // The card as Slack last showed it: 実行中 with [中止] (the refresh after the failure never reached Slack).
    const posted = await refreshNow(task.taskId, 1);
    expect(JSON.stringify(posted?.blocks)).toContain(ActionIds.cancel);
    await h.store.transitionExecution(task.taskId, 1, "failed", { set: { errorName: "AgentRunFailedError" } });
    await h.store.transitionTask(task.taskId, "failed");
    slack.calls.length = 0; // the card message stays; only the calls are counted afresh
    await click("UREQ", ActionIds.cancel, { taskId: task.taskId, executionNo: 1 });
    const card = slack.workspace.message(posted!.ts);
    expect(card?.text).toContain(SlackMessages.l4Failed);
    expect(JSON.stringify(card?.blocks)).toContain(ActionIds.rerun);
    expect(JSON.stringify(card?.blocks)).not.toContain(ActionIds.cancel);
    expect(slack.callsTo("chat.postEphemeral").map((c) => c.body.text)).toEqual([ActionMessages.staleCancel]);
  });

  it("a 中止 from a card message that no longer exists (the duplicate of a race) resolves by ids and cancels", async () => {
    const task = await taskWithExecution(h.store, "running");
    const held = await refreshNow(task.taskId, 1);
    // blockAction's message ts (1800000000.000001) is no card of this run: only the value's ids count.
    expect(held?.ts).not.toBe("1800000000.000001");
    await click("UREQ", ActionIds.cancel, { taskId: task.taskId, executionNo: 1 });
    expect((await h.store.getExecutionOrThrow(task.taskId, 1)).status).toBe("cancelled");
    expect(JSON.stringify(slack.workspace.message(held!.ts)?.blocks)).toContain("中止中...");
  });

  it("a failed card update is retried (Slack rate limited the first chat.update)", async () => {
    const task = await taskWithExecution(h.store, "running");
    const held = await refreshNow(task.taskId, 1);
    slack.calls.length = 0;
    slack.failNext("chat.update", { status: 429, retryAfterSeconds: 1 });
    await click("UREQ", ActionIds.cancel, { taskId: task.taskId, executionNo: 1 });
    expect(slack.callsTo("chat.update")).toHaveLength(2);
    expect(JSON.stringify(slack.workspace.message(held!.ts)?.blocks)).toContain("中止中...");
  });

  it("承認 on a card whose version was already decided draws the decided card", async () => {
    const task = await taskAwaitingPrompt(h.store);
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    slack.calls.length = 0;
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    const drawn = [...slack.callsTo("chat.postMessage"), ...slack.callsTo("chat.update")].map((c) => JSON.stringify(c.body.blocks));
    expect(drawn).toHaveLength(1);
    expect(drawn[0]).not.toContain(ActionIds.approve);
    expect(slack.callsTo("chat.postEphemeral").map((c) => c.body.text)).toEqual([ActionMessages.alreadyDecided]);
  });

  it("rerun click → new Execution started; past the limit → the rerun limit message", async () => {
    const task = await taskWithExecution(h.store, "failed");
    await click("UREQ", ActionIds.rerun, { taskId: task.taskId, executionNo: 1 });
    const names = h.sfnMock.commandCalls(StartExecutionCommand).map((c) => c.args[0].input.name);
    expect(names).toEqual([`${task.taskId}-e2`]);
    await h.store.updateTask(task.taskId, { executionCount: 4 });
    await h.store.transitionExecution(task.taskId, 2, "failed");
    await h.store.transitionTask(task.taskId, "failed");
    await click("UREQ", ActionIds.rerun, { taskId: task.taskId, executionNo: 2 });
    expect(slack.callsTo("chat.postEphemeral").at(-1)!.body.text).toBe(SlackMessages.rerunLimit);
  });

  it("a tampered button value (not our JSON) is ignored without a 5xx", async () => {
    const res = await click("UREQ", ActionIds.cancel, "{\"taskId\":1}");
    expect(res.statusCode).toBe(200);
  });
});
