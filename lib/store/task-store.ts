import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from "@aws-sdk/lib-dynamodb";
import type { z } from "zod/mini";
import {
  assertTransition,
  canTransition,
  EXECUTION_STATUSES,
  TASK_STATUSES,
  VERSION_STATUSES,
  type ExecutionStatus,
  type Machine,
  type TaskStatus,
  type VersionStatus,
} from "../domain/status";
import {
  AuditEntrySchema,
  ExecutionSchema,
  executionIdFor,
  ProcessVersionSchema,
  PromptVersionSchema,
  TaskSchema,
  taskIdFor,
  type AuditEntry,
  type ApprovalSource,
  type Execution,
  type ExecutionProgress,
  type PendingAudit,
  type ProcessStep,
  type ProcessVersion,
  type PromptVersion,
  type SlackThread,
  type Task,
  type VersionKind,
} from "../domain/records";
import type { ProcessPreview } from "../domain/preview";
import { LimitReachedError, MalformedOutputError, RecordNotFoundError, StateConflictError } from "../errors/taxonomy";
import { Keys, TABLE_KEYS } from "./table";
import { isConditionFailure, translateDynamoError } from "./conditional";
import { listRecentTasksOf } from "./recent-tasks";

/** Result of a conditional write: `applied` is false when an earlier identical write had already done it. */
export interface WriteResult<T> {
  record: T;
  applied: boolean;
}

export interface TransitionOptions {
  /** Narrow the statuses the write may start from (default: every status the table allows to reach `to`). */
  from?: readonly string[];
  set?: Record<string, unknown>;
  remove?: readonly string[];
  /** Return the item as it was before the write (e.g. to read the task token that the write removes). */
  returnOld?: boolean;
}

export interface TaskHistory {
  task: Task;
  prompts: PromptVersion[];
  processes: ProcessVersion[];
  executions: Execution[];
  audit: AuditEntry[];
}

export interface NewTaskInput {
  thread: SlackThread;
  requesterId: string;
  requestText: string;
  pipelineExecutionName: string;
}

type Clock = () => Date;

const ALL_STATUSES: Record<Machine, readonly string[]> = {
  task: TASK_STATUSES,
  version: VERSION_STATUSES,
  execution: EXECUTION_STATUSES,
};

/**
 * The DynamoDB store of DESIGN §4. Every status change is a single-item conditional write; a retried call
 * that finds its own earlier write returns it with `applied: false` instead of failing or doing it twice.
 */
