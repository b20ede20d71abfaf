import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ActionMessages } from "../../lib/ingress/actions";
import { AccessMessages } from "../../lib/core/messages/ja";
import { ActionIds } from "../../lib/ingress/cards";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import type { TestTable } from "../support/dynamo";
import { signedInteraction } from "../support/slack-signing";
import { taskAwaitingPrompt, taskWithExecution } from "./actions/harness";
import { blockAction, install, rejectSubmission, startIngress, startIngressOnFakes } from "./ingress-harness";

/**
 * Boundaries of a workspace, through signed Slack requests to the ingress (the app is installed per workspace:
 * the manifest has org_deploy_enabled: false).
 * - Enterprise Grid: an admin of a sibling workspace of the same organisation is no admin here.
 * - A click whose payload names no workspace for its user (no `user.team_id`) is checked against the
 *   installation's team with users.info; a user Slack does not know there is refused.
 */
let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes());
  await install(h, "T1", "xoxb-T1-token");
  slack.workspace.addUser({ id: "UGRIDADMIN", teamId: "T2", enterpriseId: "E1", isAdmin: true });
  slack.workspace.addUser({ id: "UHOMEADMIN", teamId: "T1", enterpriseId: "E1", isAdmin: true });
  slack.workspace.addUser({ id: "UOUTSIDER", teamId: "TOTHER" });
});
afterEach(() => expect(slack.takeRefused().filter((r) => r.error !== "user_not_found")).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => {
  h.sfnMock.resetHistory();
  slack.reset();
});

const ephemerals = () => slack.callsTo("chat.postEphemeral").map((c) => ({ user: c.body.user, text: c.body.text }));
/** A click in a Grid workspace T1 of organisation E1: Slack names the organisation as the user's team. */
const gridClick = (userId: string, actionId: string, value: unknown) => {
  const body = blockAction("T1", userId, actionId, value);
  return h.send(signedInteraction({ ...body, team: { ...body.team, enterprise_id: "E1" }, user: { ...body.user, team_id: "E1" }, enterprise: { id: "E1", name: "Grid" } }));
};
/** A click whose payload carries no `user.team_id`. */
const clickWithoutUserTeam = (userId: string, actionId: string, value: unknown) => {
  const body = blockAction("T1", userId, actionId, value);
  const { team_id: _dropped, ...user } = body.user;
  return h.send(signedInteraction({ ...body, user }));
};

describe("Enterprise Grid", () => {
  it("an admin of a sibling workspace (users.info: team T2 of the same organisation) may not cancel another's run here", async () => {
    const running = await taskWithExecution(h.store, "running");
    expect((await gridClick("UGRIDADMIN", ActionIds.cancel, { taskId: running.taskId, executionNo: 1 })).statusCode).toBe(200);
    expect((await h.store.getExecutionOrThrow(running.taskId, 1)).status).toBe("running");
    expect(ephemerals()).toEqual([{ user: "UGRIDADMIN", text: ActionMessages.notPermitted }]);
    expect(slack.callsTo("users.info").map((c) => c.body.user)).toContain("UGRIDADMIN");
  });

  it("an admin of this workspace in the same organisation may", async () => {
    const running = await taskWithExecution(h.store, "running");
    await gridClick("UHOMEADMIN", ActionIds.cancel, { taskId: running.taskId, executionNo: 1 });
    expect((await h.store.getExecutionOrThrow(running.taskId, 1)).status).toBe("cancelled");
  });
});

describe("a click that does not say which workspace its user is from", () => {
  it("a user Slack does not know in the installation's workspace is refused as an outsider: nothing changes", async () => {
    const running = await taskWithExecution(h.store, "running");
    await clickWithoutUserTeam("UREQ", ActionIds.cancel, { taskId: running.taskId, executionNo: 1 });
    expect((await h.store.getExecutionOrThrow(running.taskId, 1)).status).toBe("running");
    expect(ephemerals()).toEqual([{ user: "UREQ", text: AccessMessages.externalUser }]);
  });

  it("a member of another organisation (users.info says so) is refused; a member of the installation's team is served", async () => {
    // (UREQ is not used here: the previous test's users.info answer for it is cached by the warm ingress.)
    slack.workspace.addUser({ id: "UT1ADMIN", teamId: "T1", isAdmin: true });
    const failed = await taskWithExecution(h.store, "failed");
    await clickWithoutUserTeam("UOUTSIDER", ActionIds.rerun, { taskId: failed.taskId, executionNo: 1 });
    expect(h.sfnMock.commandCalls(StartExecutionCommand)).toHaveLength(0);
    expect(ephemerals()).toEqual([{ user: "UOUTSIDER", text: AccessMessages.externalUser }]);
    const running = await taskWithExecution(h.store, "running");
    await clickWithoutUserTeam("UT1ADMIN", ActionIds.cancel, { taskId: running.taskId, executionNo: 1 });
    expect((await h.store.getExecutionOrThrow(running.taskId, 1)).status).toBe("cancelled");
  });

  it("a reject submitted without the user's workspace is refused inside the modal when Slack does not know the user", async () => {
    const task = await taskAwaitingPrompt(h.store);
    const submission = rejectSubmission("T1", "UNOBODY", { taskId: task.taskId, kind: "prompt", version: 1 }, "理由");
    const { team_id: _dropped, ...user } = submission.user as { team_id?: string } & Record<string, unknown>;
    const res = await h.send(signedInteraction({ ...submission, user }));
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ response_action: "errors", errors: { reason: AccessMessages.externalUser } });
    expect((await h.store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
  });
});
