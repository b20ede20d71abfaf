import type { ProcessVersion } from "../../core/domain/records";
import { judgeApproval, type ApprovalRule, type ClickerFacts, type Judgement } from "../../core/domain/approval-policy";
import { writePolicyApproval } from "../../store/decision";
import { resumeApproval } from "../../steps/machines/resume-approval";
import { confirmAudit } from "../../store/pending-audit";
import { decisionAudit } from "../../core/domain/audit-promises";
import { planApprovalBlocker, PlanMessages } from "../../preview/plan";
import { APPROVALS_REFUSED_METRIC, emitCount } from "../../core/observability/emf";
import { PolicyMessages } from "../../core/messages/policy";
import { refreshQuietly } from "./refresh";
import { loadOwnedTask } from "./permissions";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";
import type { ApprovalSource } from "../../core/domain/records";

type Refusal = Extract<Judgement, { allowed: false }>["reason"];

/**
 * A Process approval judged by the approval policy snapshotted on the version when its card was posted
 * (lib/core/domain/approval-policy.ts): the clicker's facts (requester, listed, in a listed user group, admin, who
 * already approved) are gathered, the judgement names the rule, and the conditional write requires what the
 * judgement relied on (lib/store/decision.ts writePolicyApproval). A refusal changes nothing and is audited and
 * counted; the first of two approvals is recorded and shown on the card. Undefined: the version has no policy
 * snapshot (posted before separation of duties) or is no longer waiting — the caller's path answers it.
 */
export async function approveUnderPolicy(deps: ActionDeps, actor: Actor, target: { taskId: string; version: number }, via: ApprovalSource): Promise<ActionResult | undefined> {
  let version = await deps.store.getVersion("process", target.taskId, target.version);
  if (version?.kind !== "process" || version.approvalRule === undefined) return undefined;
  // Whose request it is and which workspace owns it: on the version since its wait opened (the task item only for
  // one written before); the write checks both again.
  const requesterId = version.teamId !== undefined && version.requesterId !== undefined ? (version.teamId === actor.teamId ? version.requesterId : undefined) : (await loadOwnedTask(deps, actor, target.taskId))?.requesterId;
  if (requesterId === undefined) return undefined;
  // A second judgement only when another approval landed between the read and the write.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (version?.kind !== "process" || version.approvalRule === undefined || version.status !== "pending_approval") return undefined;
    const rule = version.approvalRule;
    const facts = await clickerFacts(deps, actor, rule, requesterId, version.approvedBy ?? []).catch((err: unknown) => new MembershipUnknown(err));
    if (facts instanceof MembershipUnknown) return membershipUnknown(deps, actor, target, facts.cause);
    const judged = judgeApproval(rule, facts);
    if (!judged.allowed) return refuse(deps, actor, target, judged.reason, rule);
    // The write refuses it too; said here in the approver's words.
    if (rule.maskAmounts === true && via !== "full_plan") return { outcome: "refused", message: PolicyMessages.approveInPrivate };
    const decidedAt = new Date().toISOString();
    const earlier = version.approvals ?? [];
    const decision = { decision: "approved" as const, actorId: actor.userId, via, rule: judged.rule, decidedAt, ...(earlier.length > 0 ? { earlierApprovals: earlier } : {}) };
    const write = await writePolicyApproval(deps.doc, deps.store.tableName, {
      taskId: target.taskId,
      version: target.version,
      teamId: actor.teamId,
      decision,
      via,
      snapshotAt: rule.snapshotAt,
      notRequester: !rule.selfApproval,
      ...(judged.via.kind === "user" || judged.via.kind === "usergroup" ? { listed: judged.via } : {}),
      earlier: (version.approvedBy ?? []).length,
      required: rule.required,
    });
    if (write.applied && write.complete) {
      const approval = { taskId: target.taskId, teamId: actor.teamId, kind: "process" as const, version: target.version, taskToken: write.taskToken, outcome: decision, decidedAt };
      if ((await resumeApproval(deps, approval)) === "wait_gone") await confirmAudit(deps.audit, approval, decisionAudit("process", target.version, decision));
      return { outcome: "applied" };
    }
    if (write.applied) {
      const count = (version.approvedBy ?? []).length + 1;
      await deps.audit.record({
        teamId: actor.teamId,
        taskId: target.taskId,
        action: "process.approval_recorded",
        subject: `process#${target.version}#${actor.userId}`,
        actor: actor.userId,
        layer: "L3",
        details: { version: target.version, rule: judged.rule, via, approvals: count, required: rule.required, snapshotAt: rule.snapshotAt },
      });
      await refreshQuietly(deps, target.taskId, { kind: "process" });
      return { outcome: "applied", message: PolicyMessages.recorded(rule.required - count) };
    }
    if (write.reason === "refused") {
      const parsed = write.old as ProcessVersion | undefined;
      const blocker = parsed?.approvableVia === undefined || parsed.approvableVia.includes(via) ? undefined : (planApprovalBlocker(parsed, via) ?? PlanMessages.needsFullReview);
      return blocker !== undefined ? { outcome: "refused", message: blocker } : refuse(deps, actor, target, "not_approver", rule);
    }
    version = await deps.store.getVersion("process", target.taskId, target.version);
  }
  return { outcome: "refused", message: ActionMessages.alreadyDecided };
}

