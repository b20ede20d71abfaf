import { describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY, snapshotRule, type ApprovalPolicy, type PlanFacts } from "../../lib/core/domain/approval-policy";
import type { ProcessVersion } from "../../lib/core/domain/records";
import { approvalStatusBlocks } from "../../lib/ingress/approval-status";
import { processVersion } from "./fixtures";

/**
 * The Process card's approval lines (lib/ingress/approval-status.ts), from the policy snapshot the version carries:
 * who may approve, who has approved, what is still needed, and which saved policy the plan is judged by.
 */
const AT = "2026-12-03T10:00:00.000Z";
const HR_WRITE: PlanFacts = { writeDomains: ["hr"], readDomains: [], warnings: [], totalYen: 300_000 };

function waiting(policy: ApprovalPolicy, facts: PlanFacts, patch: Partial<ProcessVersion> = {}): ProcessVersion {
  return processVersion(1, { status: "pending_approval", approvalRule: snapshotRule(policy, facts, AT), ...patch });
}

/** Each block's words, in order: a section's text, a context's elements. */
function lines(version: ProcessVersion): string[] {
  return approvalStatusBlocks(version).map((b) => {
    const block = b as { type: string; text?: { text: string }; elements?: { text?: string }[] };
    return block.type === "section" ? block.text!.text : (block.elements ?? []).map((e) => e.text ?? "").join(" ");
  });
}

describe("who may approve", () => {
  it("no approvers configured: the requester or an admin, the requester excluded for a write", () => {
    expect(lines(waiting(DEFAULT_APPROVAL_POLICY, HR_WRITE))).toEqual([
      "*承認できる人:* 依頼者または管理者（依頼者本人を除く）\nあと 1 人の承認が必要です。",
      "この計画は投稿時の承認ルール（既定の設定）で判定されます。後で設定が変わってもこの計画には適用されません。",
    ]);
  });

  it("the write domain's members and user groups, as Slack mentions; another domain's approvers are not named", () => {
    const policy: ApprovalPolicy = {
      ...DEFAULT_APPROVAL_POLICY,
      approvers: { hr: { userIds: ["UHR1", "UHR2"], usergroupIds: ["SHRTEAM"] }, accounting: { userIds: ["UACC"], usergroupIds: ["SACC"] }, invoices: { userIds: [], usergroupIds: [] } },
    };
    const [who] = lines(waiting(policy, HR_WRITE));
    expect(who).toBe("*承認できる人:* <@UHR1> <@UHR2> <!subteam^SHRTEAM>（依頼者本人を除く）\nあと 1 人の承認が必要です。");
    expect(who).not.toContain("UACC");
    expect(who).not.toContain("SACC");
  });

  it("self-approval allowed: the requester is not excluded", () => {
    expect(lines(waiting({ ...DEFAULT_APPROVAL_POLICY, selfApproveWrites: true }, HR_WRITE))[0]).toBe("*承認できる人:* 依頼者または管理者\nあと 1 人の承認が必要です。");
  });

  it("a plan that only reads (the policy keeps it at the Process gate): the requester or an admin, whoever approves writes", () => {
    const policy: ApprovalPolicy = { ...DEFAULT_APPROVAL_POLICY, approvers: { ...DEFAULT_APPROVAL_POLICY.approvers, hr: { userIds: ["UHR1"], usergroupIds: [] } } };
    const read = waiting(policy, { writeDomains: [], readDomains: ["hr"], warnings: [], totalYen: undefined });
    expect(read.approvalRule).toMatchObject({ writes: false, autoApproved: false });
    expect(lines(read)[0]).toBe("*承認できる人:* 依頼者または管理者\nあと 1 人の承認が必要です。");
  });
});

describe("who has approved and what is still needed", () => {
  const big: PlanFacts = { ...HR_WRITE, totalYen: 1_200_000 };

  it("a two-person plan says why two, then after one approval names it and asks for one more", () => {
    expect(lines(waiting(DEFAULT_APPROVAL_POLICY, big))[0]).toBe("*承認できる人:* 依頼者または管理者（依頼者本人を除く）\nこの計画は合計金額が基準を超えるため、別々の 2 人の承認が必要です。あと 2 人の承認が必要です。");
    const once = waiting(DEFAULT_APPROVAL_POLICY, big, { approvedBy: ["UA"], approvals: [{ actorId: "UA", rule: "policy.admin", at: AT }] });
    expect(lines(once)[0]).toBe("*承認できる人:* 依頼者または管理者（依頼者本人を除く）\nこの計画は合計金額が基準を超えるため、別々の 2 人の承認が必要です。承認済み: <@UA>。あと 1 人の承認が必要です。");
  });

  it("both reasons at once: a warning on the change table and the amount", () => {
    const rule = waiting(DEFAULT_APPROVAL_POLICY, { ...big, warnings: ["retroactive"] });
    expect(rule.approvalRule?.twoBecause).toEqual(["warning", "amount"]);
    expect(lines(rule)[0]).toContain("この計画は注意事項がある・合計金額が基準を超えるため、別々の 2 人の承認が必要です。");
  });

  it("the amount rule off (aboveYen null) and no warning: one approval", () => {
    const policy: ApprovalPolicy = { ...DEFAULT_APPROVAL_POLICY, twoApprovers: { onWarning: true, aboveYen: null } };
    expect(lines(waiting(policy, big))[0]).toBe("*承認できる人:* 依頼者または管理者（依頼者本人を除く）\nあと 1 人の承認が必要です。");
  });

  it("approved by two: the card names both approvers; approved by one: no extra line", () => {
    const rule = snapshotRule(DEFAULT_APPROVAL_POLICY, big, AT);
    const second = { decision: "approved" as const, actorId: "UB", via: "card" as const, rule: "policy.admin", decidedAt: AT, earlierApprovals: [{ actorId: "UA", rule: "policy.admin", at: AT }] };
    expect(lines(processVersion(1, { status: "approved", approvalRule: rule, decision: second }))).toEqual(["承認者: <@UA> <@UB>（別々の 2 人）"]);
    const single = { decision: "approved" as const, actorId: "UB", via: "card" as const, rule: "policy.admin", decidedAt: AT };
    expect(lines(processVersion(1, { status: "approved", approvalRule: snapshotRule(DEFAULT_APPROVAL_POLICY, HR_WRITE, AT), decision: single }))).toEqual([]);
  });
});

describe("which rules the plan is judged by", () => {
  it("a saved policy is named by when it was saved; the defaults by name", () => {
    const saved = { ...DEFAULT_APPROVAL_POLICY, updatedAt: "2026-11-30T09:15:42.000Z", updatedBy: "UADMIN" };
    expect(lines(waiting(saved, HR_WRITE))[1]).toBe("この計画は投稿時の承認ルール（2026-11-30 09:15 UTC 保存の設定）で判定されます。後で設定が変わってもこの計画には適用されません。");
  });

  it("nothing for a version posted before the policy existed, nor once it is no longer waiting unapproved", () => {
    expect(approvalStatusBlocks(processVersion(1, { status: "pending_approval" }))).toEqual([]);
    const rule = snapshotRule(DEFAULT_APPROVAL_POLICY, HR_WRITE, AT);
    for (const status of ["rejected", "failed", "expired", "generating"] as const) expect(approvalStatusBlocks(processVersion(1, { status, approvalRule: rule }))).toEqual([]);
  });
});
