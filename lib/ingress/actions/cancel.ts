import { RecordNotFoundError, StateConflictError } from "../../core/errors/taxonomy";
import { confirmAudit } from "../../store/pending-audit";
import { cancelAudit } from "../../core/domain/audit-promises";
import { mayActOn } from "./permissions";
import { refreshQuietly, rerenderStale } from "./refresh";
import { ActionMessages, type ActionDeps, type ActionResult, type Actor } from "./types";

export interface ExecutionTarget {
  taskId: string;
  executionNo: number;
}

/**
 * docs/architecture.md (limits): only a running Execution can be cancelled. The Execution becomes `cancelled` here (cancelledBy /
 * cancelledAt) whether or not the later interrupt of the agent session succeeds — ExecutionRun sends that on
 * its next poll, then ends the task `cancelled`, audits it and shows 中止. The card shows 中止中... at once.
 *
 * The ack path is three calls: the card's state (one Query, which also says who owns the task), the conditional
 * write, and the card's chat.update from the state already held. A workspace admin who is not the requester
 * costs the admin lookup.
 */
export async function cancelExecution(deps: ActionDeps, actor: Actor, target: ExecutionTarget): Promise<ActionResult> {
  let state;
  try {
    state = await deps.store.loadHistory(target.taskId, { cardsOnly: true });
  } catch (err) {
    if (err instanceof RecordNotFoundError) return { outcome: "refused", message: ActionMessages.notFound };
    throw err;
  }
  const { task } = state;
  if (task.thread.teamId !== actor.teamId) return { outcome: "refused", message: ActionMessages.notFound };
  if (!(await mayActOn(deps, actor, task))) return { outcome: "refused", message: ActionMessages.notPermitted };

  let cancelled;
  try {
    const cancelledAt = new Date().toISOString();
    // The cancel's audit entry is promised in the cancel write itself (no extra call on the ack path); the run's
    // poll writes it when it stops the session, the reconciler or a repeated click repairs it.
    const result = await deps.store.transitionExecution(target.taskId, target.executionNo, "cancelled", {
      from: ["running"],
      set: { cancelledBy: actor.userId, cancelledAt, cancelAudit: cancelAudit(target.executionNo, actor.userId, cancelledAt) },
    });
    if (!result.applied) {
      if (result.record.cancelAudit !== undefined) await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId: task.taskId }, result.record.cancelAudit);
      return { outcome: "noop" };
    }
    cancelled = result.record;
  } catch (err) {
    if (err instanceof StateConflictError || err instanceof RecordNotFoundError) {
      // The card offered 中止 for a run that is no longer running: it was stale. Show the truth (and [再実行]).
      await rerenderStale(deps, task.taskId, [{ kind: "execution", executionNo: target.executionNo }]);
      return { outcome: "refused", message: ActionMessages.staleCancel };
    }
    throw err;
  }
  const executions = state.executions.map((e) => (e.executionNo === cancelled.executionNo ? cancelled : e));
  await refreshQuietly(deps, task.taskId, { kind: "execution", executionNo: target.executionNo }, { ...state, executions });
  return { outcome: "applied" };
}
