import { SendTaskSuccessCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TeamSettingsStore } from "../../lib/ingress/actions";
import { AccessMessages } from "../../lib/core/messages/ja";
import { ActionIds } from "../../lib/ingress/cards";
import { externalTeamOf } from "../../lib/ingress/org-boundary";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import type { TestTable } from "../support/dynamo";
import { signedInteraction, signedJson } from "../support/slack-signing";
import { payStep, taskAwaitingProcess, taskAwaitingPrompt, taskWithExecution } from "./actions/harness";
import { APPROVE_PLAN_CALLBACK_ID } from "../../lib/ingress/plan-modal";
import { blockAction, install, messageEvent, rejectSubmission, startIngress, startIngressOnFakes } from "./ingress-harness";

/** Issue 15 item 3: users of another organisation in a Slack Connect channel are refused, unless an admin allowed their workspace. */

let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;
let settings: TeamSettingsStore;

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes());
  await install(h, "T1");
  settings = new TeamSettingsStore(table.doc, table.tableName);
});
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(async () => {
  h.sfnMock.resetHistory();
  slack.reset();
  await settings.saveAllowedExternalTeams("T1", [], "UADMIN");
});

const started = () => h.sfnMock.commandCalls(StartExecutionCommand).length;
const ephemerals = () => slack.callsTo("chat.postEphemeral").map((c) => ({ user: c.body.user, text: c.body.text }));
/** A message in a channel shared with another organisation. */
const shared = (patch: Record<string, unknown>) => ({ ...messageEvent("T1", patch), is_ext_shared_channel: true });
/** A click on a card in that channel by a member of `userTeam` (Slack sends the user's own workspace in user.team_id). */
const clickFrom = (userTeam: string, userId: string, actionId: string, value: unknown) => {
  const body = blockAction("T1", userId, actionId, value);
  return h.send(signedInteraction({ ...body, user: { ...body.user, team_id: userTeam } }));
};

describe("messages", () => {
  it("a request from another organisation's user is refused with an ephemeral message; nothing starts", async () => {
    expect((await h.send(signedJson(shared({ user: "UGUEST", user_team: "TOTHER", source_team: "TOTHER", text: "経費を登録して" })))).statusCode).toBe(200);
    expect(started()).toBe(0);
    expect(ephemerals()).toEqual([{ user: "UGUEST", text: AccessMessages.externalUser }]);
  });

  it("our own member in the same shared channel is served; a shared channel message naming no team is refused", async () => {
    await h.send(signedJson(shared({ user: "UREQ", user_team: "T1", source_team: "T1", text: "経費を登録して" })));
    expect(started()).toBe(1);
    expect(ephemerals()).toEqual([]);
    await h.send(signedJson(shared({ user: "UWHO", text: "誰かからの依頼" })));
    expect(started()).toBe(1);
    expect(ephemerals()).toEqual([{ user: "UWHO", text: AccessMessages.externalUser }]);
  });

  it("a workspace an admin allowed (team settings, App Home) is served", async () => {
    await settings.saveAllowedExternalTeams("T1", ["TPARTNER"], "UADMIN");
    await h.send(signedJson(shared({ user: "UPARTNER", user_team: "TPARTNER", source_team: "TPARTNER", text: "請求書を登録して" })));
    expect(started()).toBe(1);
    await h.send(signedJson(shared({ user: "UGUEST", user_team: "TOTHER", source_team: "TOTHER", text: "請求書を登録して" })));
    expect(started()).toBe(1);
  });
});

describe("clicks", () => {
  it("approve by another organisation's user — even the task's requester id — is refused: nothing decided, nothing resumed", async () => {
    const task = await taskAwaitingPrompt(h.store);
    await clickFrom("TOTHER", "UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(h.sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
    expect(ephemerals()).toEqual([{ user: "UREQ", text: AccessMessages.externalUser }]);
    // Ours: the same click from the user's own workspace goes through.
    await clickFrom("T1", "UREQ", ActionIds.approve, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(h.sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(1);
  });

  it("cancel and rerun from another organisation are refused", async () => {
    const running = await taskWithExecution(h.store, "running");
    await clickFrom("TOTHER", "UREQ", ActionIds.cancel, { taskId: running.taskId, executionNo: 1 });
    expect((await h.store.getExecutionOrThrow(running.taskId, 1)).status).toBe("running");
    const failed = await taskWithExecution(h.store, "failed");
    await clickFrom("TOTHER", "UREQ", ActionIds.rerun, { taskId: failed.taskId, executionNo: 1 });
    expect(started()).toBe(0);
    expect(ephemerals()).toEqual([
      { user: "UREQ", text: AccessMessages.externalUser },
      { user: "UREQ", text: AccessMessages.externalUser },
    ]);
  });

  it("a reject submitted by another organisation's user is refused inside the modal", async () => {
    const task = await taskAwaitingPrompt(h.store);
    const submission = rejectSubmission("T1", "UREQ", { taskId: task.taskId, kind: "prompt", version: 1 }, "理由");
    const res = await h.send(signedInteraction({ ...submission, user: { ...submission.user, team_id: "TOTHER" } }));
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ response_action: "errors", errors: { reason: AccessMessages.externalUser } });
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
  });
});

describe("the full-plan modal", () => {
  it("its approve submitted by another organisation's user is refused in the modal; nothing resumes", async () => {
    const task = await taskAwaitingProcess(h.store, Array.from({ length: 60 }, (_, i) => payStep(i + 1, 300_000 + i)));
    const view = { id: "VPLAN", team_id: "T1", type: "modal", callback_id: APPROVE_PLAN_CALLBACK_ID, private_metadata: JSON.stringify({ taskId: task.taskId, kind: "process", version: 1 }), blocks: [], state: { values: {} }, hash: "h", title: { type: "plain_text", text: "実行ステップ v1" }, app_id: "A0001", bot_id: "BBOT" };
    const res = await h.send(
      signedInteraction({ type: "view_submission", team: { id: "T1", domain: "example" }, user: { id: "UREQ", username: "u", team_id: "TOTHER" }, api_app_id: "A0001", token: "legacy", trigger_id: "1234.5678.abcdef", view }),
    );
    expect(JSON.stringify(JSON.parse(res.body ?? "{}"))).toContain(AccessMessages.externalUser);
    expect(h.sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
    expect((await h.store.getVersionOrThrow("process", task.taskId, 1)).status).toBe("pending_approval");
  });
});

describe("who is outside", () => {
  it("Enterprise Grid: a click names the organisation (E…) as the user's team — ours; another org's grid is not", () => {
    expect(externalTeamOf({ installedTeamId: "T1", installedEnterpriseId: "E1", userTeamIds: ["E1"] })).toBeUndefined();
    expect(externalTeamOf({ installedTeamId: "T1", installedEnterpriseId: "E1", userTeamIds: ["E2"] })).toBe("E2");
    // Another workspace of the same organisation, in a channel not shared outside it.
    expect(externalTeamOf({ installedTeamId: "T1", installedEnterpriseId: "E1", userTeamIds: ["T2"], extShared: false })).toBeUndefined();
    expect(externalTeamOf({ installedTeamId: "T1", userTeamIds: ["T2"], extShared: false })).toBe("T2");
    expect(externalTeamOf({ installedTeamId: "T1", userTeamIds: [undefined, undefined] })).toBeUndefined();
  });
});