async function clickerFacts(deps: ActionDeps, actor: Actor, rule: ApprovalRule, requesterId: string, approvedBy: string[]): Promise<ClickerFacts> {
  const listed = rule.writes && (rule.approverUserIds.length > 0 || rule.approverUsergroupIds.length > 0);
  const direct = rule.approverUserIds.includes(actor.userId);
  // Asked only where the answer can matter: groups when the member is not listed by name, admins when nobody is listed.
  const inUsergroups: string[] = [];
  if (listed && !direct) for (const g of rule.approverUsergroupIds) if (await deps.groupMembers.isMember(actor, g)) inUsergroups.push(g);
  const isAdmin = !listed && actor.userId !== requesterId ? await deps.admins.isAdmin(actor) : false;
  return { userId: actor.userId, requesterId, isAdmin, inUsergroups, approvedBy };
}

/** The group lookup failed (usergroups.users.list): neither granted nor refused. */
class MembershipUnknown {
  constructor(readonly cause: unknown) {}
}

/**
 * Slack could not be asked whether the clicker is in the snapshot's user group: nothing is written, the failure is
 * on the audit log as `error.ingress` and counted, and the clicker is told to click again.
 */
async function membershipUnknown(deps: ActionDeps, actor: Actor, target: { taskId: string; version: number }, err: unknown): Promise<ActionResult> {
  deps.log.warn("approval not judged: user group membership unknown", { layer: "ingress", teamId: actor.teamId, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
  // The message the clicker saw rides the entry: the web admin's trail shows it beside the error.
  await deps.audit.recordError({ teamId: actor.teamId, taskId: target.taskId, layer: "ingress", subject: `process#${target.version}#membership#${actor.userId}#${new Date().toISOString()}`, actor: actor.userId, error: err, details: { userMessage: PolicyMessages.membershipUnknown } });
  emitCount(APPROVALS_REFUSED_METRIC, { Reason: "membership_unknown", Stage: "click" });
  return { outcome: "refused", message: PolicyMessages.membershipUnknown };
}

/** Nothing written: the click is audited with the rule it broke, counted, and answered in the clicker's words. */
async function refuse(deps: ActionDeps, actor: Actor, target: { taskId: string; version: number }, reason: Refusal, rule: ApprovalRule): Promise<ActionResult> {
  const at = new Date().toISOString();
  await deps.audit.record({
    teamId: actor.teamId,
    taskId: target.taskId,
    action: "process.decision_refused",
    subject: `process#${target.version}#approved#${actor.userId}#${at}`,
    actor: actor.userId,
    layer: "ingress",
    details: { reason, decision: "approved", version: target.version, snapshotAt: rule.snapshotAt },
  });
  emitCount(APPROVALS_REFUSED_METRIC, { Reason: reason, Stage: "click" });
  return { outcome: "refused", message: PolicyMessages.refused(reason, rule) };
}
