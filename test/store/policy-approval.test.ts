import { describe, expect, it } from "vitest";
import { writePolicyApproval, type PolicyApprovalWrite } from "../../lib/store/decision";
import { DEFAULT_APPROVAL_POLICY, snapshotRule, type ApprovalRule } from "../../lib/core/domain/approval-policy";
import { useStore } from "./helpers";

const s = useStore();

/**
 * The decision write refuses what the approval policy does not allow, whatever the caller judged: the requester
 * where self-approval is off, someone the snapshot does not list, the same approver twice, a judgement made
 * against another snapshot or another count of approvals.
 */
describe("writePolicyApproval: the conditional write is the policy's last word", () => {
  const step = { stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { employee_id: 1, year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 1_200_000 } };
  const at = "2026-12-01T00:00:00.000Z";

  async function pending(rule: ApprovalRule) {
    const task = await s.newTask();
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await s.store.saveVersionContent("process", task.taskId, 1, { steps: [step] });
    await s.store.openApproval("process", task.taskId, 1, "tok-1", { teamId: "T1", requesterId: "UREQ", approvalRule: rule });
    return task.taskId;
  }
  const write = (taskId: string, rule: ApprovalRule, over: Partial<PolicyApprovalWrite> & { actorId?: string } = {}) =>
    writePolicyApproval(s.table.doc, s.table.tableName, {
      taskId,
      version: 1,
      teamId: "T1",
      decision: { decision: "approved", actorId: over.actorId ?? "UADMIN", rule: "policy.admin", decidedAt: "2026-12-01T00:00:02.000Z" },
      snapshotAt: rule.snapshotAt,
      notRequester: !rule.selfApproval,
      earlier: 0,
      required: rule.required,
      ...over,
    });
  const facts = { writeDomains: ["hr" as const], readDomains: [], warnings: [], totalYen: 1_200_000 };

  it("the requester is refused by the table when self-approval is off, even if the caller let them through", async () => {
    const rule = snapshotRule(DEFAULT_APPROVAL_POLICY, { ...facts, totalYen: 300_000 }, at);
    const taskId = await pending(rule);
    expect(await write(taskId, rule, { actorId: "UREQ" })).toMatchObject({ applied: false, reason: "refused" });
    expect((await s.store.getVersionOrThrow("process", taskId, 1)).status).toBe("pending_approval");
    expect(await write(taskId, rule)).toEqual({ applied: true, complete: true, taskToken: "tok-1" });
  });

  it("two approvals: the first is appended, the same approver again is refused, a second approver decides", async () => {
    const rule = snapshotRule(DEFAULT_APPROVAL_POLICY, facts, at);
    expect(rule.required).toBe(2);
    const taskId = await pending(rule);
    expect(await write(taskId, rule, { actorId: "UA" })).toEqual({ applied: true, complete: false });
    expect(await s.store.getVersionOrThrow("process", taskId, 1)).toMatchObject({ status: "pending_approval", approvedBy: ["UA"], approvals: [{ actorId: "UA", rule: "policy.admin" }] });
    // A judgement that missed the first approval (earlier 0) finds the count changed; one that saw it refuses UA again.
    expect(await write(taskId, rule, { actorId: "UA" })).toMatchObject({ applied: false, reason: "changed" });
    expect(await write(taskId, rule, { actorId: "UA", earlier: 1 })).toMatchObject({ applied: false, reason: "refused" });
    expect(await write(taskId, rule, { actorId: "UB", earlier: 1 })).toEqual({ applied: true, complete: true, taskToken: "tok-1" });
    expect(await s.store.getVersionOrThrow("process", taskId, 1)).toMatchObject({ status: "approved", approvedBy: ["UA", "UB"], decision: { actorId: "UB" } });
  });

  it("a listed approver must be in the snapshot; a judgement against another snapshot is refused", async () => {
    const policy = { ...DEFAULT_APPROVAL_POLICY, approvers: { ...DEFAULT_APPROVAL_POLICY.approvers, hr: { userIds: ["UHR"], usergroupIds: ["SHR"] } } };
    const rule = snapshotRule(policy, { ...facts, totalYen: 300_000 }, at);
    const taskId = await pending(rule);
    expect(await write(taskId, rule, { actorId: "UOTHER", listed: { kind: "user" } })).toMatchObject({ applied: false, reason: "refused" });
    expect(await write(taskId, rule, { actorId: "UOTHER", listed: { kind: "usergroup", usergroupId: "SNOTLISTED" } })).toMatchObject({ applied: false, reason: "refused" });
    expect(await write(taskId, rule, { actorId: "UHR", listed: { kind: "user" }, snapshotAt: "2026-11-30T00:00:00.000Z" })).toMatchObject({ applied: false, reason: "changed" });
    expect(await write(taskId, rule, { actorId: "UHR", listed: { kind: "user" } })).toMatchObject({ applied: true, complete: true });
  });

  it("a retried open keeps the first snapshot: a policy saved in between does not change a waiting plan", async () => {
    const first = snapshotRule(DEFAULT_APPROVAL_POLICY, facts, at);
    const taskId = await pending(first);
    const later = snapshotRule({ ...DEFAULT_APPROVAL_POLICY, selfApproveWrites: true }, facts, "2026-12-01T01:00:00.000Z");
    await s.store.openApproval("process", taskId, 1, "tok-1", { teamId: "T1", requesterId: "UREQ", approvalRule: later });
    expect((await s.store.getVersionOrThrow("process", taskId, 1)).approvalRule).toEqual(first);
  });
});
