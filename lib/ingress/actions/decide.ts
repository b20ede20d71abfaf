import { ProcessVersionSchema, type AnyVersion, type ApprovalSource, type VersionKind } from "../../core/domain/records";
import { StateConflictError } from "../../core/errors/taxonomy";
import type { ApprovalOutcome } from "../../steps/machines/contracts";
import { confirmAudit } from "../../store/pending-audit";
import { decisionAudit } from "../../core/domain/audit-promises";
import { writeDecision } from "../../store/decision";
import { resumeApproval } from "../../steps/machines/resume-approval";
import { planApprovalBlocker, PlanMessages } from "../../preview/plan";
import { loadOwnedTask, mayActOn } from "./permissions";
import { approveUnderPolicy } from "./policy-approval";
import { refreshQuietly, rerenderStale } from "./refresh";
import { FreeeCompanyChangedMessages } from "../../core/messages/ja";
import { APPROVALS_REFUSED_METRIC, emitCount } from "../../core/observability/emf";
import { ActionMessages, REASON_MAX_LENGTH, type ActionDeps, type ActionResult, type Actor } from "./types";

export interface VersionTarget {
  taskId: string;
  kind: VersionKind;
  version: number;
}

export type { ApprovalSource };

/**
 * Approve from where the approver saw the plan: the card's [承認], or the submit of the full-plan modal. A
 * Process is approved only from a place its approver saw all of it (lib/preview/plan.ts): the preview
 * step stores those places on the version (`approvableVia`) and the decision write requires the click's.
 */
export async function approve(deps: ActionDeps, actor: Actor, target: VersionTarget, via: ApprovalSource = "card"): Promise<ActionResult> {
  // A Process is judged by the approval policy its version carries (separation of duties); a 実行方針 by who may act.
  if (target.kind === "process") {
    const judged = await approveUnderPolicy(deps, actor, target, via);
    if (judged !== undefined) return judged;
  }
  const outcome: ApprovalOutcome = { decision: "approved", actorId: actor.userId, ...(target.kind === "process" ? { via } : {}) };
  return decide(deps, actor, target, outcome, via);
}

/** Reject with a reason; the caller (the modal) has already refused an empty one, and so does this. */
export function reject(deps: ActionDeps, actor: Actor, target: VersionTarget, reason: string): Promise<ActionResult> {
  const trimmed = reason.trim();
  if (trimmed === "") return Promise.resolve({ outcome: "refused", message: ActionMessages.reasonRequired });
  // The modal's max_length is a client hint: an over-long reason (a crafted submit) is refused, nothing written.
  if ([...reason].length > REASON_MAX_LENGTH) return Promise.resolve({ outcome: "refused", message: ActionMessages.reasonTooLong });
  return decide(deps, actor, target, { decision: "rejected", reason: trimmed, actorId: actor.userId });
}

/**
 * CONTRACTS "Approval", on the ack path (the 200 waits for this): one conditional write
 * `pending_approval → approved|rejected` that checks the workspace and the requester and returns the old item
 * (lib/store/decision.ts), then SendTaskSuccess with the token it held (lib/steps/machines/resume-approval.ts). Two
 * upstream calls. The decision is on the version item from the first write on (before the effect); the resumed
 * step audits it under its deterministic key and refreshes the card (common.ts auditDecision). A workspace admin
 * who is not the requester costs the admin lookup and a second write; a refused or double click reads the item
 * once to say why and changes nothing.
 */
async function decide(deps: ActionDeps, actor: Actor, target: VersionTarget, outcome: ApprovalOutcome, via?: ApprovalSource): Promise<ActionResult> {
  const decidedAt = new Date().toISOString();
  // Only a Process approval is bound to where it was seen; a rejection may come from anywhere.
  const seenVia = target.kind === "process" && outcome.decision === "approved" ? via : undefined;
  const write = (asAdmin: boolean) =>
    writeDecision(deps.doc, deps.store.tableName, { ...target, teamId: actor.teamId, decision: { ...outcome, decidedAt }, asAdmin, ...(seenVia === undefined ? {} : { via: seenVia }) });
  // The requester's click is the first write alone: nobody is looked up (the admin lookup costs a settings read
  // and maybe users.info, paid only when the clicker is not the requester).
  let result = await write(deps.admins.isListed(actor.userId));
  if (!result.applied && result.reason === "not_requester") {
    if (!(await deps.admins.isAdmin(actor))) return { outcome: "refused", message: ActionMessages.notPermitted };
    result = await write(true);
  }
  if (!result.applied) {
    switch (result.reason) {
      case "not_found":
        return { outcome: "refused", message: ActionMessages.notFound };
      case "unowned":
        return decideUnowned(deps, actor, target, outcome, seenVia);
      case "already_decided":
        // A repeated click repairs a lost confirmation: the entry the decision promised is written (once).
        if (result.promised !== undefined) await confirmAudit(deps.audit, { teamId: actor.teamId, taskId: target.taskId }, result.promised);
        // Its card still offered the buttons: show the decision (the resumed step's refresh may have failed).
        await rerenderStale(deps, target.taskId, [{ kind: target.kind }], false);
        return { outcome: "noop", message: ActionMessages.alreadyDecided };
      case "not_approvable":
        return { outcome: "refused", message: unseenMessage(result.old, seenVia ?? "card") };
      case "company_changed":
        return refuseInvalidated(deps, actor, target, outcome, decidedAt);
      default:
        return { outcome: "noop", message: ActionMessages.alreadyDecided };
    }
  }
  const approval = { taskId: target.taskId, teamId: actor.teamId, kind: target.kind, version: target.version, taskToken: result.taskToken, outcome, decidedAt };
  if ((await resumeApproval(deps, approval)) === "wait_gone") await auditDecisionNow(deps, approval);
  return { outcome: "applied" };
}

