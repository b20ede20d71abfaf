import type { AnyVersion, VersionKind } from "../domain/records";
import { StateConflictError } from "../errors/taxonomy";
import type { ApprovalOutcome } from "../workflow/contracts";
import { resumeApproval } from "../workflow/resume-approval";
import { loadOwnedTask, mayActOn } from "./permissions";
import { refreshQuietly } from "./refresh";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";

export interface VersionTarget {
  taskId: string;
  kind: VersionKind;
  version: number;
}

/**
 * Can this actor decide this version now? Used before the reject modal opens, so a stranger or a late click
 * gets the refusal at once instead of after typing a reason.
 */
export async function checkDecidable(deps: ActionDeps, actor: Actor, target: VersionTarget): Promise<ActionResult> {
  const task = await loadOwnedTask(deps, actor, target.taskId);
  if (task === undefined) return { outcome: "refused", message: ActionMessages.notFound };
  if (!(await mayActOn(deps, actor, task))) return { outcome: "refused", message: ActionMessages.notPermitted };
  const version = await deps.store.getVersion(target.kind, target.taskId, target.version);
  if (version === undefined) return { outcome: "refused", message: ActionMessages.notFound };
  if (version.status !== "pending_approval") return { outcome: "noop", message: ActionMessages.alreadyDecided };
  return { outcome: "applied" };
}

export function approve(deps: ActionDeps, actor: Actor, target: VersionTarget): Promise<ActionResult> {
  return decide(deps, actor, target, { decision: "approved", actorId: actor.userId });
}

/** Reject with a reason; the caller (the modal) has already refused an empty one, and so does this. */
export function reject(deps: ActionDeps, actor: Actor, target: VersionTarget, reason: string): Promise<ActionResult> {
  const trimmed = reason.trim();
  if (trimmed === "") return Promise.resolve({ outcome: "refused", message: ActionMessages.reasonRequired });
  return decide(deps, actor, target, { decision: "rejected", reason: trimmed, actorId: actor.userId });
}

/**
 * CONTRACTS "Approval": one conditional write `pending_approval → approved|rejected` (+ decision, token removed,
 * old item returned). Only the writer whose write applied resumes the pipeline (lib/workflow/resume-approval.ts)
 * with the token it read from the old item, and audits; a double or concurrent click finds the decision made
 * and changes nothing.
 */
async function decide(deps: ActionDeps, actor: Actor, target: VersionTarget, outcome: ApprovalOutcome): Promise<ActionResult> {
  const task = await loadOwnedTask(deps, actor, target.taskId);
  if (task === undefined) return { outcome: "refused", message: ActionMessages.notFound };
  if (!(await mayActOn(deps, actor, task))) return { outcome: "refused", message: ActionMessages.notPermitted };
  const current = target.kind === "prompt" ? task.currentPromptVersion : task.currentProcessVersion;
  if (target.version !== current) return { outcome: "noop", message: ActionMessages.notCurrent };

  let old: AnyVersion;
  const decidedAt = new Date().toISOString();
  try {
    const result = await deps.store.transitionVersion(target.kind, target.taskId, target.version, outcome.decision, {
      from: ["pending_approval"],
      set: { decision: { ...outcome, decidedAt } },
      remove: ["taskToken"],
      returnOld: true,
    });
    if (!result.applied) return { outcome: "noop", message: ActionMessages.alreadyDecided };
    old = result.record;
  } catch (err) {
    if (err instanceof StateConflictError) return { outcome: "noop", message: ActionMessages.alreadyDecided };
    throw err;
  }

  await resumeApproval(deps, { task, kind: target.kind, version: target.version, taskToken: old.taskToken, outcome, decidedAt });
  // Audited once the decision took effect (or the wait was already over): the one click that applied.
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: `${target.kind}.${outcome.decision}`,
    subject: `${target.kind}#${target.version}`,
    actor: actor.userId,
    layer: target.kind === "prompt" ? "L2" : "L3",
    details: { version: target.version, ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) },
  });
  await refreshQuietly(deps, task.taskId, { kind: target.kind });
  return { outcome: "applied" };
}
