import { SendTaskSuccessCommand } from "@aws-sdk/client-sfn";
import type { AnyVersion, VersionKind } from "../domain/records";
import { classifyAwsError } from "../errors/classify";
import { StateConflictError } from "../errors/taxonomy";
import type { ApprovalOutcome } from "../pipeline/contracts";
import { loadOwnedTask, mayActOn } from "./permissions";
import { refreshQuietly } from "./refresh";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";

export interface VersionTarget {
  taskId: string;
  kind: VersionKind;
  version: number;
}

/** Step Functions answers these when the wait is already over (expired, or the token was used). */
const WAIT_GONE = new Set(["TaskTimedOut", "TaskDoesNotExist", "InvalidToken"]);

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
 * old item returned). Only the writer whose write applied audits and resumes the pipeline with the token it
 * read from the old item; a double or concurrent click finds the decision made and changes nothing.
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

  const subject = `${target.kind}#${target.version}`;
  if (old.taskToken === undefined) {
    // The wait state stores its token before the card shows buttons; a pending version without one is a bug.
    deps.log.error("pending version had no task token; the pipeline cannot be resumed", { taskId: task.taskId, subject });
  } else {
    try {
      await deps.sfn.send(new SendTaskSuccessCommand({ taskToken: old.taskToken, output: JSON.stringify(outcome) }));
    } catch (err) {
      if (!(err instanceof Error && WAIT_GONE.has(err.name))) {
        // The pipeline did not hear the decision: undo it, so the user's next click resumes the pipeline
        // instead of meeting "already decided" while it waits for days. The click answers with the error.
        const classified = classifyAwsError(err, "SendTaskSuccess") ?? err;
        await deps.store.reopenApproval(target.kind, target.taskId, target.version, { taskToken: old.taskToken, decidedAt });
        await deps.audit.recordError({
          teamId: task.thread.teamId,
          taskId: task.taskId,
          layer: "ingress",
          subject: `${subject}#resume#${decidedAt}`,
          actor: actor.userId,
          error: classified,
          details: { decision: outcome.decision, reopened: true },
        });
        throw classified;
      }
      // The approval wait already ended (timeout): the pipeline's Catch closes the task and shows it.
      deps.log.warn("approval wait had already ended", { taskId: task.taskId, subject, error_type: err.name });
    }
  }
  // Audited once the decision took effect (or the wait was already over): the one click that applied.
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: `${target.kind}.${outcome.decision}`,
    subject,
    actor: actor.userId,
    layer: target.kind === "prompt" ? "L2" : "L3",
    details: { version: target.version, ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) },
  });
  await refreshQuietly(deps, task.taskId, { kind: target.kind });
  return { outcome: "applied" };
}
