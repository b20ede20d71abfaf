import type { Execution, RunWrites, Task } from "../core/domain/records";
import { StateConflictError, TransientError } from "../core/errors/taxonomy";
import { logLayerError } from "../core/observability/logger";
import { confirmAudit } from "../store/pending-audit";
import { cancelAudit } from "../core/domain/audit-promises";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { nowIso, refreshWithTaskCard, type TaskRef } from "./common";
import { runWrites } from "./run-writes";

/** A cancelled run's end (docs/architecture.md, limits), for the poll that sees the cancel and for the failure path. */

/**
 * The cancelled run's session took the interrupt (or had ended): 中止, the task cancelled, the cancel audited.
 * A write the MCP server still has in flight may land after the interrupt: with `waitForWrites` (the poll, which
 * runs again) the cancel is not finalised while one is young enough to settle — the card keeps saying 中止中...
 * and is drawn with what freee took once the write settles. Without it (the failure path, which runs once) an
 * in-flight write is shown as one that may have been written.
 */
export async function settleCancel(deps: PipelineDeps, taskAtPoll: TaskRef, execution: Execution, options: { waitForWrites?: boolean } = {}): Promise<"settled" | "waiting"> {
  let task: TaskRef = taskAtPoll;
  const read = execution.cancelFinalizedAt === undefined ? await writesOrNone(deps, task, execution) : undefined;
  if (options.waitForWrites === true && read !== undefined && read.settling.length > 0) {
    deps.log.info("cancel waits for freee writes in flight", { taskId: task.taskId, executionNo: execution.executionNo, steps: read.settling });
    return "waiting";
  }
  const writes = read?.writes;
  const { applied } = await deps.store.finalizeCancel(task.taskId, execution.executionNo, { writes });
  // The click only cancelled the Execution (its ack path is three calls): the task ends here, with the run.
  try {
    task = (await deps.store.transitionTask(task.taskId, "cancelled", { from: ["executing"] })).record;
  } catch (err) {
    // A task that already moved on (a racing poll that finished it) keeps its own status.
    if (!(err instanceof StateConflictError)) throw err;
  }
  if (applied) {
    deps.metrics.cancel();
    deps.metrics.taskEnded("cancelled");
  }
  // The click acked after its one write (lib/ingress/actions/cancel.ts), which promised this entry: it is confirmed here
  // under the same key, so it is written once. A pre-field item has no promise: the same entry is built here.
  const promised = execution.cancelAudit ?? cancelAudit(execution.executionNo, execution.cancelledBy ?? PIPELINE_ACTOR, execution.cancelledAt ?? nowIso(deps));
  await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId: task.taskId }, promised);
  await refreshWithTaskCard(deps, task, { kind: "execution", executionNo: execution.executionNo });
  return "settled";
}

/**
 * The interrupt of a cancelled run. A session that refuses it (4xx) has ended, which is all a cancel needs; an
 * interrupt that did not get through is audited (once per run) and thrown as the TransientError it is.
 */
export async function interruptForCancel(deps: PipelineDeps, task: TaskRef, execution: Execution, sessionId: string | undefined): Promise<void> {
  if (sessionId === undefined) return;
  try {
    await deps.agent.interrupt(sessionId);
  } catch (err) {
    logLayerError(deps.log, "L4", err, { action: "interrupt" });
    // Audited either way. A refusal that will not change (the session is gone, our key is refused) ends the
    // cancel here: the run is cancelled in the table, so the MCP server refuses its bearer — the session, if it
    // still runs, can no longer reach freee. A transient failure is retried by the poll until the session takes it.
    await deps.audit.recordError({
      teamId: task.thread.teamId,
      taskId: task.taskId,
      layer: "L4",
      subject: `interrupt#execution#${execution.executionNo}`,
      actor: PIPELINE_ACTOR,
      error: err,
      details: { sessionId, executionStatus: execution.status },
    });
    if (err instanceof TransientError) throw err;
  }
}

/**
 * The ledger at the end of a cancelled or failed run, for its card. A ledger that cannot be read now must not
 * stop the run from ending (its status, audit and card matter more): transient errors are retried by the step;
 * anything else is logged and the card says it could not read the writes.
 */
export async function writesOrNone(deps: PipelineDeps, task: TaskRef, execution: Execution): Promise<{ writes: RunWrites; settling: string[] } | undefined> {
  try {
    return await runWrites(deps, execution);
  } catch (err) {
    if (err instanceof TransientError) throw err;
    logLayerError(deps.log, "L4", err, { taskId: task.taskId, executionNo: execution.executionNo, action: "read_write_ledger" });
    return undefined;
  }
}

export async function interruptBestEffort(deps: PipelineDeps, sessionId: string | undefined): Promise<void> {
  if (sessionId === undefined) return;
  try {
    await deps.agent.interrupt(sessionId);
  } catch (err) {
    // Best effort by design (docs/architecture.md, limits): logged with the error log line's fields, the status stands.
    logLayerError(deps.log, "L4", err, { action: "interrupt" });
  }
}

/**
 * RecordRunFailure on a cancelled run whose session had not taken the interrupt: the task follows its run
 * (cancelled, as the DB has said since the click); the run's card says 中止 once the interrupt gets through,
 * until then 中止中... — the reconciler, which this machine's failure starts, keeps trying.
 */
export async function cancelOnFailurePath(deps: PipelineDeps, task: Task, execution: Execution, sessionId: string | undefined): Promise<void> {
  try {
    await interruptForCancel(deps, task, execution, sessionId);
  } catch (err) {
    if (!(err instanceof TransientError)) throw err;
    if (task.status !== "executing" || task.executionCount !== execution.executionNo) return;
    try {
      const { applied } = await deps.store.transitionTask(task.taskId, "cancelled", { from: ["executing"] });
      if (applied) deps.metrics.taskEnded("cancelled");
    } catch (conflict) {
      // A task that already moved on keeps its own status.
      if (!(conflict instanceof StateConflictError)) throw conflict;
    }
    return;
  }
  await settleCancel(deps, task, execution);
}
