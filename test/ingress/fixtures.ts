import type { Execution, ProcessVersion, PromptVersion, Task } from "../../lib/core/domain/records";
import type { TaskHistory } from "../../lib/store/task-store";

/** Hand-built task histories for the pure card tests. */
const at = "2026-01-01T00:00:00.000Z";
export const TASK_ID = "T1-C1-1700000000_000100";

export function baseTask(patch: Partial<Task> = {}): Task {
  return {
    taskId: TASK_ID,
    thread: { teamId: "T1", channelId: "C1", messageTs: "1700000000.000100" },
    requesterId: "UREQ",
    requestText: "山田さんの入社手続きをしてください",
    status: "analyzing",
    currentPromptVersion: 0,
    currentProcessVersion: 0,
    executionCount: 0,
    cards: {},
    pipelineExecutionName: TASK_ID,
    createdAt: at,
    updatedAt: at,
    ...patch,
  };
}

export function prompt(version: number, patch: Partial<PromptVersion> = {}): PromptVersion {
  return { kind: "prompt", taskId: TASK_ID, version, status: "generating", createdAt: at, updatedAt: at, ...patch };
}

export function processVersion(version: number, patch: Partial<ProcessVersion> = {}): ProcessVersion {
  return { kind: "process", taskId: TASK_ID, version, status: "generating", basedOnPromptVersion: 1, createdAt: at, updatedAt: at, ...patch };
}

export const STEPS = [
  { stepId: "s1", order: 1, tool: "freee_hr_create_employee", toolInput: { name: "山田太郎" } },
  { stepId: "s2", order: 2, tool: "agent_decide", toolInput: {} },
];

export function execution(executionNo: number, patch: Partial<Execution> = {}): Execution {
  return {
    taskId: TASK_ID,
    executionNo,
    executionId: `${TASK_ID}-e${executionNo}`,
    processVersion: 1,
    status: "pending",
    startedBy: "UREQ",
    createdAt: at,
    updatedAt: at,
    ...patch,
  };
}

export function history(patch: Partial<TaskHistory> = {}): TaskHistory {
  return { task: baseTask(), prompts: [], processes: [], executions: [], audit: [], ...patch };
}
