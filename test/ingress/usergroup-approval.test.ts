import { SendTaskSuccessCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY, snapshotRule, type ApprovalRule } from "../../lib/core/domain/approval-policy";
import { PolicyMessages } from "../../lib/core/messages/policy";
import { ActionIds } from "../../lib/ingress/cards";
import type { TestTable } from "../support/dynamo";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { signedInteraction } from "../support/slack-signing";
import { payStep, taskAwaitingProcess } from "./actions/harness";
import { blockAction, install, startIngress, startIngressOnFakes } from "./ingress-harness";

/**
 * Approval through a Slack user group, over signed clicks: the ingress asks Slack who is in the snapshot's group
 * (usergroups.users.list) and the decision write requires the group the judgement relied on. A member only in the
 * group approves; one who is not is refused; when Slack cannot answer, nothing is granted or refused — the click
 * is told to try again, and the failure is audited — and a group on a plan without user groups has no members.
 */
let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;
const T = "TGROUP";

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes());
  await install(h, T);
  for (const id of ["UINGROUP", "UOUTSIDE", "UREQ"]) slack.workspace.addUser({ id, teamId: T });
  slack.directory.addUsergroup({ id: "SHRTEAM", handle: "hr-approvers", name: "人事承認者", users: ["UINGROUP"] });
  // One group per test: the ingress keeps a group's members a minute, so each test's first click asks Slack.
  slack.directory.addUsergroup({ id: "SPAYROLL", handle: "payroll", name: "給与担当", users: ["UINGROUP"] });
  slack.directory.addUsergroup({ id: "SLABOUR", handle: "labour", name: "労務担当", users: ["UINGROUP"] });
});
beforeEach(() => {
  h.sfnMock.resetHistory();
  slack.reset();
});
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));

const successes = () => h.sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input);
const click = (userId: string, taskId: string) => h.send(signedInteraction(blockAction(T, userId, ActionIds.approve, { taskId, kind: "process", version: 1 })));
const ephemeralsTo = (userId: string) => slack.callsTo("chat.postEphemeral").filter((c) => c.body.user === userId).map((c) => String(c.body.text));

/** An HR pay change waiting for its Process approval, judged by a policy whose HR approvers are the group only. */
async function waiting(group = "SHRTEAM"): Promise<{ taskId: string; rule: ApprovalRule }> {
  const task = await taskAwaitingProcess(h.store, [payStep(1)], { teamId: T });
  const policy = { ...DEFAULT_APPROVAL_POLICY, approvers: { ...DEFAULT_APPROVAL_POLICY.approvers, hr: { userIds: [], usergroupIds: [group] } } };
  const rule = snapshotRule(policy, { writeDomains: ["hr"], readDomains: [], warnings: [], totalYen: 300_000 }, new Date().toISOString());
  // The wait opens once: this call only adds the owner and the rule the click is judged by.
  await h.store.openApproval("process", task.taskId, 1, "TOKEN-process-1", { teamId: T, requesterId: "UREQ", approvalRule: rule });
  expect((await h.store.getVersionOrThrow("process", task.taskId, 1)).approvalRule).toEqual(rule);
  return { taskId: task.taskId, rule };
}

describe("approval by user group membership", () => {
  it("one who is not in the group is refused; a member only in the group (not named, no admin) approves", async () => {
    const { taskId, rule } = await waiting();
    expect((await click("UOUTSIDE", taskId)).statusCode).toBe(200);
    expect(ephemeralsTo("UOUTSIDE")).toEqual([PolicyMessages.refused("not_approver", rule)]);
    expect(successes()).toEqual([]);
    expect((await click("UINGROUP", taskId)).statusCode).toBe(200);
    expect(successes().map((s) => s?.taskToken)).toEqual(["TOKEN-process-1"]);
    expect((await h.store.getVersionOrThrow("process", taskId, 1)).decision).toMatchObject({ decision: "approved", actorId: "UINGROUP", rule: "policy.approver_usergroup" });
    expect(slack.callsTo("usergroups.users.list").map((c) => c.body.usergroup)).toContain("SHRTEAM");
  });

  it("Slack cannot say who is in the group: nothing is granted nor refused, the member is told to retry, the failure audited", async () => {
    const { taskId } = await waiting("SPAYROLL");
    // Both tries of the WebClient (one retry) answer 500.
    slack.failNext("usergroups.users.list", { status: 500, times: 2 });
    expect((await click("UINGROUP", taskId)).statusCode).toBe(200);
    expect(ephemeralsTo("UINGROUP")).toEqual([PolicyMessages.membershipUnknown]);
    expect(successes()).toEqual([]);
    const version = await h.store.getVersionOrThrow("process", taskId, 1);
    expect(version.status).toBe("pending_approval");
    expect(version.approvedBy).toBeUndefined();
    const audit = await h.store.listAuditByTeam(T);
    expect(audit.filter((a) => a.action === "error.ingress" && a.taskId === taskId).map((a) => a.errorType)).toEqual(["UpstreamServerError"]);
  });

  it("a workspace whose plan has no user groups (plan_upgrade_required): the group has no members, the click is refused", async () => {
    const { taskId, rule } = await waiting("SLABOUR");
    slack.directory.usergroupsUnavailable = true;
    try {
      // Listed in the group before the downgrade: no longer an approver through it.
      await click("UINGROUP", taskId);
      expect(ephemeralsTo("UINGROUP")).toEqual([PolicyMessages.refused("not_approver", rule)]);
      expect(successes()).toEqual([]);
      expect(slack.takeRefused().map((c) => c.error)).toEqual(["plan_upgrade_required"]);
    } finally {
      slack.directory.usergroupsUnavailable = false;
    }
  });
});
