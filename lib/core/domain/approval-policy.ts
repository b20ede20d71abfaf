import * as z from "zod/mini";

/**
 * Separation of duties (docs/architecture.md, who may approve): the workspace's approval policy, the snapshot of
 * it a Process version carries from the moment its card asks for approval, and the judgement of one click against
 * that snapshot. Pure: the decision write (lib/store/decision.ts) conditions on what the judgement found, and the
 * card shows the same snapshot (lib/ingress/approval-status.ts).
 */

export const POLICY_DOMAINS = ["hr", "accounting", "invoices"] as const;
export type PolicyDomain = (typeof POLICY_DOMAINS)[number];
export const DOMAIN_LABEL: Record<PolicyDomain, string> = { hr: "人事労務", accounting: "会計", invoices: "請求書" };

const userId = z.string().check(z.regex(/^[UW][A-Z0-9]+$/));
const usergroupId = z.string().check(z.regex(/^S[A-Z0-9]+$/));

/** Who may approve the writes of one domain: Slack members, and the members of Slack user groups. */
export const ApproverSetSchema = z.object({ userIds: z.array(userId), usergroupIds: z.array(usergroupId) });
export type ApproverSet = z.infer<typeof ApproverSetSchema>;

export const ApprovalPolicySchema = z.object({
  /** May the requester approve their own plan when it writes (a plan that only reads: always). */
  selfApproveWrites: z.boolean(),
  /** Per domain; an empty set means the workspace's admins (docs/architecture.md, who may act). */
  approvers: z.object({ hr: ApproverSetSchema, accounting: ApproverSetSchema, invoices: ApproverSetSchema }),
  /** Two distinct approvers for a write plan with any change-table warning, or whose total is above the amount. */
  twoApprovers: z.object({ onWarning: z.boolean(), aboveYen: z.nullable(z.int().check(z.nonnegative())) }),
  /** A plan that only reads runs after the 実行方針 approval alone, per domain it reads. */
  readsRunOnPromptApproval: z.object({ hr: z.boolean(), accounting: z.boolean(), invoices: z.boolean() }),
  updatedBy: z.optional(z.string().check(z.minLength(1))),
  updatedAt: z.optional(z.string().check(z.minLength(1))),
});
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

const none = (): ApproverSet => ({ userIds: [], usergroupIds: [] });
/** What a workspace that never saved a policy has. */
export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = {
  selfApproveWrites: false,
  approvers: { hr: none(), accounting: none(), invoices: none() },
  twoApprovers: { onWarning: true, aboveYen: 1_000_000 },
  readsRunOnPromptApproval: { hr: false, accounting: true, invoices: true },
};

/** What the policy needs to know of a plan (lib/steps/approval-policy-facts.ts reads it from the steps and preview). */
export interface PlanFacts {
  writeDomains: PolicyDomain[];
  readDomains: PolicyDomain[];
  /** The change table's warning codes (none exported yet: the plan is judged on the amount alone until then). */
  warnings: string[];
  /** The plan's total in yen (the largest amount each write step sets, summed), when it has any. */
  totalYen: number | undefined;
}

/**
 * The rule a Process version is judged by, fixed when its card is posted: a policy saved later does not change
 * it (the card says which settings it follows).
 */
export const ApprovalRuleSchema = z.object({
  writes: z.boolean(),
  writeDomains: z.array(z.enum(POLICY_DOMAINS)),
  readDomains: z.array(z.enum(POLICY_DOMAINS)),
  selfApproval: z.boolean(),
  /** The union of the write domains' approver sets; both empty = the workspace's admins. */
  approverUserIds: z.array(userId),
  approverUsergroupIds: z.array(usergroupId),
  required: z.union([z.literal(1), z.literal(2)]),
  /** Why two are required: `warning`, `amount`. */
  twoBecause: z.array(z.enum(["warning", "amount"])),
  /** The plan only reads and the policy lets it run on the 実行方針 approval: the Process card is information. */
  autoApproved: z.boolean(),
  totalYen: z.optional(z.number()),
  /**
   * An HR write plan whose card is in a public channel: the card shows each change without its amounts, and the
   * plan is approved only from the private full-plan modal (never the card's button).
   */
  maskAmounts: z.optional(z.boolean()),
  /** When the policy this snapshot copies was saved (absent: the defaults). */
  policyUpdatedAt: z.optional(z.string()),
  snapshotAt: z.string().check(z.minLength(1)),
});
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** One approval of a two-person plan, recorded before the second. */
export const RecordedApprovalSchema = z.object({ actorId: userId, rule: z.string().check(z.minLength(1)), at: z.string().check(z.minLength(1)) });
export type RecordedApproval = z.infer<typeof RecordedApprovalSchema>;

