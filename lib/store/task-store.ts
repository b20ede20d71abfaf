import type { ApprovalRule } from "../core/domain/approval-policy";
import type { PreviewCompany } from "../core/domain/preview";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { ProcessPreview } from "../core/domain/preview";
import type {
  ApprovalSource,
  AuditEntry,
  Execution,
  ExecutionProgress,
  PendingAudit,
  ProcessStep,
  ProcessVersion,
  PromptVersion,
  Task,
  VersionKind,
} from "../core/domain/records";
import type { ExecutionStatus, TaskStatus, VersionStatus } from "../core/domain/status";
import { AuditEntries } from "./audit-entries";
import { ExecutionItems } from "./executions";
import { loadHistory, type TaskHistory } from "./history";
import { listRecentTasksOf } from "./recent-tasks";
import { ItemTable, type EntryState, type WriteResult } from "./item-table";
import { TaskItems, type NewTaskInput } from "./tasks";
import { prepareTransition, transitionWithEntry, type TransitionOptions } from "./transition";
import { VersionItems } from "./versions";
import { readSnapshot, type SnapshotRequest, type TaskSnapshot } from "./snapshot";
import { Keys } from "./table";
import { ExecutionSchema, TaskSchema } from "../core/domain/records";

export type { EntryState, WriteResult } from "./item-table";
export type { TransitionOptions } from "./transition";
export type { TaskHistory } from "./history";
export type { SnapshotRequest, TaskSnapshot } from "./snapshot";
export type { NewTaskInput } from "./tasks";

/**
 * The DynamoDB store (docs/architecture.md, data model), one entry point for every caller. Every status change is a single-item
 * conditional write; a retried call that finds its own earlier write returns it with `applied: false` instead
 * of failing or doing it twice. Each item kind lives in its own file (tasks, versions, executions, audit
 * entries, history) over the one conditional-write helper of item-table.ts; this class only hands calls on.
 */
export class TaskStore {
  private readonly tasks: TaskItems;
  private readonly versions: VersionItems;
  private readonly executions: ExecutionItems;
  private readonly audit: AuditEntries;
  private readonly table: ItemTable;

  constructor(doc: DynamoDBDocumentClient, readonly tableName: string, clock: () => Date = () => new Date()) {
    this.table = new ItemTable(doc, tableName, clock);
    this.tasks = new TaskItems(this.table);
    this.versions = new VersionItems(this.table);
    this.executions = new ExecutionItems(this.table);
    this.audit = new AuditEntries(this.table);
  }

  // tasks (tasks.ts)
  /** `entry`: the `task.created` audit entry, written in the same transaction (`entry` in the result: what became of it). */
  createTask(input: NewTaskInput, entry?: AuditEntry): Promise<WriteResult<Task> & { entry?: EntryState }> {
    return this.tasks.create(input, entry);
  }
  getTask(taskId: string): Promise<Task | undefined> {
    return this.tasks.get(taskId);
  }
  getTaskOrThrow(taskId: string): Promise<Task> {
    return this.tasks.getOrThrow(taskId);
  }
  transitionTask(taskId: string, to: TaskStatus, options: TransitionOptions = {}): Promise<WriteResult<Task>> {
    return this.tasks.transition(taskId, to, options);
  }
  /** `transitionTask` with its audit entry in one transaction, from the task the step just read (transition.ts). */
  transitionTaskWithEntry(held: Task, to: TaskStatus, options: Omit<TransitionOptions, "returnOld">, entry: AuditEntry): Promise<WriteResult<Task> & { entry: EntryState }> {
    return transitionWithEntry(this.table, "task", Keys.task(held.taskId), to, options, TaskSchema, { held, entry });
  }
  /** The task with one version and / or one execution, in one consistent read (snapshot.ts). */
  readSnapshot(taskId: string, request: SnapshotRequest): Promise<TaskSnapshot> {
    return readSnapshot(this.table, taskId, request);
  }
  updateTask(taskId: string, set: Record<string, unknown>): Promise<Task> {
    return this.tasks.update(taskId, set);
  }
  setCardTs(taskId: string, card: "task" | "prompt" | "process", ts: string, replacing?: string): Promise<string> {
    return this.tasks.setCardTs(taskId, card, ts, replacing);
  }
  listRecentTasks(teamId: string, limit?: number): Promise<Task[]> {
    return this.tasks.listRecent(teamId, limit);
  }
  /** One member's most recent tasks in a workspace, newest first (App Home for a member: recent-tasks.ts). */
  listRecentTasksBy(teamId: string, requesterId: string, limit = 10): Promise<Task[]> {
    return listRecentTasksOf(this.table.doc, this.tableName, { teamId, requesterId, limit });
  }

