import type { PreviewCompany } from "../core/domain/preview";
import { ExecutionSchema, executionIdFor, TaskSchema, type AuditEntry, type Execution, type ExecutionProgress, type PendingAudit, type Task } from "../core/domain/records";
import { assertTransition, type ExecutionStatus, type TaskStatus } from "../core/domain/status";
import { LimitReachedError, RecordNotFoundError, StateConflictError } from "../core/errors/taxonomy";
import { writeAudited } from "./audit-entries";
import { buildSet, parseRecord, type ConditionalWrite, type EntryState, type Item, type ItemTable, type WriteResult } from "./item-table";
import { Keys } from "./table";
import { taskNotFound } from "./tasks";
import { transition, type TransitionOptions } from "./transition";

export function executionNotFound(taskId: string, executionNo: number): RecordNotFoundError {
  return new RecordNotFoundError(`execution ${executionNo} of task ${taskId} not found`, { details: { taskId, executionNo } });
}

/** The Execution items (`EXEC#n` in the task's partition) and the claim of the next execution number on the task. */
export class ExecutionItems {
  constructor(private readonly table: ItemTable) {}

  /**
   * Claim the next Execution number: the task moves to `executing` and its execution count rises by one in
   * one conditional write, so a double click on [再実行] cannot start two runs, and the rerun limit holds.
   * When the task is already `executing`, the claimed number is returned with `applied: false`.
   */
  async allocate(
    taskId: string,
    options: { from: readonly TaskStatus[]; maxExecutions: number; set?: Record<string, unknown> },
  ): Promise<{ task: Task; executionNo: number; applied: boolean }> {
    for (const from of options.from) assertTransition("task", from, "executing");
    const fromValues = Object.fromEntries(options.from.map((s, i) => [`:from${i}`, s]));
    const extra = buildSet(options.set ?? {}, "x");
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.task(taskId),
          UpdateExpression: `SET #status = :executing, executionCount = executionCount + :one, updatedAt = :now${extra.assignments.length > 0 ? ", " + extra.assignments.join(", ") : ""}`,
          ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(fromValues).join(", ")}) AND executionCount < :max`,
          ExpressionAttributeNames: { "#status": "status", ...extra.names },
          ExpressionAttributeValues: { ":executing": "executing", ":one": 1, ":max": options.maxExecutions, ":now": this.table.now(), ...fromValues, ...extra.values },
          ReturnValues: "ALL_NEW",
        },
      },
      "allocateExecution",
    );
    if (write.applied) {
      const task = parseRecord(TaskSchema, write.attributes, "task");
      return { task, executionNo: task.executionCount, applied: true };
    }
    const current = await write.current();
    if (current === undefined) throw taskNotFound(taskId);
    const task = parseRecord(TaskSchema, current, "task");
    // Already executing: a retried start (or a second click racing the first) resumes the claimed run,
    // whose record, audit entry and ExecutionRun start are all idempotent.
    if (task.status === "executing" && task.executionCount > 0) {
      return { task, executionNo: task.executionCount, applied: false };
    }
    if (options.from.includes(task.status) && task.executionCount >= options.maxExecutions) {
      throw new LimitReachedError(`task ${taskId} has used all ${options.maxExecutions} runs`, {
        limit: "reruns",
        cause: write.refusal,
        details: { taskId, executionCount: task.executionCount },
      });
    }
    throw new StateConflictError(`task ${taskId} is ${task.status}; cannot start a run`, {
      cause: write.refusal,
      details: { taskId, status: task.status },
    });
  }

  /** Create Execution N (status `pending`); a retried call gets the existing record back. */
  async create(
    taskId: string,
    input: { executionNo: number; processVersion: number; startedBy: string; startAudit?: PendingAudit; company?: PreviewCompany },
    entry?: AuditEntry,
  ): Promise<WriteResult<Execution> & { entry?: EntryState }> {
    const now = this.table.now();
    const record = ExecutionSchema.parse({
      startAudit: input.startAudit,
      company: input.company,
      taskId,
      executionNo: input.executionNo,
      executionId: executionIdFor(taskId, input.executionNo),
      processVersion: input.processVersion,
      status: "pending",
      startedBy: input.startedBy,
      createdAt: now,
      updatedAt: now,
    });
    // `entry` (the decision that starts this run) is written with the record, in one transaction.
    const { outcome: write, ...audited } = await writeAudited(
      this.table,
      { put: { Item: { ...Keys.execution(taskId, input.executionNo), ...record }, ConditionExpression: "attribute_not_exists(pk)" } },
      "createExecution",
      entry,
    );
    if (write.applied) return { record, applied: true, ...audited };
    return { record: parseOrThrow(taskId, input.executionNo, await write.current()), applied: false, ...audited };
  }

  async get(taskId: string, executionNo: number): Promise<Execution | undefined> {
    const item = await this.table.get(Keys.execution(taskId, executionNo), "getExecution");
    return item === undefined ? undefined : parseRecord(ExecutionSchema, item, "execution");
  }

  async getOrThrow(taskId: string, executionNo: number): Promise<Execution> {
    const record = await this.get(taskId, executionNo);
    if (record === undefined) throw executionNotFound(taskId, executionNo);
    return record;
  }

  transition(taskId: string, executionNo: number, to: ExecutionStatus, options: TransitionOptions = {}): Promise<WriteResult<Execution>> {
    return transition(this.table, "execution", Keys.execution(taskId, executionNo), to, options, ExecutionSchema);
  }

  /**
   * Progress of a running Execution. Written only while `running`: once cancelled or finished the write is
   * refused and the current record is returned, which is how the poll loop learns of a cancel.
   */
  async recordProgress(
    taskId: string,
    executionNo: number,
    patch: ProgressPatch,
  ): Promise<WriteResult<Execution>> {
    const write = await this.table.writeIf(progressWrite(this.table, taskId, executionNo, patch, "ALL_NEW"), "recordProgress");
    if (write.applied) return { record: parseRecord(ExecutionSchema, write.attributes, "execution"), applied: true };
    return { record: parseOrThrow(taskId, executionNo, await write.current()), applied: false };
  }

  /**
   * `recordProgress` with an audit entry (`execution.session_created`) in the same transaction. Refused (the run
   * is no longer `running`), the entry is `missing` unless an earlier attempt wrote it: the caller decides.
   */
  async recordProgressWithEntry(taskId: string, executionNo: number, patch: ProgressPatch, entry: AuditEntry): Promise<{ applied: boolean; entry: EntryState }> {
    const { outcome, entry: state } = await writeAudited(this.table, progressWrite(this.table, taskId, executionNo, patch), "recordProgress", entry);
    return { applied: outcome.applied, entry: state! };
  }

  /**
   * The freee MCP server saw a fault no tool result can recover from (the connection failed, AuthError): it is
   * stamped on the Execution while the run is live, once, for the next poll to end the run with it. False when the
   * run is no longer live or a fault is already recorded.
   */
  async recordRunFault(taskId: string, executionNo: number, fault: NonNullable<Execution["fault"]>): Promise<boolean> {
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET fault = :fault, updatedAt = :now",
          ConditionExpression: "#status IN (:pending, :running) AND attribute_not_exists(fault)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":fault": fault, ":pending": "pending", ":running": "running", ":now": this.table.now() },
        },
      },
      "recordRunFault",
    );
    return write.applied;
  }

  /** The completion contract's verdict on a running Execution (before it is completed or failed). */
  async recordCompletion(taskId: string, executionNo: number, completion: NonNullable<Execution["completion"]>): Promise<WriteResult<Execution>> {
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET completion = :completion, updatedAt = :now",
          ConditionExpression: "#status = :running",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":completion": completion, ":running": "running", ":now": this.table.now() },
          ReturnValues: "ALL_NEW",
        },
      },
      "recordCompletion",
    );
    if (write.applied) return { record: parseRecord(ExecutionSchema, write.attributes, "execution"), applied: true };
    return { record: parseOrThrow(taskId, executionNo, await write.current()), applied: false };
  }

  /** Claim the card ts of an Execution (its own message in the thread); same rules as the task's `setCardTs`. */
  async setCardTs(taskId: string, executionNo: number, ts: string, replacing?: string): Promise<string> {
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET cardTs = :ts, updatedAt = :now",
          ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(cardTs)${replacing === undefined ? "" : " OR cardTs = :old"})`,
          ExpressionAttributeValues: { ":ts": ts, ":now": this.table.now(), ...(replacing === undefined ? {} : { ":old": replacing }) },
        },
      },
      "setExecutionCardTs",
    );
    if (write.applied) return ts;
    const execution = parseOrThrow(taskId, executionNo, await write.current());
    if (execution.cardTs === undefined) {
      throw new StateConflictError(`card of execution ${executionNo} of ${taskId} could not be claimed`, { cause: write.refusal });
    }
    return execution.cardTs;
  }

  /**
   * ExecutionRun saw the cancel and sent the interrupt: stamp `cancelFinalizedAt` (the card goes from 中止中... to
   * 中止). Only on a `cancelled` Execution, once: a retried call returns the stamped record with `applied: false`.
   */
  async finalizeCancel(taskId: string, executionNo: number, set: { writes?: Execution["writes"] } = {}): Promise<WriteResult<Execution>> {
    const now = this.table.now();
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.execution(taskId, executionNo),
          // `writes`: what the run wrote to freee before it stopped (the card says so).
          UpdateExpression: `SET cancelFinalizedAt = :now, updatedAt = :now${set.writes === undefined ? "" : ", writes = :writes"}`,
          ConditionExpression: "#status = :cancelled AND attribute_not_exists(cancelFinalizedAt)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":cancelled": "cancelled", ":now": now, ...(set.writes === undefined ? {} : { ":writes": set.writes }) },
          ReturnValues: "ALL_NEW",
        },
      },
      "finalizeCancel",
    );
    if (write.applied) return { record: parseRecord(ExecutionSchema, write.attributes, "execution"), applied: true };
    const existing = parseOrThrow(taskId, executionNo, await write.current());
    if (existing.cancelFinalizedAt !== undefined) return { record: existing, applied: false };
    throw new StateConflictError(`execution ${executionNo} of ${taskId} is ${existing.status}, not cancelled`, {
      cause: write.refusal,
      details: { taskId, executionNo, status: existing.status },
    });
  }
}

function parseOrThrow(taskId: string, executionNo: number, item: Item | undefined): Execution {
  if (item === undefined) throw executionNotFound(taskId, executionNo);
  return parseRecord(ExecutionSchema, item, "execution");
}

type ProgressPatch = { progress: ExecutionProgress; sessionId?: string; usage?: Execution["usage"]; agentFailure?: Execution["agentFailure"]; completion?: Execution["completion"] };

/** The progress write of a `running` Execution (refused once it is cancelled or finished). */
function progressWrite(table: ItemTable, taskId: string, executionNo: number, patch: ProgressPatch, returnValues?: "ALL_NEW"): ConditionalWrite {
  const { expression, names, values } = buildSet({ ...patch, updatedAt: table.now() });
  return {
    update: {
      Key: Keys.execution(taskId, executionNo),
      UpdateExpression: expression,
      ConditionExpression: "#status = :running",
      ExpressionAttributeNames: { ...names, "#status": "status" },
      ExpressionAttributeValues: { ...values, ":running": "running" },
      ...(returnValues === undefined ? {} : { ReturnValues: returnValues }),
    },
  };
}