export function snapshotRule(policy: ApprovalPolicy, facts: PlanFacts, at: string, where: { publicChannel: boolean } = { publicChannel: false }): ApprovalRule {
  const writes = facts.writeDomains.length > 0;
  const sets = facts.writeDomains.map((d) => policy.approvers[d]);
  const twoBecause: ApprovalRule["twoBecause"] = [];
  if (writes && policy.twoApprovers.onWarning && facts.warnings.length > 0) twoBecause.push("warning");
  if (writes && policy.twoApprovers.aboveYen !== null && facts.totalYen !== undefined && facts.totalYen > policy.twoApprovers.aboveYen) twoBecause.push("amount");
  const autoApproved = !writes && facts.readDomains.length > 0 && facts.readDomains.every((d) => policy.readsRunOnPromptApproval[d]);
  return {
    writes,
    writeDomains: facts.writeDomains,
    readDomains: facts.readDomains,
    selfApproval: !writes || policy.selfApproveWrites,
    approverUserIds: [...new Set(sets.flatMap((s) => s.userIds))],
    approverUsergroupIds: [...new Set(sets.flatMap((s) => s.usergroupIds))],
    required: twoBecause.length > 0 ? 2 : 1,
    twoBecause,
    autoApproved,
    ...(where.publicChannel && facts.writeDomains.includes("hr") ? { maskAmounts: true } : {}),
    ...(facts.totalYen === undefined ? {} : { totalYen: facts.totalYen }),
    ...(policy.updatedAt === undefined ? {} : { policyUpdatedAt: policy.updatedAt }),
    snapshotAt: at,
  };
}

/** What the ingress knows of the clicker when judging (the group lookup is usergroups.users.list). */
export interface ClickerFacts {
  userId: string;
  requesterId: string;
  isAdmin: boolean;
  /** The snapshot's user groups this member belongs to. */
  inUsergroups: string[];
  /** Who already approved (a two-person plan's first approval). */
  approvedBy: string[];
}

/**
 * The rule that allows the click (named in the audit entry), or why it is refused. For a plan with approvers
 * configured, only they approve (an admin too only if listed); without, the admins do; the requester only
 * where the snapshot allows self-approval and they are otherwise allowed (or it only reads).
 */
export type Judgement =
  | { allowed: true; rule: ApprovalRuleName; via: { kind: "user" } | { kind: "usergroup"; usergroupId: string } | { kind: "admin" } | { kind: "requester" } }
  | { allowed: false; reason: "self_approval" | "not_approver" | "already_approved" };

export type ApprovalRuleName = "policy.requester" | "policy.approver_user" | "policy.approver_usergroup" | "policy.admin" | typeof READS_AFTER_PROMPT_RULE;

/** A plan that only reads, run on its 実行方針 approval because the policy lets its domains' reads do so. */
export const READS_AFTER_PROMPT_RULE = "policy.reads_after_prompt_approval";

export function judgeApproval(rule: ApprovalRule, who: ClickerFacts): Judgement {
  if (who.approvedBy.includes(who.userId)) return { allowed: false, reason: "already_approved" };
  const isRequester = who.userId === who.requesterId;
  if (isRequester && !rule.selfApproval) return { allowed: false, reason: "self_approval" };
  const listed = rule.approverUserIds.length > 0 || rule.approverUsergroupIds.length > 0;
  if (listed && rule.writes) {
    if (rule.approverUserIds.includes(who.userId)) return { allowed: true, rule: "policy.approver_user", via: { kind: "user" } };
    const group = rule.approverUsergroupIds.find((g) => who.inUsergroups.includes(g));
    if (group !== undefined) return { allowed: true, rule: "policy.approver_usergroup", via: { kind: "usergroup", usergroupId: group } };
    return { allowed: false, reason: "not_approver" };
  }
  if (isRequester) return { allowed: true, rule: "policy.requester", via: { kind: "requester" } };
  if (who.isAdmin) return { allowed: true, rule: "policy.admin", via: { kind: "admin" } };
  return { allowed: false, reason: "not_approver" };
}

/**
 * A workspace of one: the requester approves their own writes and no plan needs a second person (an admin chooses
 * it in App Home; the single-user test suites and the sandbox's one-person mode seed it).
 */
export const ONE_PERSON_POLICY: ApprovalPolicy = {
  ...DEFAULT_APPROVAL_POLICY,
  selfApproveWrites: true,
  twoApprovers: { onWarning: false, aboveYen: null },
};
