import type { ApprovalRule } from "../core/domain/approval-policy";
import type { z } from "zod/mini";
import type { ProcessPreview } from "../core/domain/preview";
import {
  ProcessVersionSchema,
  PromptVersionSchema,
  TaskSchema,
  type Task,
  type ApprovalSource,
  type AuditEntry,
  type Decision,
  type ProcessStep,
  type ProcessVersion,
  type PromptVersion,
  type VersionKind,
} from "../core/domain/records";
import type { VersionStatus } from "../core/domain/status";
import { RecordNotFoundError, StateConflictError } from "../core/errors/taxonomy";
import { auditItem, writeAudited } from "./audit-entries";
import { parseRecord, type ConditionalWrite, type EntryState, type Item, type ItemTable, type WriteOutcome, type WriteResult } from "./item-table";
import { Keys } from "./table";
import { decisionAudit } from "../core/domain/audit-promises";
import { taskNotFound } from "./tasks";
import { transition, type TransitionOptions } from "./transition";

type AnyVersion = PromptVersion | ProcessVersion;

export function versionNotFound(kind: VersionKind, taskId: string, version: number): RecordNotFoundError {
  return new RecordNotFoundError(`${kind} v${version} of task ${taskId} not found`, { details: { taskId, kind, version } });
}

/** The Prompt and Process version items (`PROMPT#n` / `PROCESS#n` in the task's partition), with their approvals. */
export class VersionItems {
  constructor(private readonly table: ItemTable) {}

  /**
   * Start version N of a Prompt or Process (status `generating`) and make it the task's current one.
   * Version N exists at most once; a retried call gets the existing record back (`applied: false`).
   * `task`: the task as the pointer write left it (its card is drawn from it), absent when that write was refused.
   */
  async create(
    kind: VersionKind,
    taskId: string,
    version: number,
    extra: { regeneratedFor?: string; basedOnPromptVersion?: number } = {},
    entry?: AuditEntry,
    /** The task as the step just read it: the pointer then rides the version's transaction. */
    heldTask?: Task,
  ): Promise<WriteResult<AnyVersion> & { task?: Task; entry?: EntryState }> {
    const now = this.table.now();
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
    const field = kind === "prompt" ? "currentPromptVersion" : "currentProcessVersion";
    const pointerUpdate = {
      Key: Keys.task(taskId),
      UpdateExpression: "SET #field = :v, updatedAt = :now",
      ConditionExpression: "attribute_exists(pk) AND #field <= :v",
      ExpressionAttributeNames: { "#field": field },
      ExpressionAttributeValues: { ":v": version, ":now": now },
    };
    const versionPut = { put: { Item: { ...Keys.version(taskId, kind, version), ...record }, ConditionExpression: "attribute_not_exists(pk)" } };
    if (heldTask !== undefined) {
      // The step read the task just before: the version, its entry and the pointer in one transaction. A pointer
      // refused (a later version is current: a stale retry) leaves the version created, as below.
      const { outcome: put, entries, alongside } = await this.table.writeWithEntries(versionPut, entry === undefined ? [] : [auditItem(entry)], "createVersion", { update: pointerUpdate });
      const task = alongside === "applied" ? { task: parseRecord(TaskSchema, { ...heldTask, [field]: version, updatedAt: now }, "task") } : {};
      const audited = entry === undefined ? {} : { entry: entries[0]! };
      if (put.applied) return { record, applied: true, ...task, ...audited };
      return { record: this.parseOrThrow(kind, taskId, version, await put.current()), applied: false, ...task, ...audited };
    }
    // The task first (docs/architecture.md, data model): no version is ever stored for a task that does not exist.
    const pointer = await this.table.writeIf({ update: { ...pointerUpdate, ReturnValues: "ALL_NEW" } }, "createVersion");
    const task = pointer.applied ? { task: parseRecord(TaskSchema, pointer.attributes, "task") } : {};
    // Refused: either the task is missing (a bug upstream), or a later version is already current (a stale
    // retry, which still gets its own version record below).
    if (!pointer.applied && (await pointer.current()) === undefined) throw taskNotFound(taskId);
    // `entry` (what the version is made after: the decision that approved the Prompt) is written with it, in one transaction.
    const { outcome: put, ...audited } = await writeAudited(this.table, versionPut, "createVersion", entry);
    if (put.applied) return { record, applied: true, ...task, ...audited };
    return { record: this.parseOrThrow(kind, taskId, version, await put.current()), applied: false, ...task, ...audited };
  }

