import type { ProcessVersion, Task } from "../../core/domain/records";
import type { VersionTarget } from "./decide";
import { loadOwnedTask, mayActOn } from "./permissions";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";

/**
 * Reading a Process version for the review modals. The raw input is what the card already shows in words, so
 * anyone of the workspace may open it; the full-plan modal holds the approve button, so it opens only for
 * someone who may decide, while the version still awaits a decision.
 */
export type Loaded = { ok: true; task: Task; version: ProcessVersion } | { ok: false; result: ActionResult };

export async function loadForInput(deps: ActionDeps, actor: Actor, ref: { taskId: string; version: number }): Promise<Loaded> {
  const task = await loadOwnedTask(deps, actor, ref.taskId);
  const version = task === undefined ? undefined : await deps.store.getVersion("process", ref.taskId, ref.version);
  if (task === undefined || version === undefined || version.steps === undefined) return { ok: false, result: { outcome: "refused", message: ActionMessages.notFound } };
  // A plan whose amounts its public card hides: the raw input (which holds them) only for who may see them.
  if (version.kind === "process" && version.approvalRule?.maskAmounts === true && !(await maySeeWhole(deps, actor, task, version))) {
    return { ok: false, result: { outcome: "refused", message: ActionMessages.notPermitted } };
  }
  return { ok: true, task, version };
}

/** The requester, an admin, or an approver the version's policy snapshot lists (by name or user group). */
async function maySeeWhole(deps: ActionDeps, actor: Actor, task: Task, version: ProcessVersion): Promise<boolean> {
  if (await mayActOn(deps, actor, task)) return true;
  const rule = version.approvalRule;
  if (rule === undefined) return false;
  if (rule.approverUserIds.includes(actor.userId)) return true;
  for (const g of rule.approverUsergroupIds) if (await deps.groupMembers.isMember(actor, g)) return true;
  return false;
}

/** As `checkDecidable`, keeping what it read (one read each of the task and the version on the click path). */
export async function loadForFullReview(deps: ActionDeps, actor: Actor, target: Omit<VersionTarget, "kind">): Promise<Loaded> {
  const task = await loadOwnedTask(deps, actor, target.taskId);
  if (task === undefined) return { ok: false, result: { outcome: "refused", message: ActionMessages.notFound } };
  const version = await deps.store.getVersion("process", target.taskId, target.version);
  if (version === undefined || version.steps === undefined) return { ok: false, result: { outcome: "refused", message: ActionMessages.notFound } };
  // The policy's approvers open it too (its submit is judged by the decision write like any approval).
  if (version.kind !== "process" || !(await maySeeWhole(deps, actor, task, version))) return { ok: false, result: { outcome: "refused", message: ActionMessages.notPermitted } };
  if (version.status !== "pending_approval") return { ok: false, result: { outcome: "noop", message: ActionMessages.alreadyDecided } };
  return { ok: true, task, version };
}