/**
 * A version written before versions carried their owner (teamId, requesterId): ownership is checked on the task,
 * then the same conditional write without the owner terms; audited and refreshed here, as before.
 */
async function decideUnowned(deps: ActionDeps, actor: Actor, target: VersionTarget, outcome: ApprovalOutcome, via: ApprovalSource | undefined): Promise<ActionResult> {
  const task = await loadOwnedTask(deps, actor, target.taskId);
  if (task === undefined) return { outcome: "refused", message: ActionMessages.notFound };
  if (!(await mayActOn(deps, actor, task))) return { outcome: "refused", message: ActionMessages.notPermitted };
  const current = target.kind === "prompt" ? task.currentPromptVersion : task.currentProcessVersion;
  if (target.version !== current) return { outcome: "noop", message: ActionMessages.notCurrent };
  if (via !== undefined) {
    const version = await deps.store.getVersion("process", target.taskId, target.version);
    if (version === undefined) return { outcome: "refused", message: ActionMessages.notFound };
    if (version.status !== "pending_approval") return { outcome: "noop", message: ActionMessages.alreadyDecided };
    const blocker = version.kind === "process" ? planApprovalBlocker(version, via) : undefined;
    if (blocker !== undefined) return { outcome: "refused", message: blocker };
  }

  let old: AnyVersion;
  const decidedAt = new Date().toISOString();
  try {
    const result = await deps.store.transitionVersion(target.kind, target.taskId, target.version, outcome.decision, {
      from: ["pending_approval"],
      set: { decision: { ...outcome, decidedAt }, decisionAudit: decisionAudit(target.kind, target.version, { ...outcome, decidedAt }) },
      remove: ["taskToken"],
      returnOld: true,
    });
    if (!result.applied) return { outcome: "noop", message: ActionMessages.alreadyDecided };
    old = result.record;
  } catch (err) {
    if (err instanceof StateConflictError) return { outcome: "noop", message: ActionMessages.alreadyDecided };
    throw err;
  }
  const approval = { taskId: task.taskId, teamId: task.thread.teamId, kind: target.kind, version: target.version, taskToken: old.taskToken, outcome, decidedAt };
  await resumeApproval(deps, approval);
  await auditDecisionNow(deps, approval);
  await refreshQuietly(deps, task.taskId, { kind: target.kind });
  return { outcome: "applied" };
}

/**
 * A click on a plan a freee reconnect to another company invalidated (lib/freee/plan-invalidation.ts): nothing is
 * decided or resumed; the click is audited and counted like the MCP server's refusals, and the card redrawn.
 */
async function refuseInvalidated(deps: ActionDeps, actor: Actor, target: VersionTarget, outcome: ApprovalOutcome, at: string): Promise<ActionResult> {
  await deps.audit.record({
    teamId: actor.teamId,
    taskId: target.taskId,
    action: `${target.kind}.decision_refused`,
    subject: `${target.kind}#${target.version}#${outcome.decision}#${at}`,
    actor: actor.userId,
    layer: "ingress",
    details: { reason: "company_changed", decision: outcome.decision },
  });
  emitCount(APPROVALS_REFUSED_METRIC, { Reason: "company_changed", Stage: "click" });
  await rerenderStale(deps, target.taskId, [{ kind: target.kind }], false);
  return { outcome: "refused", message: FreeeCompanyChangedMessages.invalidated };
}

/** The audit entry the resumed step would write (same key): for a wait that already ended, and legacy items. */
async function auditDecisionNow(deps: ActionDeps, a: { taskId: string; teamId: string; kind: VersionKind; version: number; outcome: ApprovalOutcome; decidedAt: string }): Promise<void> {
  await confirmAudit(deps.audit, a, decisionAudit(a.kind, a.version, { ...a.outcome, decidedAt: a.decidedAt }));
}

/** Why a Process could not be approved from where the click came, in the approver's words. */
function unseenMessage(old: Record<string, unknown> | undefined, via: ApprovalSource): string {
  const parsed = ProcessVersionSchema.safeParse(old);
  return (parsed.success ? planApprovalBlocker(parsed.data, via) : undefined) ?? PlanMessages.needsFullReview;
}