  async get(kind: VersionKind, taskId: string, version: number): Promise<AnyVersion | undefined> {
    const item = await this.table.get(Keys.version(taskId, kind, version), "getVersion");
    return item === undefined ? undefined : parseVersion(kind, item);
  }

  async getOrThrow(kind: VersionKind, taskId: string, version: number): Promise<AnyVersion> {
    const record = await this.get(kind, taskId, version);
    if (record === undefined) throw versionNotFound(kind, taskId, version);
    return record;
  }

  /**
   * Store the generated content of a version that is still `generating`. Idempotent: content already stored
   * (a retried Lambda after a successful write) is returned as is, and the model is not asked again.
   */
  async saveContent(
    kind: VersionKind,
    taskId: string,
    version: number,
    content: { text: string } | { steps: ProcessStep[] },
  ): Promise<WriteResult<AnyVersion>> {
    const write = await this.table.writeIf(contentWrite(this.table, kind, taskId, version, content, "ALL_NEW"), "saveVersionContent");
    if (write.applied) return { record: parseVersion(kind, write.attributes), applied: true };
    return this.storedContent(kind, taskId, version, write);
  }

  /**
   * `saveContent` with its audit entry (`prompt.generated`, `process.generated`) in the same transaction. Returns
   * no record when it applied (a transaction returns none): the caller holds the content it stored.
   */
  async saveContentWithEntry(
    kind: VersionKind,
    taskId: string,
    version: number,
    content: { text: string } | { steps: ProcessStep[] },
    entry: AuditEntry,
    alongside?: ConditionalWrite,
  ): Promise<{ applied: boolean; entry: EntryState; alongside?: "applied" | "refused" }> {
    const { outcome, entries, alongside: moved } = await this.table.writeWithEntries(contentWrite(this.table, kind, taskId, version, content), [auditItem(entry)], "saveVersionContent", alongside);
    if (!outcome.applied) await this.storedContent(kind, taskId, version, outcome);
    return { applied: outcome.applied, entry: entries[0]!, ...(moved === undefined ? {} : { alongside: moved }) };
  }

  /** A refused content write: the content an earlier attempt stored, else StateConflictError. */
  private async storedContent(kind: VersionKind, taskId: string, version: number, write: WriteOutcome & { applied: false }): Promise<WriteResult<AnyVersion>> {
    const existing = this.parseOrThrow(kind, taskId, version, await write.current());
    const stored = kind === "prompt" ? (existing as PromptVersion).text : (existing as ProcessVersion).steps;
    if (stored !== undefined) return { record: existing, applied: false };
    throw new StateConflictError(`${kind} v${version} is ${existing.status}, not generating`, {
      cause: write.refusal,
      details: { taskId, kind, version, status: existing.status },
    });
  }

