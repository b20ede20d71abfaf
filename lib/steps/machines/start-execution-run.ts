import { StartExecutionCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { TaskStatus } from "../../core/domain/status";
import { executionIdFor, type AuditEntry, type Execution, type Task } from "../../core/domain/records";
import { classifyAwsError } from "../../core/errors/classify";
import { RecordNotFoundError } from "../../core/errors/taxonomy";
import { startAudit } from "../../core/domain/audit-promises";
import type { EntryState, TaskStore } from "../../store/task-store";
import type { ExecutionRunInput } from "./contracts";

export interface StartExecutionRunDeps {
  store: TaskStore;
  sfn: Pick<SFNClient, "send">;
  executionRunArn: string;
}

export interface StartExecutionRunRequest {
  taskId: string;
  /** `process_review` for the first run (after the Process approval), `failed` / `cancelled` for a rerun. */
  from: readonly TaskStatus[];
  actorId: string;
  /** 1 + the rerun limit (3 reruns → 4 executions). */
  maxExecutions: number;
  /** Task fields set by the same write that claims the run (the first run: which Process version it runs). */
  set?: Record<string, unknown>;
  /** An audit entry written with the Execution record, in one transaction (the first run: the Process approval). */
  entry?: AuditEntry;
}

/**
 * Start one Execution of the task's approved Process: claim the next execution number (conditional, so a
 * double click starts one run and the rerun limit holds), create the Execution record, and start the
 * ExecutionRun state machine named after the Execution id (a retried start is a no-op).
 * The run's audit entry is promised by the Execution record, before StartExecution; the run's first step
 * (StartSession) writes it under its deterministic key, as the resumed step writes a click's decision — so it is
 * written once, not here and again there (the failure path and the reconciler write it if that step never ran).
 * Throws LimitReachedError past the rerun limit and StateConflictError when the task cannot run now.
 */
export async function startExecutionRun(deps: StartExecutionRunDeps, request: StartExecutionRunRequest): Promise<{ task: Task; execution: Execution; entry?: EntryState }> {
  const { task, executionNo } = await deps.store.allocateExecution(request.taskId, {
    from: request.from,
    maxExecutions: request.maxExecutions,
    ...(request.set === undefined ? {} : { set: request.set }),
  });
  if (task.approvedProcessVersion === undefined) {
    throw new RecordNotFoundError(`task ${task.taskId} has no approved Process`, { details: { taskId: task.taskId } });
  }
  // The run acts on the company its Process was previewed against, and only on it (lib/mcp/tool-call.ts).
  const company = (await deps.store.getVersion("process", task.taskId, task.approvedProcessVersion))?.preview?.company;
  const { record: execution, ...audited } = await deps.store.createExecution(
    task.taskId,
    {
      executionNo,
      processVersion: task.approvedProcessVersion,
      ...(company === undefined ? {} : { company }),
      startedBy: request.actorId,
      startAudit: startAudit(executionNo, task.approvedProcessVersion, request.actorId, new Date().toISOString()),
    },
    request.entry,
  );
  const input: ExecutionRunInput = { taskId: task.taskId, executionNo, processVersion: execution.processVersion };
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
  return { task, execution, ...audited };
}
