import { StartExecutionCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { AuditLog } from "../audit/audit-log";
import type { TaskStatus } from "../domain/status";
import { executionIdFor, type Execution, type Task } from "../domain/records";
import { classifyAwsError } from "../errors/classify";
import { RecordNotFoundError, TransientError } from "../errors/taxonomy";
import { confirmAudit } from "../audit/pending-audit";
import { startAudit } from "../domain/audit-promises";
import type { TaskStore } from "../store/task-store";
import type { ExecutionRunInput } from "./contracts";

export interface StartExecutionRunDeps {
  store: TaskStore;
  sfn: Pick<SFNClient, "send">;
  audit: AuditLog;
  executionRunArn: string;
}

export interface StartExecutionRunRequest {
  taskId: string;
  /** `process_review` for the first run (after the Process approval), `failed` / `cancelled` for a rerun. */
  from: readonly TaskStatus[];
  actorId: string;
  /** 1 + the rerun limit (DESIGN §5: 3 reruns → 4 executions). */
  maxExecutions: number;
  /** Task fields set by the same write that claims the run (the first run: which Process version it runs). */
  set?: Record<string, unknown>;
}

/**
 * Start one Execution of the task's approved Process: claim the next execution number (conditional, so a
 * double click starts one run and the rerun limit holds), create the Execution record, audit it, and start the
 * ExecutionRun state machine named after the Execution id (a retried start is a no-op).
 * Throws LimitReachedError past the rerun limit and StateConflictError when the task cannot run now.
 */
export async function startExecutionRun(
  deps: StartExecutionRunDeps,
  request: StartExecutionRunRequest,
): Promise<{ task: Task; execution: Execution; auditConfirmed: boolean }> {
  const { task, executionNo } = await deps.store.allocateExecution(request.taskId, {
    from: request.from,
    maxExecutions: request.maxExecutions,
    ...(request.set === undefined ? {} : { set: request.set }),
  });
  if (task.approvedProcessVersion === undefined) {
    throw new RecordNotFoundError(`task ${task.taskId} has no approved Process`, { details: { taskId: task.taskId } });
  }
  // The run's audit entry is promised by the record that makes the run possible, before StartExecution; it is
  // confirmed after (below), and StartSession, the failure path and the reconciler confirm it again if that is lost.
  const { record: execution } = await deps.store.createExecution(task.taskId, {
    executionNo,
    processVersion: task.approvedProcessVersion,
    startedBy: request.actorId,
    startAudit: startAudit(executionNo, task.approvedProcessVersion, request.actorId, new Date().toISOString()),
  });
  const input: ExecutionRunInput = { taskId: task.taskId, executionNo };
  try {
    await deps.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: deps.executionRunArn,
        name: executionIdFor(task.taskId, executionNo),
        input: JSON.stringify(input),
      }),
    );
  } catch (err) {
    if (!(err instanceof Error && err.name === "ExecutionAlreadyExists")) throw classifyAwsError(err, "StartExecution(ExecutionRun)") ?? err;
  }
  return { task, execution, auditConfirmed: await confirmStart(deps, task, execution) };
}

/**
 * The confirmation after the effect. A transient failure here does not undo or fail the start (the run is
 * started, and its first step writes the same entry): the caller is told, so it can log it.
 */
async function confirmStart(deps: StartExecutionRunDeps, task: Task, execution: Execution): Promise<boolean> {
  if (execution.startAudit === undefined) return true;
  try {
    await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId: task.taskId }, execution.startAudit);
    return true;
  } catch (err) {
    if (err instanceof TransientError) return false;
    throw err;
  }
}
