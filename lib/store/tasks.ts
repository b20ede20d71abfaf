import { TaskSchema, taskIdFor, type AuditEntry, type SlackFileRef, type SlackThread, type Task } from "../core/domain/records";
import type { TaskStatus } from "../core/domain/status";
import { RecordNotFoundError, StateConflictError } from "../core/errors/taxonomy";
import { writeAudited } from "./audit-entries";
import { buildSet, parseRecord, type EntryState, type ItemTable, type WriteResult } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";
import { transition, type TransitionOptions } from "./transition";

export interface NewTaskInput {
  thread: SlackThread;
  requesterId: string;
  requestText: string;
  attachments?: SlackFileRef[];
  pipelineExecutionName: string;
}

export function taskNotFound(taskId: string, cause?: unknown): RecordNotFoundError {
  return new RecordNotFoundError(`task ${taskId} not found`, { ...(cause === undefined ? {} : { cause }), details: { taskId } });
}

/** The task item (`TASK#id` / `META`): the request, its status, the current version pointers and card refs. */
export class TaskItems {
  constructor(private readonly table: ItemTable) {}

  /**
   * One message → one task: the id derives from (team, channel, ts) and the put is conditional. `entry` (its
   * `task.created` audit entry) goes in the same transaction; `entry` in the result says what became of it.
   */
  async create(input: NewTaskInput, entry?: AuditEntry): Promise<WriteResult<Task> & { entry?: EntryState }> {
    const now = this.table.now();
    const taskId = taskIdFor(input.thread);
    const task: Task = TaskSchema.parse({
      taskId,
      thread: input.thread,
      requesterId: input.requesterId,
      requestText: input.requestText,
      ...(input.attachments === undefined || input.attachments.length === 0 ? {} : { attachments: input.attachments }),
      status: "analyzing",
      currentPromptVersion: 0,
      currentProcessVersion: 0,
      executionCount: 0,
      cards: {},
      pipelineExecutionName: input.pipelineExecutionName,
      createdAt: now,
      updatedAt: now,
    });
    const item = {
      ...Keys.task(taskId),
      [TABLE_KEYS.byTeamPartitionKey]: Keys.teamTasksIndex(input.thread.teamId),
      [TABLE_KEYS.byTeamSortKey]: `${now}#${taskId}`,
      ...task,
    };
    const { outcome: write, ...audited } = await writeAudited(this.table, { put: { Item: item, ConditionExpression: "attribute_not_exists(pk)" } }, "createTask", entry);
    if (write.applied) return { record: task, applied: true, ...audited };
    const existing = await write.current();
    if (existing === undefined) throw taskNotFound(taskId);
    return { record: parseRecord(TaskSchema, existing, "task"), applied: false, ...audited };
  }

  async get(taskId: string): Promise<Task | undefined> {
    const item = await this.table.get(Keys.task(taskId), "getTask");
    return item === undefined ? undefined : parseRecord(TaskSchema, item, "task");
  }

  async getOrThrow(taskId: string): Promise<Task> {
    const task = await this.get(taskId);
    if (task === undefined) throw taskNotFound(taskId);
    return task;
  }

  transition(taskId: string, to: TaskStatus, options: TransitionOptions = {}): Promise<WriteResult<Task>> {
    return transition(this.table, "task", Keys.task(taskId), to, options, TaskSchema);
  }

  /** Non-status fields (L1 spec, card refs). Conditional on existence only. */
  async update(taskId: string, set: Record<string, unknown>): Promise<Task> {
    const { expression, names, values } = buildSet({ ...set, updatedAt: this.table.now() });
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.task(taskId),
          UpdateExpression: expression,
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        },
      },
      "updateTask",
    );
    if (!write.applied) throw new RecordNotFoundError(`task ${taskId} not found`, { cause: write.refusal });
    return parseRecord(TaskSchema, write.attributes, "task");
  }

  /**
   * Claim the ts of one of the task's cards (`cards.task`, `cards.prompt`, `cards.process`). Conditional: the
   * slot must be empty, or hold `replacing` (a card message that was deleted). Returns the ts the task now holds —
   * when two refreshes raced, the loser gets the winner's ts back and removes its own duplicate message.
   */
  async setCardTs(taskId: string, card: "task" | "prompt" | "process", ts: string, replacing?: string): Promise<string> {
    const write = await this.table.writeIf(
      {
        update: {
          Key: Keys.task(taskId),
          UpdateExpression: "SET cards.#card = :ts, updatedAt = :now",
          ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(cards.#card)${replacing === undefined ? "" : " OR cards.#card = :old"})`,
          ExpressionAttributeNames: { "#card": card },
          ExpressionAttributeValues: { ":ts": ts, ":now": this.table.now(), ...(replacing === undefined ? {} : { ":old": replacing }) },
        },
      },
      "setCardTs",
    );
    if (write.applied) return ts;
    const existing = await write.current();
    if (existing === undefined) throw taskNotFound(taskId);
    const held = parseRecord(TaskSchema, existing, "task").cards[card];
    if (held === undefined) throw new StateConflictError(`card ${card} of ${taskId} could not be claimed`, { cause: write.refusal });
    return held;
  }

  /** A workspace's most recent tasks, newest first (GSI byTeam). */
  async listRecent(teamId: string, limit = 20): Promise<Task[]> {
    const items = await this.table.query(
      {
        IndexName: TABLE_KEYS.byTeamIndex,
        KeyConditionExpression: "#gpk = :gpk",
        ExpressionAttributeNames: { "#gpk": TABLE_KEYS.byTeamPartitionKey },
        ExpressionAttributeValues: { ":gpk": Keys.teamTasksIndex(teamId) },
        ScanIndexForward: false,
      },
      limit,
    );
    return items.map((item) => parseRecord(TaskSchema, item, "task"));
  }
}
