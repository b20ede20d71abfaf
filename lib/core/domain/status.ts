import { IllegalTransitionError } from "../errors/taxonomy";

/**
 * Status models (docs/architecture.md, data model) as data. Every status change goes through `assertTransition` and is then written
 * conditionally (`status = :expected`), so a double click or a retried Lambda cannot do a step twice.
 */

export const TASK_STATUSES = [
  "analyzing", // L1 running
  "prompt_review", // L2 generating / waiting for approval / regenerating
  "process_review", // L3 generating / waiting for approval / regenerating
  "executing", // an Execution is pending or running
  "completed",
  "failed", // a layer failed, or the last Execution failed / timed out (rerun possible while reruns remain)
  "cancelled", // the last Execution was cancelled (rerun possible)
  "closed", // limit reached or approval expired: the user starts a new task
  "answered", // L1 read no request for work on freee (a greeting, a question): replied in the thread, no plan
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const VERSION_STATUSES = ["generating", "pending_approval", "approved", "rejected", "failed", "expired"] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export const EXECUTION_STATUSES = ["pending", "running", "completed", "failed", "cancelled", "timed_out"] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

type Transitions<S extends string> = Readonly<Record<S, readonly S[]>>;

export const TASK_TRANSITIONS: Transitions<TaskStatus> = {
  analyzing: ["prompt_review", "failed", "answered"],
  prompt_review: ["process_review", "failed", "closed"],
  process_review: ["executing", "failed", "closed"],
  executing: ["completed", "failed", "cancelled"],
  failed: ["executing"],
  cancelled: ["executing"],
  completed: [],
  closed: [],
  answered: [],
};

export const VERSION_TRANSITIONS: Transitions<VersionStatus> = {
  // → approved: a plan that only reads, approved by its 実行方針 approval where the policy allows (lib/steps/read-only-approval.ts).
  generating: ["pending_approval", "approved", "failed"],
  pending_approval: ["approved", "rejected", "expired", "failed"],
  approved: [],
  rejected: [],
  failed: [],
  expired: [],
};

export const EXECUTION_TRANSITIONS: Transitions<ExecutionStatus> = {
  pending: ["running", "failed", "cancelled"],
  running: ["completed", "failed", "cancelled", "timed_out"],
  completed: [],
  failed: [],
  cancelled: [],
  timed_out: [],
};

export type Machine = "task" | "version" | "execution";
const TABLES: Record<Machine, Transitions<string>> = {
  task: TASK_TRANSITIONS,
  version: VERSION_TRANSITIONS,
  execution: EXECUTION_TRANSITIONS,
};

export function canTransition(machine: Machine, from: string, to: string): boolean {
  return TABLES[machine][from]?.includes(to) ?? false;
}

export function assertTransition(machine: Machine, from: string, to: string): void {
  if (!canTransition(machine, from, to)) {
    throw new IllegalTransitionError(`${machine}: ${from} → ${to} is not allowed`, {
      details: { machine, from, to },
    });
  }
}

export function isTerminal(machine: Machine, status: string): boolean {
  return (TABLES[machine][status]?.length ?? 0) === 0;
}
