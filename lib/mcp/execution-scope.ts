import { executionRefOf } from "./bearer";
import type { PreviewCompany } from "../core/domain/preview";
import type { Execution, ProcessStep } from "../core/domain/records";
import { RecordNotFoundError, StateConflictError } from "../core/errors/taxonomy";
import type { TaskStore } from "../store/task-store";
import { allowedToolsForSteps } from "../freee/tools/summaries";

/**
 * What one MCP request may do: the execution its bearer names, its status as the table holds it now, and the
 * steps of its approved Process — the capability (lib/mcp/capability.ts). `allowedTools` is the same
 * list the session's toolset enabled.
 */
export interface ExecutionScope {
  teamId: string;
  taskId: string;
  executionNo: number;
  executionId: string;
  executionStatus: Execution["status"];
  processVersion: number;
  /**
   * The company the approved Process was previewed against (the Execution's copy; the version's preview for a run
   * created before Executions carried it). Undefined: no company was approved, and the run may call nothing.
   */
  company: PreviewCompany | undefined;
  steps: readonly ProcessStep[];
  allowedTools: ReadonlySet<string>;
}

/** Tool calls are served while the run is live; a finished, failed or cancelled run calls nothing. */
export const LIVE_EXECUTION_STATUSES: ReadonlySet<string> = new Set(["pending", "running"]);

export async function loadExecutionScope(
  store: Pick<TaskStore, "getTask" | "getExecution" | "getVersion">,
  claims: { teamId: string; executionId: string },
): Promise<ExecutionScope> {
  let ids: { taskId: string; executionNo: number };
  try {
    ids = executionRefOf(claims);
  } catch (cause) {
    throw new RecordNotFoundError("MCP bearer names no valid execution", { cause, details: { executionId: claims.executionId } });
  }
  const [task, execution] = await Promise.all([store.getTask(ids.taskId), store.getExecution(ids.taskId, ids.executionNo)]);
  if (task === undefined || execution === undefined) {
    throw new RecordNotFoundError("execution of the MCP bearer not found", { details: { executionId: claims.executionId } });
  }
  if (task.thread.teamId !== claims.teamId) {
    // A bearer signed for one workspace must never reach another workspace's task.
    throw new StateConflictError("MCP bearer workspace does not own the execution", { details: { executionId: claims.executionId } });
  }
  const process = await store.getVersion("process", ids.taskId, execution.processVersion);
  if (process === undefined || process.status !== "approved" || process.steps === undefined) {
    throw new StateConflictError("the execution's Process is not an approved one", {
      details: { executionId: claims.executionId, processVersion: execution.processVersion },
    });
  }
  return {
    teamId: claims.teamId,
    taskId: ids.taskId,
    executionNo: ids.executionNo,
    executionId: claims.executionId,
    executionStatus: execution.status,
    processVersion: execution.processVersion,
    company: execution.company ?? process.preview?.company,
    steps: process.steps,
    allowedTools: new Set(allowedToolsForSteps(process.steps)),
  };
}
