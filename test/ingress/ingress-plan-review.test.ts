import { SendTaskSuccessCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ActionMessages } from "../../lib/ingress/actions";
import { ActionIds } from "../../lib/ingress/cards";
import { PlanMessages } from "../../lib/preview/plan";
import { APPROVE_PLAN_CALLBACK_ID } from "../../lib/ingress/plan-modal";
import { payStep, taskAwaitingProcess } from "./actions/harness";
import type { TestTable } from "../support/dynamo";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { signedInteraction } from "../support/slack-signing";
import { blockAction, install, startIngress, startIngressOnFakes } from "./ingress-harness";

/**
 * The Process review over HTTP, as Slack sends it: 「入力 JSON」 (views.open from a card, views.push from the
 * full-plan modal), [全文を確認して承認] (views.open of the modal whose submit approves) and its submission; a
 * Process is approved only where its approver could see all of it.
 */
let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes());
  await install(h, "T1", "xoxb-T1-token");
  await install(h, "T2");
  // Members Slack knows (users.info answers for them): the requester and a member who is no admin.
  slack.workspace.addUser({ id: "UREQ", teamId: "T1" });
  slack.workspace.addUser({ id: "USTRANGER", teamId: "T1" });
});
// Slack refused nothing the test did not script: a call the real Slack would refuse fails the test.
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => {
  h.sfnMock.resetHistory();
  slack.reset();
});

const successes = () => h.sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input);
const click = (userId: string, actionId: string, value: unknown, teamId = "T1", inModal?: string) => {
  const payload: Record<string, unknown> = blockAction(teamId, userId, actionId, value);
  if (inModal !== undefined) {
    // A click inside the modal Slack opened (its view id): Slack sends the view and a view container, no channel or message.
    Object.assign(payload, { view: { id: inModal, type: "modal", callback_id: APPROVE_PLAN_CALLBACK_ID }, container: { type: "view", view_id: inModal } });
    delete payload.channel;
    delete payload.message;
  }
  return h.send(signedInteraction(payload));
};
const submitPlan = (userId: string, metadata: unknown, teamId = "T1") =>
  h.send(
    signedInteraction({
      type: "view_submission",
      team: { id: teamId, domain: "example" },
      user: { id: userId, username: "u", team_id: teamId },
      api_app_id: "A0001",
      token: "legacy",
      trigger_id: "1234.5678.abcdef",
      view: { id: "VPLAN", team_id: teamId, type: "modal", callback_id: APPROVE_PLAN_CALLBACK_ID, private_metadata: JSON.stringify(metadata), blocks: [], state: { values: {} }, hash: "h", title: { type: "plain_text", text: "実行ステップ v1" }, app_id: "A0001", bot_id: "BBOT" },
    }),
  );
/** 60 steps: one section each is more than a card holds. */
const longPlan = () => Array.from({ length: 60 }, (_, i) => payStep(i + 1, 300_000 + i));

describe("「入力 JSON」", () => {
  it("from a card: views.open with the stored input; any member of the workspace may look", async () => {
    const task = await taskAwaitingProcess(h.store, [payStep(1)]);
    const res = await click("USTRANGER", ActionIds.showInput, { taskId: task.taskId, version: 1, stepIds: ["s1"] });
    expect(res.statusCode).toBe(200);
    const opened = slack.callsTo("views.open");
    expect(opened).toHaveLength(1);
    expect(JSON.stringify(opened[0]!.body.view)).toContain('\\"pay_amount\\": 300000');
    expect(slack.callsTo("views.push")).toHaveLength(0);
  });

  it("from inside the full-plan modal: views.push over it (closing it returns to the plan)", async () => {
    const task = await taskAwaitingProcess(h.store, longPlan());
    await click("UREQ", ActionIds.reviewPlan, { taskId: task.taskId, kind: "process", version: 1 });
    const plan = slack.workspace.openView;
    expect(plan?.view.callback_id).toBe(APPROVE_PLAN_CALLBACK_ID);
    await click("UREQ", ActionIds.showInput, { taskId: task.taskId, version: 1, stepIds: ["s7"] }, "T1", plan!.id);
    expect(slack.callsTo("views.open")).toHaveLength(1);
    const pushed = slack.callsTo("views.push");
    expect(pushed).toHaveLength(1);
    expect(JSON.stringify(pushed[0]!.body.view)).toContain('\\"pay_amount\\": 300006');
  });

  it("another workspace's task: nothing is shown", async () => {
    const task = await taskAwaitingProcess(h.store, [payStep(1)]);
    await click("UREQ", ActionIds.showInput, { taskId: task.taskId, version: 1, stepIds: ["s1"] }, "T2");
    expect(slack.callsTo("views.open")).toHaveLength(0);
    expect(slack.callsTo("chat.postEphemeral")[0]!.body.text).toBe(ActionMessages.notFound);
  });
});

