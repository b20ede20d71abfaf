import { ExecutionSchema, TaskSchema, type Execution, type ProcessVersion, type PromptVersion, type Task, type VersionKind } from "../core/domain/records";
import { parseRecord, type ItemKey, type ItemTable } from "./item-table";
import { Keys } from "./table";
import { taskNotFound } from "./tasks";
import { parseVersion } from "./versions";

/** What a step reads of one task at once: the task and, when asked, one version and one execution. */
export interface SnapshotRequest {
  version?: { kind: VersionKind; version: number };
  execution?: number;
}

export interface TaskSnapshot {
  task: Task;
  /** Absent when the item does not exist (the caller decides whether that is an error). */
  version?: PromptVersion | ProcessVersion;
  execution?: Execution;
}

/**
 * The task and the other items a step needs, in one consistent read (`ItemTable.getAll`: one request instead of
 * one per item). A missing task is RecordNotFoundError, as `getTaskOrThrow` says it.
 */
export async function readSnapshot(table: ItemTable, taskId: string, request: SnapshotRequest): Promise<TaskSnapshot> {
  const keys: ItemKey[] = [Keys.task(taskId)];
  if (request.version !== undefined) keys.push(Keys.version(taskId, request.version.kind, request.version.version));
  if (request.execution !== undefined) keys.push(Keys.execution(taskId, request.execution));
  const items = await table.getAll(keys, "readSnapshot");
  const [taskItem, ...rest] = items;
  if (taskItem === undefined) throw taskNotFound(taskId);
  const snapshot: TaskSnapshot = { task: parseRecord(TaskSchema, taskItem, "task") };
  if (request.version !== undefined) {
    const item = rest.shift();
    if (item !== undefined) snapshot.version = parseVersion(request.version.kind, item);
  }
  if (request.execution !== undefined) {
    const item = rest.shift();
    if (item !== undefined) snapshot.execution = parseRecord(ExecutionSchema, item, "execution");
  }
  return snapshot;
}
