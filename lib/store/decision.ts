import { randomUUID } from "node:crypto";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { PendingAuditSchema, type ApprovalSource, type Decision, type PendingAudit, type VersionKind } from "../core/domain/records";
import { decisionAudit } from "../core/domain/audit-promises";
import { ItemTable } from "./item-table";
import { Keys } from "./table";
import { COMPANY_CHANGED } from "./company-switch";

export interface DecisionWrite {
  kind: VersionKind;
  taskId: string;
  version: number;
  /** The clicking workspace: a version of another workspace's task is never decided. */
  teamId: string;
  decision: Decision;
  /** Admins may decide any task of their workspace; everyone else only their own (docs/architecture.md, who may act). */
  asAdmin: boolean;
  /** A Process approval: where it was clicked, which the version's `approvableVia` must list. */
  via?: ApprovalSource;
}

export type DecisionResult =
  | { applied: true; taskToken: string | undefined }
  | { applied: false; reason: "not_found" | "not_requester" }
  /** A freee reconnect to another company invalidated the plan (company-switch.ts): it must be previewed again. */
  | { applied: false; reason: "company_changed" }
  /** `promised`: the audit entry the earlier decision promised (a repeated click confirms it again). */
  | { applied: false; reason: "already_decided"; promised?: PendingAudit }
  /** The approver could not have seen the plan whole from there; `old` says why (lib/preview/plan.ts). */
  | { applied: false; reason: "not_approvable"; old: Record<string, unknown> | undefined }
  /** Written before versions carried their owner: the caller checks ownership on the task item instead. */
  | { applied: false; reason: "unowned" };

/**
 * CONTRACTS "Approval" in one request: `pending_approval → approved|rejected` with the decision, conditional on
 * the clicking workspace owning the task and (unless an admin decides) on the clicker being its requester. The old
 * item comes back (ReturnValues ALL_OLD) with the task token to resume with. A refused write says why (a double
 * click, a stranger, another workspace) from the item the refusal carries, read again only where the table does
 * not return it (item-table.ts). The ack path of an applied click is this write and SendTaskSuccess, nothing else
 * (docs/architecture.md, who may act).
 */
export async function writeDecision(doc: DynamoDBDocumentClient, tableName: string, w: DecisionWrite): Promise<DecisionResult> {
  const owner = w.asAdmin ? "" : " AND requesterId = :actor";
  const seen = w.via === undefined ? "" : " AND contains(approvableVia, :via)";
  // Names this write: the SDK resends the same request (same id) when a reply is lost; another click has its own.
  const writeId = randomUUID();
  const write = await new ItemTable(doc, tableName).writeIf(
    {
      update: {
        Key: Keys.version(w.taskId, w.kind, w.version),
        // The decision's audit entry is promised in the same write (no extra call on the ack path): the resumed
        // step writes it, the failure path / reconciler / a repeated click repair it (lib/store/pending-audit.ts).
        // The task token stays on the decided item (dead once Step Functions has its answer; never sent anywhere):
        // if this write's reply is lost, the SDK's retry finds the decision made and resumes with it (below).
        UpdateExpression: "SET #status = :to, decision = :decision, decisionAudit = :audit, decisionWriteId = :write, updatedAt = :now",
        ConditionExpression: `#status = :pending AND teamId = :team${owner}${seen}`,
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":to": w.decision.decision,
          ":decision": w.decision,
          ":audit": decisionAudit(w.kind, w.version, w.decision),
          ":now": w.decision.decidedAt,
          ":write": writeId,
          ":pending": "pending_approval",
          ":team": w.teamId,
          ...(w.asAdmin ? {} : { ":actor": w.decision.actorId }),
          ...(w.via === undefined ? {} : { ":via": w.via }),
        },
        ReturnValues: "ALL_OLD",
      },
    },
    "writeDecision",
  );
  if (write.applied) {
    const token = write.attributes?.taskToken;
    return { applied: true, taskToken: typeof token === "string" ? token : undefined };
  }
  const old = await write.current();
  // Our own write, applied, whose reply was lost (the SDK retried it and the retry found it made).
  if (old !== undefined && old.decisionWriteId === writeId) {
    const token = old.taskToken;
    return { applied: true, taskToken: typeof token === "string" ? token : undefined };
  }
  const reason = whyNot(old, w);
  if (reason === "not_approvable") return { applied: false, reason, old };
  if (reason !== "already_decided") return { applied: false, reason };
  if (w.kind === "process" && old?.status === "failed" && old.errorName === COMPANY_CHANGED) return { applied: false, reason: "company_changed" };
  const promised = PendingAuditSchema.safeParse(old?.decisionAudit);
  return { applied: false, reason, ...(promised.success ? { promised: promised.data } : {}) };
}

function whyNot(old: Record<string, unknown> | undefined, w: DecisionWrite): "not_found" | "already_decided" | "not_requester" | "unowned" | "not_approvable" {
  if (old === undefined) return "not_found";
  if (old.teamId === undefined) return "unowned";
  if (old.teamId !== w.teamId) return "not_found";
  if (old.status !== "pending_approval") return "already_decided";
  if (!w.asAdmin && old.requesterId !== w.decision.actorId) return "not_requester";
  return "not_approvable";
}

