import { StateConflictError } from "../errors/taxonomy";
import { loadOwnedTask, mayActOn } from "./permissions";
import { refreshQuietly } from "./refresh";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";

export interface ExecutionTarget {
  taskId: string;
  executionNo: number;
}

/**
 * Seed §6.2: only a running Execution can be cancelled. The Execution becomes `cancelled` here (cancelledBy /
 * cancelledAt) whether or not the later interrupt of the agent session succeeds — ExecutionRun sends that on
 * its next poll and sets cancelFinalizedAt. The card shows 中止中... at once.
 */
export async function cancelExecution(deps: ActionDeps, actor: Actor, target: ExecutionTarget): Promise<ActionResult> {
  const task = await loadOwnedTask(deps, actor, target.taskId);
  if (task === undefined) return { outcome: "refused", message: ActionMessages.notFound };
  if (!(await mayActOn(deps, actor, task))) return { outcome: "refused", message: ActionMessages.notPermitted };

  try {
    const result = await deps.store.transitionExecution(target.taskId, target.executionNo, "cancelled", {
      from: ["running"],
      set: { cancelledBy: actor.userId, cancelledAt: new Date().toISOString() },
    });
    if (!result.applied) return { outcome: "noop" };
  } catch (err) {
    if (err instanceof StateConflictError) return { outcome: "refused", message: ActionMessages.cancelOnlyRunning };
    throw err;
  }

  try {
    await deps.store.transitionTask(target.taskId, "cancelled", { from: ["executing"] });
  } catch (err) {
    // The run was cancelled; a task already moved on (a racing poll that finished it) keeps its own status.
    if (!(err instanceof StateConflictError)) throw err;
    deps.log.warn("task was not executing when its execution was cancelled", { taskId: target.taskId, error_message: err.message });
  }
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: "execution.cancelled",
    subject: `execution#${target.executionNo}`,
    actor: actor.userId,
    layer: "L4",
    details: { executionNo: target.executionNo },
  });
  await refreshQuietly(deps, task.taskId, { kind: "execution", executionNo: target.executionNo });
  return { outcome: "applied" };
}
