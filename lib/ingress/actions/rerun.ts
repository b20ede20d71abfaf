import { LimitReachedError, StateConflictError } from "../../core/errors/taxonomy";
import { limitMessageFor } from "../../core/messages/ja";
import { startExecutionRun } from "../../steps/machines/start-execution-run";
import type { ExecutionTarget } from "./cancel";
import { loadOwnedTask, mayActOn } from "./permissions";
import { refreshQuietly, rerenderStale } from "./refresh";
import { rerunRefusal } from "../cards/failure-guidance";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";

/**
 * docs/architecture.md (limits): a rerun is a new Execution record (history kept) of the same approved Process, run in a new
 * session, at most `maxReruns` times; past that the rerun limit message. Allowed after a failure, a timeout
 * or a cancel (docs/architecture.md, limits). A double click claims one execution number (conditional write in allocateExecution); a
 * click while that run is starting resumes the same idempotent start, so a start that died half way recovers.
 */
export async function rerunExecution(deps: ActionDeps, actor: Actor, target: ExecutionTarget): Promise<ActionResult> {
  const task = await loadOwnedTask(deps, actor, target.taskId);
  if (task === undefined) return { outcome: "refused", message: ActionMessages.notFound };
  if (!(await mayActOn(deps, actor, task))) return { outcome: "refused", message: ActionMessages.notPermitted };
  // Only a task that has run its approved Process can rerun it (an L1–L3 failure has nothing to rerun).
  if (task.approvedProcessVersion === undefined || task.executionCount === 0) {
    return { outcome: "refused", message: ActionMessages.cannotRerun };
  }
  // The last run stopped where a rerun meets the same refusal (freee: a missing permission): its card offers no
  // [再実行], and an older card's button or a forged click starts nothing either.
  const refusal = await lastRunRefusal(deps, task.taskId, task.executionCount, task.approvedProcessVersion);
  if (refusal !== undefined) {
    await rerenderStale(deps, task.taskId, [{ kind: "execution", executionNo: target.executionNo }]);
    return { outcome: "refused", message: refusal };
  }
  try {
    // The run's first step writes its execution.started entry (promised on the Execution record).
    const { execution } = await startExecutionRun(
      { store: deps.store, sfn: deps.sfn, executionRunArn: deps.executionRunArn },
      { taskId: task.taskId, from: ["failed", "cancelled"], actorId: actor.userId, maxExecutions: 1 + deps.limits.maxReruns },
    );
    await refreshQuietly(deps, task.taskId, { kind: "execution", executionNo: target.executionNo });
    await refreshQuietly(deps, task.taskId, { kind: "execution", executionNo: execution.executionNo });
    return { outcome: "applied" };
  } catch (err) {
    if (err instanceof LimitReachedError) return { outcome: "refused", message: limitMessageFor("reruns", deps.limits.maxReruns) };
    if (err instanceof StateConflictError) {
      // [再実行] on a card whose run is no longer the one to rerun (another run is live or done): stale card.
      await rerenderStale(deps, task.taskId, [{ kind: "execution", executionNo: target.executionNo }]);
      return { outcome: "refused", message: ActionMessages.staleRerun };
    }
    throw err;
  }
}

async function lastRunRefusal(deps: ActionDeps, taskId: string, executionNo: number, processVersion: number): Promise<string | undefined> {
  const [execution, process] = await Promise.all([deps.store.getExecution(taskId, executionNo), deps.store.getVersion("process", taskId, processVersion)]);
  return execution === undefined || process === undefined ? undefined : rerunRefusal(process, execution);
}