describe("a plan that does not fit a card", () => {
  it("[承認] (a stale card or a forged click) is refused: approve from the full plan; nothing resumes", async () => {
    const task = await taskAwaitingProcess(h.store, longPlan());
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "process", version: 1 });
    expect(successes()).toHaveLength(0);
    expect(slack.callsTo("chat.postEphemeral")[0]!.body.text).toBe(PlanMessages.needsFullReview);
    expect((await h.store.getVersionOrThrow("process", task.taskId, 1)).status).toBe("pending_approval");
  });

  it("[全文を確認して承認] opens the whole plan with 承認する; its submission approves (audited as via full_plan)", async () => {
    const task = await taskAwaitingProcess(h.store, longPlan(), { token: "TOKEN-FULL" });
    await click("UREQ", ActionIds.reviewPlan, { taskId: task.taskId, kind: "process", version: 1 });
    const opened = slack.callsTo("views.open");
    expect(opened).toHaveLength(1);
    const view = opened[0]!.body.view as { callback_id: string; private_metadata: string; submit: { text: string }; blocks: unknown[] };
    expect(view.callback_id).toBe(APPROVE_PLAN_CALLBACK_ID);
    expect(view.submit.text).toBe("承認する");
    expect(JSON.parse(view.private_metadata)).toEqual({ taskId: task.taskId, kind: "process", version: 1 });
    for (let i = 0; i < 60; i++) expect(JSON.stringify(view.blocks)).toContain(`→ ${(300_000 + i).toLocaleString("en-US")}円`);
    expect(JSON.stringify(opened[0]!.body)).not.toContain("TOKEN-FULL");

    const res = await submitPlan("UREQ", JSON.parse(view.private_metadata));
    expect(res.statusCode).toBe(200);
    expect(res.body === "" ? {} : JSON.parse(res.body)).toEqual({});
    expect(successes()).toHaveLength(1);
    expect(successes()[0]!.taskToken).toBe("TOKEN-FULL");
    const history = await h.store.loadHistory(task.taskId);
    expect(history.processes[0]?.status).toBe("approved");
    expect(history.audit.find((a) => a.action === "process.approved")?.details).toMatchObject({ via: "full_plan" });
  });

  it("[全文を確認して承認] by someone who may not decide: ephemeral refusal, no modal", async () => {
    const task = await taskAwaitingProcess(h.store, longPlan());
    await click("USTRANGER", ActionIds.reviewPlan, { taskId: task.taskId, kind: "process", version: 1 });
    expect(slack.callsTo("views.open")).toHaveLength(0);
    expect(slack.callsTo("chat.postEphemeral")[0]!.body.text).toBe(ActionMessages.notPermitted);
  });
});

describe("a plan whose names freee could not settle", () => {
  it("neither [承認] nor the modal's submit approves it; the modal says why", async () => {
    const task = await taskAwaitingProcess(h.store, [payStep(1)], { status: "blocked" });
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "process", version: 1 });
    expect(slack.callsTo("chat.postEphemeral")[0]!.body.text).toBe(PlanMessages.blocked);
    const res = await submitPlan("UREQ", { taskId: task.taskId, kind: "process", version: 1 });
    const ack = JSON.parse(res.body) as { response_action: string; view: { blocks: { text: { text: string } }[] } };
    expect(ack.response_action).toBe("update");
    expect(ack.view.blocks[0]?.text.text).toBe(PlanMessages.blocked);
    expect(successes()).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("process", task.taskId, 1)).status).toBe("pending_approval");
  });

  it("a plan that fits the card is approved from the card", async () => {
    const task = await taskAwaitingProcess(h.store, [payStep(1)], { token: "TOKEN-CARD" });
    await click("UREQ", ActionIds.approve, { taskId: task.taskId, kind: "process", version: 1 });
    expect(successes().map((s) => s.taskToken)).toEqual(["TOKEN-CARD"]);
  });
});