  // prompt / process versions (versions.ts)
  createVersion(
    kind: VersionKind,
    taskId: string,
    version: number,
    extra: { regeneratedFor?: string; basedOnPromptVersion?: number } = {},
    entry?: AuditEntry,
    /** The task as the step just read it: the pointer then rides the version's transaction (versions.ts). */
    heldTask?: Task,
  ): Promise<WriteResult<PromptVersion | ProcessVersion> & { task?: Task; entry?: EntryState }> {
    return this.versions.create(kind, taskId, version, extra, entry, heldTask);
  }
  getVersion(kind: "prompt", taskId: string, version: number): Promise<PromptVersion | undefined>;
  getVersion(kind: "process", taskId: string, version: number): Promise<ProcessVersion | undefined>;
  getVersion(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion | undefined>;
  getVersion(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion | undefined> {
    return this.versions.get(kind, taskId, version);
  }
  getVersionOrThrow(kind: "prompt", taskId: string, version: number): Promise<PromptVersion>;
  getVersionOrThrow(kind: "process", taskId: string, version: number): Promise<ProcessVersion>;
  getVersionOrThrow(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion>;
  getVersionOrThrow(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion> {
    return this.versions.getOrThrow(kind, taskId, version);
  }
  saveVersionContent(
    kind: VersionKind,
    taskId: string,
    version: number,
    content: { text: string } | { steps: ProcessStep[] },
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    return this.versions.saveContent(kind, taskId, version, content);
  }
  /**
   * `saveVersionContent` and its audit entry in one transaction; no record when it applied. `moveTask`: the task's
   * status change that goes with the content (the task as the step holds it): in the same transaction when its
   * condition holds; `task` is then the task as it left it, else absent (the caller changes the status on its own).
   */
  async saveVersionContentWithEntry(
    kind: VersionKind,
    taskId: string,
    version: number,
    content: { text: string } | { steps: ProcessStep[] },
    entry: AuditEntry,
    moveTask?: { held: Task; to: TaskStatus; from: readonly TaskStatus[] },
  ): Promise<{ applied: boolean; entry: EntryState; task?: Task }> {
    const move = moveTask === undefined ? undefined : prepareTransition(this.table, "task", Keys.task(taskId), moveTask.to, { from: moveTask.from }, TaskSchema);
    const saved = await this.versions.saveContentWithEntry(kind, taskId, version, content, entry, move?.write);
    return { applied: saved.applied, entry: saved.entry, ...(saved.alongside === "applied" && move !== undefined ? { task: move.after(moveTask!.held) } : {}) };
  }
  saveProcessPreview(
    taskId: string,
    version: number,
    content: { steps: ProcessStep[]; preview: ProcessPreview; approvableVia: ApprovalSource[] },
    entry?: AuditEntry,
  ): Promise<{ record?: ProcessVersion; applied: boolean; entry?: EntryState }> {
    return this.versions.saveProcessPreview(taskId, version, content, entry);
  }
  openApproval(
    kind: VersionKind,
    taskId: string,
    version: number,
    taskToken: string,
    owner?: { teamId: string; requesterId: string; approvalRule?: ApprovalRule },
    carry?: { held: PromptVersion | ProcessVersion; entry: AuditEntry },
  ): Promise<WriteResult<PromptVersion | ProcessVersion> & { entry?: EntryState }> {
    return this.versions.openApproval(kind, taskId, version, taskToken, owner, carry);
  }
  reopenApproval(
    kind: VersionKind,
    taskId: string,
    version: number,
    undo: { taskToken: string; decidedAt: string },
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    return this.versions.reopenApproval(kind, taskId, version, undo);
  }
  transitionVersion(
    kind: VersionKind,
    taskId: string,
    version: number,
    to: VersionStatus,
    options: TransitionOptions = {},
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    return this.versions.transition(kind, taskId, version, to, options);
  }

  // executions (executions.ts)
  allocateExecution(
    taskId: string,
    options: { from: readonly TaskStatus[]; maxExecutions: number; set?: Record<string, unknown> },
  ): Promise<{ task: Task; executionNo: number; applied: boolean }> {
    return this.executions.allocate(taskId, options);
  }
  createExecution(
    taskId: string,
    input: { executionNo: number; processVersion: number; startedBy: string; startAudit?: PendingAudit; company?: PreviewCompany },
    entry?: AuditEntry,
  ): Promise<WriteResult<Execution> & { entry?: EntryState }> {
    return this.executions.create(taskId, input, entry);
  }
  getExecution(taskId: string, executionNo: number): Promise<Execution | undefined> {
    return this.executions.get(taskId, executionNo);
  }
  getExecutionOrThrow(taskId: string, executionNo: number): Promise<Execution> {
    return this.executions.getOrThrow(taskId, executionNo);
  }
  transitionExecution(taskId: string, executionNo: number, to: ExecutionStatus, options: TransitionOptions = {}): Promise<WriteResult<Execution>> {
    return this.executions.transition(taskId, executionNo, to, options);
  }
  /** `transitionExecution` with its audit entry in one transaction, from the execution the step just read (transition.ts). */
  transitionExecutionWithEntry(
    held: Execution,
    to: ExecutionStatus,
    options: Omit<TransitionOptions, "returnOld">,
    entry: AuditEntry,
  ): Promise<WriteResult<Execution> & { entry: EntryState }> {
    return transitionWithEntry(this.table, "execution", Keys.execution(held.taskId, held.executionNo), to, options, ExecutionSchema, { held, entry });
  }
  recordProgress(
    taskId: string,
    executionNo: number,
    patch: { progress: ExecutionProgress; sessionId?: string; usage?: Execution["usage"]; agentFailure?: Execution["agentFailure"]; completion?: Execution["completion"] },
  ): Promise<WriteResult<Execution>> {
    return this.executions.recordProgress(taskId, executionNo, patch);
  }
  /** `recordProgress` and an audit entry in one transaction. */
  recordProgressWithEntry(
    taskId: string,
    executionNo: number,
    patch: { progress: ExecutionProgress; sessionId?: string; usage?: Execution["usage"] },
    entry: AuditEntry,
  ): Promise<{ applied: boolean; entry: EntryState }> {
    return this.executions.recordProgressWithEntry(taskId, executionNo, patch, entry);
  }
  recordRunFault(taskId: string, executionNo: number, fault: NonNullable<Execution["fault"]>): Promise<boolean> {
    return this.executions.recordRunFault(taskId, executionNo, fault);
  }
  recordCompletion(taskId: string, executionNo: number, completion: NonNullable<Execution["completion"]>): Promise<WriteResult<Execution>> {
    return this.executions.recordCompletion(taskId, executionNo, completion);
  }
  setExecutionCardTs(taskId: string, executionNo: number, ts: string, replacing?: string): Promise<string> {
    return this.executions.setCardTs(taskId, executionNo, ts, replacing);
  }
  finalizeCancel(taskId: string, executionNo: number, set: { writes?: Execution["writes"] } = {}): Promise<WriteResult<Execution>> {
    return this.executions.finalizeCancel(taskId, executionNo, set);
  }

  // audit entries (audit-entries.ts) and history (history.ts)
  appendAudit(entry: AuditEntry): Promise<WriteResult<AuditEntry>> {
    return this.audit.append(entry);
  }
  listAuditByTeam(teamId: string, window: { since?: string; until?: string; limit?: number } = {}): Promise<AuditEntry[]> {
    return this.audit.listByTeam(teamId, window);
  }
  loadHistory(taskId: string, options: { cardsOnly?: boolean } = {}): Promise<TaskHistory> {
    return loadHistory(this.table, taskId, options);
  }
}