  /**
   * Store the preview of a Process version still `generating` (lib/preview): the steps with the ids their names
   * resolved to, what each write will change, and where its approver can see it whole. Idempotent: a preview
   * already stored (a retried Lambda after a successful write) is returned as is, and freee is not read again.
   * `entry` (its `process.previewed` audit entry) goes in the same transaction: then no record is returned when it
   * applied (the caller holds what it stored), and `entry` says what became of the entry.
   */
  async saveProcessPreview(
    taskId: string,
    version: number,
    content: { steps: ProcessStep[]; preview: ProcessPreview; approvableVia: ApprovalSource[]; approvalRule?: ApprovalRule; decision?: Decision },
    entry?: AuditEntry,
  ): Promise<{ record?: ProcessVersion; applied: boolean; entry?: EntryState }> {
    const { approvalRule: rule, decision } = content;
    // A plan that only reads carries its approval-policy snapshot from here; one the policy lets run on its
    // 実行方針 approval is decided by this write (`generating → approved`), its audit entry promised as a click's.
    const set = [
      "steps = :steps, preview = :preview, approvableVia = :via, updatedAt = :now",
      ...(rule === undefined ? [] : ["approvalRule = :rule"]),
      ...(decision === undefined ? [] : ["#status = :approved, decision = :decision, decisionAudit = :audit"]),
    ];
    const write: ConditionalWrite = {
      update: {
        Key: Keys.version(taskId, "process", version),
        UpdateExpression: `SET ${set.join(", ")}`,
        ConditionExpression: "#status = :generating AND attribute_exists(steps) AND attribute_not_exists(preview)",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":steps": content.steps,
          ":preview": content.preview,
          ":via": content.approvableVia,
          ":generating": "generating",
          ":now": this.table.now(),
          ...(rule === undefined ? {} : { ":rule": rule }),
          ...(decision === undefined ? {} : { ":approved": "approved", ":decision": decision, ":audit": decisionAudit("process", version, decision) }),
        },
        ReturnValues: "ALL_NEW",
      },
    };
    const { outcome, ...audited } = await writeAudited(this.table, write, "saveProcessPreview", entry);
    if (outcome.applied) {
      return { ...(outcome.attributes === undefined ? {} : { record: parseVersion("process", outcome.attributes) as ProcessVersion }), applied: true, ...audited };
    }
    const existing = this.parseOrThrow("process", taskId, version, await outcome.current()) as ProcessVersion;
    if (existing.preview !== undefined) return { record: existing, applied: false, ...audited };
    throw new StateConflictError(`process v${version} is ${existing.status}${existing.steps === undefined ? " without steps" : ""}: no preview can be stored`, {
      cause: outcome.refusal,
      details: { taskId, version, status: existing.status },
    });
  }

  /**
   * Open the approval of a version: `generating → pending_approval` with the Step Functions task token. A
   * retried approval task gets a new token; it replaces the old one while the version is still pending.
   * `owner` (the task's workspace and requester) goes on the version item, so a click's decision is one
   * conditional write on it (lib/store/decision.ts) without reading the task first.
   */
  /**
   * The version awaits approval with its task token, bound to the task's workspace and requester (`owner`).
   * With `carry` (the version the step just read, and the `approval_requested` entry), the write and the entry are
   * one transaction and the record is the held version with the change applied (a transaction returns no item;
   * the condition pins the statuses it may start from, and the content is written once before).
   */
  async openApproval(
    kind: VersionKind,
    taskId: string,
    version: number,
    taskToken: string,
    owner?: { teamId: string; requesterId: string; approvalRule?: ApprovalRule },
    carry?: { held: AnyVersion; entry: AuditEntry },
  ): Promise<WriteResult<AnyVersion> & { entry?: EntryState }> {
    const now = this.table.now();
    const rule = owner?.approvalRule;
    const update = {
      Key: Keys.version(taskId, kind, version),
      // The approval rule is fixed by the first write that opens the wait: a retried step keeps the snapshot taken
      // when the card first asked (a policy saved in between does not change it).
      UpdateExpression: `SET #status = :pending, taskToken = :token, updatedAt = :now${owner === undefined ? "" : ", teamId = :team, requesterId = :requester"}${rule === undefined ? "" : ", approvalRule = if_not_exists(approvalRule, :rule)"}`,
      ConditionExpression: "#status IN (:generating, :pending) AND (attribute_exists(#text) OR attribute_exists(#steps))",
      ExpressionAttributeNames: { "#status": "status", "#text": "text", "#steps": "steps" },
      ExpressionAttributeValues: {
        ":pending": "pending_approval",
        ":generating": "generating",
        ":token": taskToken,
        ":now": now,
        ...(owner === undefined ? {} : { ":team": owner.teamId, ":requester": owner.requesterId }),
        ...(rule === undefined ? {} : { ":rule": rule }),
      },
    };
    const { outcome: write, entry } =
      carry === undefined
        ? await writeAudited(this.table, { update: { ...update, ReturnValues: "ALL_NEW" } }, "openApproval", undefined)
        : await writeAudited(this.table, { update }, "openApproval", carry.entry);
    if (write.applied) {
      const after = write.attributes ?? { ...carry?.held, status: "pending_approval", taskToken, updatedAt: now, ...(owner === undefined ? {} : { teamId: owner.teamId, requesterId: owner.requesterId }), ...(rule === undefined || (carry?.held as { approvalRule?: unknown } | undefined)?.approvalRule !== undefined ? {} : { approvalRule: rule }) };
      return { record: parseVersion(kind, after), applied: true, ...(entry === undefined ? {} : { entry }) };
    }
    const existing = this.parseOrThrow(kind, taskId, version, await write.current());
    throw new StateConflictError(`${kind} v${version} cannot await approval from ${existing.status}`, {
      cause: write.refusal,
      details: { taskId, kind, version, status: existing.status },
    });
  }

  /**
   * Undo a decision whose resume failed (SendTaskSuccess refused for a transient reason): the version goes back
   * to `pending_approval` with its task token, so the next click resumes the pipeline instead of finding the
   * step "already decided" while the pipeline still waits. Only the decision this caller wrote (its
   * `decidedAt`) is undone; this is a compensation, not a transition a user can make.
   */
  async reopenApproval(kind: VersionKind, taskId: string, version: number, undo: { taskToken: string; decidedAt: string }): Promise<WriteResult<AnyVersion>> {
    const write = await this.table.writeIf(
      {
        update: {
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
            ":now": this.table.now(),
          },
          ReturnValues: "ALL_NEW",
        },
      },
      "reopenApproval",
    );
    if (write.applied) return { record: parseVersion(kind, write.attributes), applied: true };
    return { record: this.parseOrThrow(kind, taskId, version, await write.current()), applied: false };
  }

  transition(kind: VersionKind, taskId: string, version: number, to: VersionStatus, options: TransitionOptions = {}): Promise<WriteResult<AnyVersion>> {
    const schema = kind === "prompt" ? PromptVersionSchema : ProcessVersionSchema;
    return transition(this.table, "version", Keys.version(taskId, kind, version), to, options, schema as z.ZodMiniType<AnyVersion>);
  }

  private parseOrThrow(kind: VersionKind, taskId: string, version: number, item: Item | undefined): AnyVersion {
    if (item === undefined) throw versionNotFound(kind, taskId, version);
    return parseVersion(kind, item);
  }
}

/** The content write of a `generating` version: its text (Prompt) or steps (Process), once. */
function contentWrite(
  table: ItemTable,
  kind: VersionKind,
  taskId: string,
  version: number,
  content: { text: string } | { steps: ProcessStep[] },
  returnValues?: "ALL_NEW",
): ConditionalWrite {
  const field = "text" in content ? "text" : "steps";
  const value = "text" in content ? content.text : content.steps;
  return {
    update: {
      Key: Keys.version(taskId, kind, version),
      UpdateExpression: "SET #field = :value, updatedAt = :now",
      ConditionExpression: "#status = :generating AND attribute_not_exists(#field)",
      ExpressionAttributeNames: { "#field": field, "#status": "status" },
      ExpressionAttributeValues: { ":value": value, ":generating": "generating", ":now": table.now() },
      ...(returnValues === undefined ? {} : { ReturnValues: returnValues }),
    },
  };
}

export function parseVersion(kind: VersionKind, item: unknown): AnyVersion {
  return kind === "prompt" ? parseRecord(PromptVersionSchema, item, "prompt") : parseRecord(ProcessVersionSchema, item, "process");
}