/** How the approval policy allowed a Process approval: the terms the write conditions on (lib/core/domain/approval-policy.ts). */
export interface PolicyApprovalWrite {
  taskId: string;
  version: number;
  teamId: string;
  /** The approving decision (with its `rule` and the earlier approvals) — written when this approval is the last needed. */
  decision: Decision;
  via?: ApprovalSource;
  /** The snapshot judged: the write applies only while the version still carries it. */
  snapshotAt: string;
  /** The requester may not approve: the write refuses the requester whatever the caller judged. */
  notRequester: boolean;
  /** Allowed as a listed approver / as a member of this user group: the snapshot must list them. */
  listed?: { kind: "user" } | { kind: "usergroup"; usergroupId: string };
  /** The approvals recorded before this one (the judgement saw these), and how many the snapshot requires. */
  earlier: number;
  required: number;
}

export type PolicyApprovalResult =
  | { applied: true; complete: true; taskToken: string | undefined }
  /** The first of two approvals is recorded; the version still waits for another approver. */
  | { applied: true; complete: false }
  /** `changed`: another approval, a policy snapshot or a decision landed since the judgement: judge again. */
  | { applied: false; reason: "changed" | "refused"; old: Record<string, unknown> | undefined };

/**
 * A Process approval under the approval policy, in one conditional write. Besides the workspace and the pending
 * status it requires, in the table, what the judgement relied on: the same policy snapshot, the clicker not the
 * requester where the snapshot forbids self-approval, the clicker (or their user group) among the snapshot's
 * approvers, the approvals it saw and none of them the clicker's. The last approval needed decides
 * (`pending_approval → approved` with the decision and its promised audit entry); an earlier one is appended.
 */
export async function writePolicyApproval(doc: DynamoDBDocumentClient, tableName: string, w: PolicyApprovalWrite): Promise<PolicyApprovalResult> {
  const complete = w.earlier + 1 >= w.required;
  const actor = w.decision.actorId;
  const terms = ["#status = :pending", "teamId = :team", "approvalRule.snapshotAt = :snap"];
  if (w.notRequester) terms.push("requesterId <> :actor");
  if (w.via !== undefined) terms.push("contains(approvableVia, :via)");
  // A plan whose amounts the public card hides is approved only where its approver saw them (the modal).
  if (w.via !== "full_plan") terms.push("(attribute_not_exists(approvalRule.maskAmounts) OR approvalRule.maskAmounts = :false)");
  if (w.listed?.kind === "user") terms.push("contains(approvalRule.approverUserIds, :actor)");
  if (w.listed?.kind === "usergroup") terms.push("contains(approvalRule.approverUsergroupIds, :group)");
  terms.push(w.earlier === 0 ? "attribute_not_exists(approvedBy)" : "size(approvedBy) = :earlier AND NOT contains(approvedBy, :actor)");
  const writeId = randomUUID();
  const mine = { actorId: actor, rule: w.decision.rule ?? "policy", at: w.decision.decidedAt };
  const write = await new ItemTable(doc, tableName).writeIf(
    {
      update: {
        Key: Keys.version(w.taskId, "process", w.version),
        UpdateExpression: complete
          ? "SET #status = :to, decision = :decision, decisionAudit = :audit, decisionWriteId = :write, updatedAt = :now, approvedBy = list_append(if_not_exists(approvedBy, :none), :me)"
          : "SET approvals = list_append(if_not_exists(approvals, :none), :mine), approvedBy = list_append(if_not_exists(approvedBy, :none), :me), decisionWriteId = :write, updatedAt = :now",
        ConditionExpression: terms.join(" AND "),
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":pending": "pending_approval",
          ":team": w.teamId,
          ":snap": w.snapshotAt,
          ":now": w.decision.decidedAt,
          ":write": writeId,
          ":none": [],
          ":me": [actor],
          ...(w.via !== "full_plan" ? { ":false": false } : {}),
          ...(complete ? { ":to": "approved", ":decision": w.decision, ":audit": decisionAudit("process", w.version, w.decision) } : { ":mine": [mine] }),
          ...(w.notRequester || w.listed?.kind === "user" || w.earlier > 0 ? { ":actor": actor } : {}),
          ...(w.via === undefined ? {} : { ":via": w.via }),
          ...(w.listed?.kind === "usergroup" ? { ":group": w.listed.usergroupId } : {}),
          ...(w.earlier > 0 ? { ":earlier": w.earlier } : {}),
        },
        ReturnValues: "ALL_OLD",
      },
    },
    "writePolicyApproval",
  );
  if (write.applied) {
    if (!complete) return { applied: true, complete: false };
    const token = write.attributes?.taskToken;
    return { applied: true, complete: true, taskToken: typeof token === "string" ? token : undefined };
  }
  const old = await write.current();
  if (old !== undefined && old.decisionWriteId === writeId) {
    if (!complete) return { applied: true, complete: false };
    const token = old.taskToken;
    return { applied: true, complete: true, taskToken: typeof token === "string" ? token : undefined };
  }
  const approvedBy = Array.isArray(old?.approvedBy) ? old.approvedBy.length : 0;
  const snap = (old?.approvalRule as { snapshotAt?: unknown } | undefined)?.snapshotAt;
  const changed = old !== undefined && (old.status !== "pending_approval" || approvedBy !== w.earlier || snap !== w.snapshotAt);
  return { applied: false, reason: changed ? "changed" : "refused", old };
}
