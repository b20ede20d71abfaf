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
  /** A failure the MCP server stamped on the run (freee's throttle, the connection): the run calls freee no more. */
  fault?: Execution["fault"];
}

/** Tool calls are served while the run is live; a finished, failed or cancelled run calls nothing. */
export const LIVE_EXECUTION_STATUSES: ReadonlySet<string> = new Set(["pending", "running"]);

/**
 * What never changes for an execution, kept by a warm Lambda across calls: a task's workspace (the task id is
 * derived from it) and an approved Process version (approval is final: VERSION_TRANSITIONS in
 * lib/core/domain/status.ts). The Execution itself — its status, a cancel, its company — is read on every request,
 * as is the freee connection; neither is ever kept here.
 */
export class ExecutionScopeCache {
  private readonly teams = new Map<string, string>();
  private readonly processes = new Map<string, ApprovedProcess>();

  constructor(private readonly maxEntries = 500) {}

  teamOf(taskId: string): string | undefined {
    return this.teams.get(taskId);
  }

  rememberTeam(taskId: string, teamId: string): void {
    remember(this.teams, taskId, teamId, this.maxEntries);
  }

  process(taskId: string, version: number): ApprovedProcess | undefined {
    return this.processes.get(`${taskId}#${version}`);
  }

  rememberProcess(taskId: string, version: number, process: ApprovedProcess): void {
    remember(this.processes, `${taskId}#${version}`, process, this.maxEntries);
  }
}

interface ApprovedProcess {
  steps: readonly ProcessStep[];
  previewCompany: PreviewCompany | undefined;
  allowedTools: ReadonlySet<string>;
}

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  // Oldest first out: a warm Lambda serves a few runs at a time, and a forgotten entry is only read again.
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
}

export async function loadExecutionScope(
  store: Pick<TaskStore, "getTask" | "getExecution" | "getVersion">,
  claims: { teamId: string; executionId: string },
  cache: ExecutionScopeCache = new ExecutionScopeCache(),
): Promise<ExecutionScope> {
  let ids: { taskId: string; executionNo: number };
  try {
    ids = executionRefOf(claims);
  } catch (cause) {
    throw new RecordNotFoundError("MCP bearer names no valid execution", { cause, details: { executionId: claims.executionId } });
  }
  const knownTeam = cache.teamOf(ids.taskId);
  const [taskTeam, execution] = await Promise.all([
    knownTeam !== undefined ? knownTeam : store.getTask(ids.taskId).then((task) => task?.thread.teamId),
    store.getExecution(ids.taskId, ids.executionNo),
  ]);
  if (taskTeam === undefined || execution === undefined) {
    throw new RecordNotFoundError("execution of the MCP bearer not found", { details: { executionId: claims.executionId } });
  }
  cache.rememberTeam(ids.taskId, taskTeam);
  if (taskTeam !== claims.teamId) {
    // A bearer signed for one workspace must never reach another workspace's task.
    throw new StateConflictError("MCP bearer workspace does not own the execution", { details: { executionId: claims.executionId } });
  }
  let approved = cache.process(ids.taskId, execution.processVersion);
  if (approved === undefined) {
    const process = await store.getVersion("process", ids.taskId, execution.processVersion);
    if (process === undefined || process.status !== "approved" || process.steps === undefined) {
      throw new StateConflictError("the execution's Process is not an approved one", {
        details: { executionId: claims.executionId, processVersion: execution.processVersion },
      });
    }
    approved = { steps: process.steps, previewCompany: process.preview?.company, allowedTools: new Set(allowedToolsForSteps(process.steps)) };
    cache.rememberProcess(ids.taskId, execution.processVersion, approved);
  }
  return {
    teamId: claims.teamId,
    taskId: ids.taskId,
    executionNo: ids.executionNo,
    executionId: claims.executionId,
    executionStatus: execution.status,
    processVersion: execution.processVersion,
    company: execution.company ?? approved.previewCompany,
    steps: approved.steps,
    allowedTools: approved.allowedTools,
    ...(execution.fault === undefined ? {} : { fault: execution.fault }),
  };
}