export class TaskStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly clock: Clock = () => new Date(),
  ) {}

  // ------------------------------------------------------------------ tasks

  /** One message → one task: the id derives from (team, channel, ts) and the put is conditional. */
  async createTask(input: NewTaskInput): Promise<WriteResult<Task>> {
    const now = this.now();
    const taskId = taskIdFor(input.thread);
    const task: Task = TaskSchema.parse({
      taskId,
      thread: input.thread,
      requesterId: input.requesterId,
      requestText: input.requestText,
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
    try {
      await this.doc.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: "attribute_not_exists(pk)" }),
      );
      return { record: task, applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "createTask");
      return { record: await this.getTaskOrThrow(taskId), applied: false };
    }
  }

  async getTask(taskId: string): Promise<Task | undefined> {
    const item = await this.get(Keys.task(taskId), "getTask");
    return item === undefined ? undefined : parseRecord(TaskSchema, item, "task");
  }

  async getTaskOrThrow(taskId: string): Promise<Task> {
    const task = await this.getTask(taskId);
    if (task === undefined) throw new RecordNotFoundError(`task ${taskId} not found`, { details: { taskId } });
    return task;
  }

  async transitionTask(taskId: string, to: TaskStatus, options: TransitionOptions = {}): Promise<WriteResult<Task>> {
    return this.transition("task", Keys.task(taskId), to, options, TaskSchema);
  }

  /** Non-status fields (L1 spec, card refs). Conditional on existence only. */
  async updateTask(taskId: string, set: Record<string, unknown>): Promise<Task> {
    const { expression, names, values } = buildSet({ ...set, updatedAt: this.now() });
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.task(taskId),
          UpdateExpression: expression,
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        }),
      );
      return parseRecord(TaskSchema, out.Attributes, "task");
    } catch (err) {
      if (isConditionFailure(err)) throw new RecordNotFoundError(`task ${taskId} not found`, { cause: err });
      throw translateDynamoError(err, "updateTask");
    }
  }

  /**
   * Claim the ts of one of the task's cards (`cards.task`, `cards.prompt`, `cards.process`). Conditional: the
   * slot must be empty, or hold `replacing` (a card message that was deleted). Returns the ts the task now holds —
   * when two refreshes raced, the loser gets the winner's ts back and removes its own duplicate message.
   */
  async setCardTs(taskId: string, card: "task" | "prompt" | "process", ts: string, replacing?: string): Promise<string> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.task(taskId),
          UpdateExpression: "SET cards.#card = :ts, updatedAt = :now",
          ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(cards.#card)${replacing === undefined ? "" : " OR cards.#card = :old"})`,
          ExpressionAttributeNames: { "#card": card },
          ExpressionAttributeValues: { ":ts": ts, ":now": this.now(), ...(replacing === undefined ? {} : { ":old": replacing }) },
        }),
      );
      return ts;
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "setCardTs");
      const task = await this.getTaskOrThrow(taskId);
      const held = task.cards[card];
      if (held === undefined) throw new StateConflictError(`card ${card} of ${taskId} could not be claimed`, { cause: err });
      return held;
    }
  }

  // ------------------------------------------------------------------ prompt / process versions

  /**
   * Start version N of a Prompt or Process (status `generating`) and make it the task's current one.
   * Version N exists at most once; a retried call gets the existing record back (`applied: false`).
   */
  async createVersion(
    kind: VersionKind,
    taskId: string,
    version: number,
    extra: { regeneratedFor?: string; basedOnPromptVersion?: number } = {},
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    const now = this.now();
    const record =
      kind === "prompt"
        ? PromptVersionSchema.parse({ kind, taskId, version, status: "generating", regeneratedFor: extra.regeneratedFor, createdAt: now, updatedAt: now })
        : ProcessVersionSchema.parse({
            kind,
            taskId,
            version,
            status: "generating",
            regeneratedFor: extra.regeneratedFor,
            basedOnPromptVersion: extra.basedOnPromptVersion,
            createdAt: now,
            updatedAt: now,
          });
    // The task first (seed §8 "FK"): no version is ever stored for a task that does not exist.
    const field = kind === "prompt" ? "currentPromptVersion" : "currentProcessVersion";
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.task(taskId),
          UpdateExpression: "SET #field = :v, updatedAt = :now",
          ConditionExpression: "attribute_exists(pk) AND #field <= :v",
          ExpressionAttributeNames: { "#field": field },
          ExpressionAttributeValues: { ":v": version, ":now": now },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "createVersion");
      // Either the task is missing (a bug upstream), or a later version is already current (a stale retry,
      // which still gets its own version record below).
      await this.getTaskOrThrow(taskId);
    }
    let applied = true;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Keys.version(taskId, kind, version), ...record },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "createVersion");
      applied = false;
    }
    if (applied) return { record, applied };
    return { record: await this.getVersionOrThrow(kind, taskId, version), applied: false };
  }

  async getVersion(kind: "prompt", taskId: string, version: number): Promise<PromptVersion | undefined>;
  async getVersion(kind: "process", taskId: string, version: number): Promise<ProcessVersion | undefined>;
  async getVersion(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion | undefined>;
  async getVersion(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion | undefined> {
    const item = await this.get(Keys.version(taskId, kind, version), "getVersion");
    if (item === undefined) return undefined;
    return kind === "prompt" ? parseRecord(PromptVersionSchema, item, "prompt") : parseRecord(ProcessVersionSchema, item, "process");
  }

  async getVersionOrThrow(kind: "prompt", taskId: string, version: number): Promise<PromptVersion>;
  async getVersionOrThrow(kind: "process", taskId: string, version: number): Promise<ProcessVersion>;
  async getVersionOrThrow(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion>;
  async getVersionOrThrow(kind: VersionKind, taskId: string, version: number): Promise<PromptVersion | ProcessVersion> {
    const record = await this.getVersion(kind, taskId, version);
    if (record === undefined) {
      throw new RecordNotFoundError(`${kind} v${version} of task ${taskId} not found`, { details: { taskId, kind, version } });
    }
    return record;
  }

  /**
   * Store the generated content of a version that is still `generating`. Idempotent: content already stored
   * (a retried Lambda after a successful write) is returned as is, and the model is not asked again.
   */
  async saveVersionContent(
    kind: VersionKind,
    taskId: string,
    version: number,
    content: { text: string } | { steps: ProcessStep[] },
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    const field = "text" in content ? "text" : "steps";
    const value = "text" in content ? content.text : content.steps;
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.version(taskId, kind, version),
          UpdateExpression: "SET #field = :value, updatedAt = :now",
          ConditionExpression: "#status = :generating AND attribute_not_exists(#field)",
          ExpressionAttributeNames: { "#field": field, "#status": "status" },
          ExpressionAttributeValues: { ":value": value, ":generating": "generating", ":now": this.now() },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: this.parseVersion(kind, out.Attributes), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "saveVersionContent");
      const existing = await this.getVersionOrThrow(kind, taskId, version);
      const stored = kind === "prompt" ? (existing as PromptVersion).text : (existing as ProcessVersion).steps;
      if (stored !== undefined) return { record: existing, applied: false };
      throw new StateConflictError(`${kind} v${version} is ${existing.status}, not generating`, {
        cause: err,
        details: { taskId, kind, version, status: existing.status },
      });
    }
  }

  /**
   * Store the preview of a Process version still `generating` (lib/preview): the steps with the ids their names
   * resolved to, and what each write will change. Idempotent: a preview already stored (a retried Lambda after
   * a successful write) is returned as is, and freee is not read again.
   */
  async saveProcessPreview(
    taskId: string,
    version: number,
    content: { steps: ProcessStep[]; preview: ProcessPreview; approvableVia: ApprovalSource[] },
  ): Promise<WriteResult<ProcessVersion>> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.version(taskId, "process", version),
          UpdateExpression: "SET steps = :steps, preview = :preview, approvableVia = :via, updatedAt = :now",
          ConditionExpression: "#status = :generating AND attribute_exists(steps) AND attribute_not_exists(preview)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":steps": content.steps, ":preview": content.preview, ":via": content.approvableVia, ":generating": "generating", ":now": this.now() },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: this.parseVersion("process", out.Attributes) as ProcessVersion, applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "saveProcessPreview");
      const existing = await this.getVersionOrThrow("process", taskId, version);
      if (existing.preview !== undefined) return { record: existing, applied: false };
      throw new StateConflictError(`process v${version} is ${existing.status}${existing.steps === undefined ? " without steps" : ""}: no preview can be stored`, {
        cause: err,
        details: { taskId, version, status: existing.status },
      });
    }
  }

  /**
   * Open the approval of a version: `generating → pending_approval` with the Step Functions task token. A
   * retried approval task gets a new token; it replaces the old one while the version is still pending.
   */
  /**
   * `owner` (the task's workspace and requester) goes on the version item, so a click's decision is one
   * conditional write on it (lib/store/decision.ts) without reading the task first.
   */
  async openApproval(
    kind: VersionKind,
    taskId: string,
    version: number,
    taskToken: string,
    owner?: { teamId: string; requesterId: string },
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    const key = Keys.version(taskId, kind, version);
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET #status = :pending, taskToken = :token, updatedAt = :now${owner === undefined ? "" : ", teamId = :team, requesterId = :requester"}`,
          ConditionExpression: "#status IN (:generating, :pending) AND (attribute_exists(#text) OR attribute_exists(#steps))",
          ExpressionAttributeNames: { "#status": "status", "#text": "text", "#steps": "steps" },
          ExpressionAttributeValues: {
            ":pending": "pending_approval",
            ":generating": "generating",
            ":token": taskToken,
            ":now": this.now(),
            ...(owner === undefined ? {} : { ":team": owner.teamId, ":requester": owner.requesterId }),
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: this.parseVersion(kind, out.Attributes), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "openApproval");
      const existing = await this.getVersionOrThrow(kind, taskId, version);
      throw new StateConflictError(`${kind} v${version} cannot await approval from ${existing.status}`, {
        cause: err,
        details: { taskId, kind, version, status: existing.status },
      });
    }
  }

  /**
   * Undo a decision whose resume failed (SendTaskSuccess refused for a transient reason): the version goes back
   * to `pending_approval` with its task token, so the next click resumes the pipeline instead of finding the
   * step "already decided" while the pipeline still waits. Only the decision this caller wrote (its
   * `decidedAt`) is undone; this is a compensation, not a transition a user can make.
   */
  async reopenApproval(
    kind: VersionKind,
    taskId: string,
    version: number,
    undo: { taskToken: string; decidedAt: string },
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.version(taskId, kind, version),
          UpdateExpression: "SET #status = :pending, taskToken = :token, updatedAt = :now REMOVE decision",
          ConditionExpression: "#status IN (:approved, :rejected) AND decision.decidedAt = :decidedAt",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: {
            ":pending": "pending_approval",
            ":approved": "approved",
            ":rejected": "rejected",
            ":token": undo.taskToken,
            ":decidedAt": undo.decidedAt,
            ":now": this.now(),
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: this.parseVersion(kind, out.Attributes), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "reopenApproval");
      return { record: await this.getVersionOrThrow(kind, taskId, version), applied: false };
    }
  }

  async transitionVersion(
    kind: VersionKind,
    taskId: string,
    version: number,
    to: VersionStatus,
    options: TransitionOptions = {},
  ): Promise<WriteResult<PromptVersion | ProcessVersion>> {
    const schema = kind === "prompt" ? PromptVersionSchema : ProcessVersionSchema;
    return this.transition("version", Keys.version(taskId, kind, version), to, options, schema as z.ZodMiniType<PromptVersion | ProcessVersion>);
  }

  // ------------------------------------------------------------------ executions

  /**
   * Claim the next Execution number: the task moves to `executing` and its execution count rises by one in
   * one conditional write, so a double click on [再実行] cannot start two runs, and the rerun limit holds.
   * When the task is already `executing`, the claimed number is returned with `applied: false`.
   */
  async allocateExecution(
    taskId: string,
    options: { from: readonly TaskStatus[]; maxExecutions: number; set?: Record<string, unknown> },
  ): Promise<{ task: Task; executionNo: number; applied: boolean }> {
    for (const from of options.from) assertTransition("task", from, "executing");
    const fromValues = Object.fromEntries(options.from.map((s, i) => [`:from${i}`, s]));
    const extra = buildSet(options.set ?? {}, "x");
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.task(taskId),
          UpdateExpression: `SET #status = :executing, executionCount = executionCount + :one, updatedAt = :now${extra.assignments.length > 0 ? ", " + extra.assignments.join(", ") : ""}`,
          ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(fromValues).join(", ")}) AND executionCount < :max`,
          ExpressionAttributeNames: { "#status": "status", ...extra.names },
          ExpressionAttributeValues: { ":executing": "executing", ":one": 1, ":max": options.maxExecutions, ":now": this.now(), ...fromValues, ...extra.values },
          ReturnValues: "ALL_NEW",
        }),
      );
      const task = parseRecord(TaskSchema, out.Attributes, "task");
      return { task, executionNo: task.executionCount, applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "allocateExecution");
      const task = await this.getTaskOrThrow(taskId);
      // Already executing: a retried start (or a second click racing the first) resumes the claimed run,
      // whose record, audit entry and ExecutionRun start are all idempotent.
      if (task.status === "executing" && task.executionCount > 0) {
        return { task, executionNo: task.executionCount, applied: false };
      }
      if (options.from.includes(task.status) && task.executionCount >= options.maxExecutions) {
        throw new LimitReachedError(`task ${taskId} has used all ${options.maxExecutions} runs`, {
          limit: "reruns",
          cause: err,
          details: { taskId, executionCount: task.executionCount },
        });
      }
      throw new StateConflictError(`task ${taskId} is ${task.status}; cannot start a run`, {
        cause: err,
        details: { taskId, status: task.status },
      });
    }
  }

  /** Create Execution N (status `pending`); a retried call gets the existing record back. */
  async createExecution(
    taskId: string,
    input: { executionNo: number; processVersion: number; startedBy: string; startAudit?: PendingAudit },
  ): Promise<WriteResult<Execution>> {
    const now = this.now();
    const record = ExecutionSchema.parse({
      startAudit: input.startAudit,
      taskId,
      executionNo: input.executionNo,
      executionId: executionIdFor(taskId, input.executionNo),
      processVersion: input.processVersion,
      status: "pending",
      startedBy: input.startedBy,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Keys.execution(taskId, input.executionNo), ...record },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return { record, applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "createExecution");
      return { record: await this.getExecutionOrThrow(taskId, input.executionNo), applied: false };
    }
  }

  async getExecution(taskId: string, executionNo: number): Promise<Execution | undefined> {
    const item = await this.get(Keys.execution(taskId, executionNo), "getExecution");
    return item === undefined ? undefined : parseRecord(ExecutionSchema, item, "execution");
  }

  async getExecutionOrThrow(taskId: string, executionNo: number): Promise<Execution> {
    const record = await this.getExecution(taskId, executionNo);
    if (record === undefined) {
      throw new RecordNotFoundError(`execution ${executionNo} of task ${taskId} not found`, { details: { taskId, executionNo } });
    }
    return record;
  }

  async transitionExecution(
    taskId: string,
    executionNo: number,
    to: ExecutionStatus,
    options: TransitionOptions = {},
  ): Promise<WriteResult<Execution>> {
    return this.transition("execution", Keys.execution(taskId, executionNo), to, options, ExecutionSchema);
  }

  /**
   * Progress of a running Execution. Written only while `running`: once cancelled or finished the write is
   * refused and the current record is returned, which is how the poll loop learns of a cancel.
   */
  async recordProgress(
    taskId: string,
    executionNo: number,
    patch: { progress: ExecutionProgress; sessionId?: string; usage?: Execution["usage"]; agentFailure?: Execution["agentFailure"]; completion?: Execution["completion"] },
  ): Promise<WriteResult<Execution>> {
    const { expression, names, values } = buildSet({ ...patch, updatedAt: this.now() });
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: expression,
          ConditionExpression: "#status = :running",
          ExpressionAttributeNames: { ...names, "#status": "status" },
          ExpressionAttributeValues: { ...values, ":running": "running" },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: parseRecord(ExecutionSchema, out.Attributes, "execution"), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "recordProgress");
      return { record: await this.getExecutionOrThrow(taskId, executionNo), applied: false };
    }
  }

  /**
   * The freee MCP server saw a fault no tool result can recover from (the connection failed, AuthError): it is
   * stamped on the Execution while the run is live, once, for the next poll to end the run with it. False when the
   * run is no longer live or a fault is already recorded.
   */
  async recordRunFault(taskId: string, executionNo: number, fault: NonNullable<Execution["fault"]>): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET fault = :fault, updatedAt = :now",
          ConditionExpression: "#status IN (:pending, :running) AND attribute_not_exists(fault)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":fault": fault, ":pending": "pending", ":running": "running", ":now": this.now() },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw translateDynamoError(err, "recordRunFault");
    }
  }

  /** The completion contract's verdict on a running Execution (before it is completed or failed). */
  async recordCompletion(taskId: string, executionNo: number, completion: NonNullable<Execution["completion"]>): Promise<WriteResult<Execution>> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET completion = :completion, updatedAt = :now",
          ConditionExpression: "#status = :running",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":completion": completion, ":running": "running", ":now": this.now() },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: parseRecord(ExecutionSchema, out.Attributes, "execution"), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "recordCompletion");
      return { record: await this.getExecutionOrThrow(taskId, executionNo), applied: false };
    }
  }

  /** Claim the card ts of an Execution (its own message in the thread); same rules as `setCardTs`. */
  async setExecutionCardTs(taskId: string, executionNo: number, ts: string, replacing?: string): Promise<string> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET cardTs = :ts, updatedAt = :now",
          ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(cardTs)${replacing === undefined ? "" : " OR cardTs = :old"})`,
          ExpressionAttributeValues: { ":ts": ts, ":now": this.now(), ...(replacing === undefined ? {} : { ":old": replacing }) },
        }),
      );
      return ts;
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "setExecutionCardTs");
      const execution = await this.getExecutionOrThrow(taskId, executionNo);
      if (execution.cardTs === undefined) throw new StateConflictError(`card of execution ${executionNo} of ${taskId} could not be claimed`, { cause: err });
      return execution.cardTs;
    }
  }

  /**
   * ExecutionRun saw the cancel and sent the interrupt: stamp `cancelFinalizedAt` (the card goes from 中止中... to
   * 中止). Only on a `cancelled` Execution, once: a retried call returns the stamped record with `applied: false`.
   */
  async finalizeCancel(taskId: string, executionNo: number): Promise<WriteResult<Execution>> {
    const now = this.now();
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.execution(taskId, executionNo),
          UpdateExpression: "SET cancelFinalizedAt = :now, updatedAt = :now",
          ConditionExpression: "#status = :cancelled AND attribute_not_exists(cancelFinalizedAt)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":cancelled": "cancelled", ":now": now },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { record: parseRecord(ExecutionSchema, out.Attributes, "execution"), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "finalizeCancel");
      const existing = await this.getExecutionOrThrow(taskId, executionNo);
      if (existing.cancelFinalizedAt !== undefined) return { record: existing, applied: false };
      throw new StateConflictError(`execution ${executionNo} of ${taskId} is ${existing.status}, not cancelled`, {
        cause: err,
        details: { taskId, executionNo, status: existing.status },
      });
    }
  }

  // ------------------------------------------------------------------ audit

  /** Append an audit entry once: the key derives from what it records, so a retried step does not duplicate it. */
  async appendAudit(entry: AuditEntry): Promise<WriteResult<AuditEntry>> {
    const record = AuditEntrySchema.parse(entry);
    const item = {
      ...Keys.audit(record.taskId, record.teamId, record.auditKey),
      [TABLE_KEYS.byTeamPartitionKey]: Keys.teamAuditIndex(record.teamId),
      [TABLE_KEYS.byTeamSortKey]: `${record.at}#${record.taskId ?? "-"}#${record.auditKey}`,
      recordType: "audit",
      ...record,
    };
    try {
      await this.doc.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: "attribute_not_exists(pk)" }),
      );
      return { record, applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "appendAudit");
      const existing = await this.get(Keys.audit(record.taskId, record.teamId, record.auditKey), "appendAudit");
      return { record: parseRecord(AuditEntrySchema, existing, "audit"), applied: false };
    }
  }

  /** Audit entries of a workspace in a time window, oldest first (GSI byTeam). */
  async listAuditByTeam(teamId: string, window: { since?: string; until?: string; limit?: number } = {}): Promise<AuditEntry[]> {
    const since = window.since ?? "0000";
    const until = `${window.until ?? "9999"}\uffff`;
    const items = await this.queryAll(
      {
        IndexName: TABLE_KEYS.byTeamIndex,
        KeyConditionExpression: "#gpk = :gpk AND #gsk BETWEEN :since AND :until",
        ExpressionAttributeNames: { "#gpk": TABLE_KEYS.byTeamPartitionKey, "#gsk": TABLE_KEYS.byTeamSortKey },
        ExpressionAttributeValues: { ":gpk": Keys.teamAuditIndex(teamId), ":since": since, ":until": until },
      },
      window.limit,
    );
    return items.map((item) => parseRecord(AuditEntrySchema, item, "audit"));
  }

  /** A workspace's most recent tasks, newest first (GSI byTeam). */
  async listRecentTasks(teamId: string, limit = 20): Promise<Task[]> {
    const items = await this.queryAll(
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

  /** One member's most recent tasks in a workspace, newest first (App Home for a member: recent-tasks.ts). */
  listRecentTasksBy(teamId: string, requesterId: string, limit = 10): Promise<Task[]> {
    return listRecentTasksOf(this.doc, this.tableName, { teamId, requesterId, limit });
  }

  // ------------------------------------------------------------------ history

  /** The whole history of a task from one Query on its partition (paged only past 1 MB). */
  /**
   * `cardsOnly`: what the cards show (task, versions, executions) and nothing else. The sort keys put them in one
   * range, EXEC# … META … PROCESS# … PROMPT#, between the AUDIT# and WRITE# items, which are never read for it.
   */
  async loadHistory(taskId: string, options: { cardsOnly?: boolean } = {}): Promise<TaskHistory> {
    const items = await this.queryAll(
      options.cardsOnly === true
        ? {
            KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
            ExpressionAttributeValues: { ":pk": Keys.taskPartition(taskId), ":from": "EXEC#", ":to": "PROMPT#\uffff" },
          }
        : { KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": Keys.taskPartition(taskId) } },
    );
    let task: Task | undefined;
    const history: Omit<TaskHistory, "task"> = { prompts: [], processes: [], executions: [], audit: [] };
    for (const item of items) {
      const sk = String(item.sk);
      if (sk === "META") task = parseRecord(TaskSchema, item, "task");
      else if (sk.startsWith("PROMPT#")) history.prompts.push(parseRecord(PromptVersionSchema, item, "prompt"));
      else if (sk.startsWith("PROCESS#")) history.processes.push(parseRecord(ProcessVersionSchema, item, "process"));
      else if (sk.startsWith("EXEC#")) history.executions.push(parseRecord(ExecutionSchema, item, "execution"));
      else if (sk.startsWith("AUDIT#")) history.audit.push(parseRecord(AuditEntrySchema, item, "audit"));
    }
    if (task === undefined) throw new RecordNotFoundError(`task ${taskId} not found`, { details: { taskId } });
    history.audit.sort((a, b) => a.at.localeCompare(b.at) || a.auditKey.localeCompare(b.auditKey));
    return { task, ...history };
  }

  // ------------------------------------------------------------------ internals

  private async transition<T>(
    machine: Machine,
    key: { pk: string; sk: string },
    to: string,
    options: TransitionOptions,
    schema: z.ZodMiniType<T>,
  ): Promise<WriteResult<T>> {
    const from = options.from ?? ALL_STATUSES[machine].filter((s) => canTransition(machine, s, to));
    for (const f of from) assertTransition(machine, f, to);
    if (from.length === 0) assertTransition(machine, "(none)", to);
    const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
    const set = buildSet({ ...(options.set ?? {}), updatedAt: this.now() }, "s");
    const removeNames = Object.fromEntries((options.remove ?? []).map((name, i) => [`#r${i}`, name]));
    const removeClause = Object.keys(removeNames).length > 0 ? ` REMOVE ${Object.keys(removeNames).join(", ")}` : "";
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET #status = :to, ${set.assignments.join(", ")}${removeClause}`,
          ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(fromValues).join(", ")})`,
          ExpressionAttributeNames: { "#status": "status", ...set.names, ...removeNames },
          ExpressionAttributeValues: { ":to": to, ...fromValues, ...set.values },
          ReturnValues: options.returnOld ? "ALL_OLD" : "ALL_NEW",
        }),
      );
      return { record: parseRecord(schema, out.Attributes, machine), applied: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, `transition ${machine}`);
      const existing = await this.get(key, `transition ${machine}`);
      if (existing === undefined) {
        throw new RecordNotFoundError(`${machine} ${key.pk}/${key.sk} not found`, { cause: err, details: { ...key } });
      }
      if (existing.status === to) return { record: parseRecord(schema, existing, machine), applied: false };
      throw new StateConflictError(`${machine} is ${String(existing.status)}; expected ${from.join("|")} to move to ${to}`, {
        cause: err,
        details: { ...key, expected: from, actual: existing.status, to },
      });
    }
  }

  private parseVersion(kind: VersionKind, item: unknown): PromptVersion | ProcessVersion {
    return kind === "prompt" ? parseRecord(PromptVersionSchema, item, "prompt") : parseRecord(ProcessVersionSchema, item, "process");
  }

  private async get(key: { pk: string; sk: string }, where: string): Promise<Record<string, unknown> | undefined> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      return out.Item;
    } catch (err) {
      throw translateDynamoError(err, where);
    }
  }

  private async queryAll(
    input: Omit<ConstructorParameters<typeof QueryCommand>[0], "TableName">,
    limit?: number,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      try {
        const out = await this.doc.send(
          new QueryCommand({
            ...input,
            TableName: this.tableName,
            ExclusiveStartKey: startKey,
            ...(limit === undefined ? {} : { Limit: limit - items.length }),
          }),
        );
        items.push(...(out.Items ?? []));
        startKey = out.LastEvaluatedKey;
      } catch (err) {
        throw translateDynamoError(err, "query");
      }
    } while (startKey !== undefined && (limit === undefined || items.length < limit));
    return items;
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

function buildSet(fields: Record<string, unknown>, prefix = "f") {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments: string[] = [];
  Object.entries(fields).forEach(([field, value], i) => {
    if (value === undefined) return;
    names[`#${prefix}${i}`] = field;
    values[`:${prefix}${i}`] = value;
    assignments.push(`#${prefix}${i} = :${prefix}${i}`);
  });
  return { names, values, assignments, expression: `SET ${assignments.join(", ")}` };
}

function parseRecord<T>(schema: z.ZodMiniType<T>, item: unknown, what: string): T {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    throw new MalformedOutputError(`stored ${what} does not match its schema`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`) },
    });
  }
  return parsed.data;
}
