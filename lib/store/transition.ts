import type { z } from "zod/mini";
import { assertTransition, canTransition, EXECUTION_STATUSES, TASK_STATUSES, VERSION_STATUSES, type Machine } from "../core/domain/status";
import { RecordNotFoundError, StateConflictError } from "../core/errors/taxonomy";
import type { AuditEntry } from "../core/domain/records";
import { auditItem } from "./audit-entries";
import { buildSet, parseRecord, type ConditionalWrite, type EntryState, type ItemKey, type ItemTable, type WriteOutcome, type WriteResult } from "./item-table";

export interface TransitionOptions {
  /** Narrow the statuses the write may start from (default: every status the table allows to reach `to`). */
  from?: readonly string[];
  set?: Record<string, unknown>;
  remove?: readonly string[];
  /** Return the item as it was before the write (e.g. to read the task token that the write removes). */
  returnOld?: boolean;
  /**
   * A further clause the item must meet, without placeholders (`attribute_not_exists(fault)`). Refused by it, the
   * change is a StateConflictError like any other, its `current` the item as found.
   */
  condition?: string;
}

const ALL_STATUSES: Record<Machine, readonly string[]> = {
  task: TASK_STATUSES,
  version: VERSION_STATUSES,
  execution: EXECUTION_STATUSES,
};

/**
 * A status change of a task, version or execution as one conditional write (lib/core/domain/status.ts says which
 * changes exist). An illegal change is refused before any write; a retried change that finds the item already
 * at `to` returns it with `applied: false`; any other status is a StateConflictError that names both.
 */
export async function transition<T>(
  table: ItemTable,
  machine: Machine,
  key: ItemKey,
  to: string,
  options: TransitionOptions,
  schema: z.ZodMiniType<T>,
): Promise<WriteResult<T>> {
  const { update, from } = transitionUpdate(table, machine, key, to, options);
  const write = await table.writeIf({ update: { ...update, ReturnValues: options.returnOld ? "ALL_OLD" : "ALL_NEW" } }, `transition ${machine}`);
  if (write.applied) return { record: parseRecord(schema, write.attributes, machine), applied: true };
  return refused(machine, key, to, from, write, schema, options.condition);
}

/**
 * The same status change and its write-once audit entry in one transaction (`ItemTable.writeWithEntries`), for a
 * step that read the item just before (`held`). A transaction returns no item, so the record returned is `held`
 * with the change applied; the condition pins the status it starts from, and nothing but this step writes the
 * item's other fields meanwhile on the paths that use it. Refused, it answers as `transition` does, and says
 * what became of the entry (`missing` when the change was already made without it: the caller appends it).
 */
export async function transitionWithEntry<T>(
  table: ItemTable,
  machine: Machine,
  key: ItemKey,
  to: string,
  options: Omit<TransitionOptions, "returnOld">,
  schema: z.ZodMiniType<T>,
  carry: { held: T; entry: AuditEntry },
): Promise<WriteResult<T> & { entry: EntryState }> {
  const { update, from, fields } = transitionUpdate(table, machine, key, to, options);
  const { outcome, entries } = await table.writeWithEntries({ update }, [auditItem(carry.entry)], `transition ${machine}`);
  const entry = entries[0]!;
  if (outcome.applied) return { record: parseRecord(schema, afterImage(carry.held, fields, options.remove), machine), applied: true, entry };
  return { ...(await refused(machine, key, to, from, outcome, schema, options.condition)), entry };
}

/**
 * A status change as a write to put in a transaction with others (`ItemTable.writeWithEntries`' `alongside`), and
 * the record it leaves, from the record the step holds.
 */
export function prepareTransition<T>(table: ItemTable, machine: Machine, key: ItemKey, to: string, options: Omit<TransitionOptions, "returnOld">, schema: z.ZodMiniType<T>) {
  const { update, fields } = transitionUpdate(table, machine, key, to, options);
  return {
    write: { update } as ConditionalWrite,
    after: (held: T): T => parseRecord(schema, afterImage(held, fields, options.remove), machine),
  };
}

function transitionUpdate(table: ItemTable, machine: Machine, key: ItemKey, to: string, options: TransitionOptions) {
  const from = options.from ?? ALL_STATUSES[machine].filter((s) => canTransition(machine, s, to));
  for (const f of from) assertTransition(machine, f, to);
  if (from.length === 0) assertTransition(machine, "(none)", to);
  const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
  const fields = { ...(options.set ?? {}), status: to, updatedAt: table.now() };
  const { status: _status, ...setFields } = fields;
  const set = buildSet(setFields, "s");
  const removeNames = Object.fromEntries((options.remove ?? []).map((name, i) => [`#r${i}`, name]));
  const removeClause = Object.keys(removeNames).length > 0 ? ` REMOVE ${Object.keys(removeNames).join(", ")}` : "";
  const update = {
    Key: key,
    UpdateExpression: `SET #status = :to, ${set.assignments.join(", ")}${removeClause}`,
    ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(fromValues).join(", ")})${options.condition === undefined ? "" : ` AND ${options.condition}`}`,
    ExpressionAttributeNames: { "#status": "status", ...set.names, ...removeNames },
    ExpressionAttributeValues: { ":to": to, ...fromValues, ...set.values },
  };
  return { update, from, fields };
}

/** The item as the update leaves it: `held` with the fields set (undefined ones are not written) and removed. */
function afterImage(held: unknown, fields: Record<string, unknown>, remove: readonly string[] = []): Record<string, unknown> {
  const after: Record<string, unknown> = { ...(held as Record<string, unknown>) };
  for (const [field, value] of Object.entries(fields)) if (value !== undefined) after[field] = value;
  for (const field of remove) delete after[field];
  return after;
}

async function refused<T>(
  machine: Machine,
  key: ItemKey,
  to: string,
  from: readonly string[],
  write: Extract<WriteOutcome, { applied: false }>,
  schema: z.ZodMiniType<T>,
  condition?: string,
): Promise<WriteResult<T>> {
  const existing = await write.current();
  if (existing === undefined) {
    throw new RecordNotFoundError(`${machine} ${key.pk}/${key.sk} not found`, { cause: write.refusal, details: { ...key } });
  }
  if (existing.status === to) return { record: parseRecord(schema, existing, machine), applied: false };
  // In a status it may move from, only the caller's own clause can have refused it.
  const byCondition = condition !== undefined && from.includes(String(existing.status));
  const found = schema.safeParse(existing);
  throw new StateConflictError(`${machine} is ${String(existing.status)}; ${byCondition ? `refused by ${condition}` : `expected ${from.join("|")}`} to move to ${to}`, {
    cause: write.refusal,
    // A conflict stays a conflict: an item that does not parse is simply not carried.
    current: found.success ? found.data : undefined,
    details: { ...key, expected: from, actual: existing.status, to, ...(byCondition ? { condition } : {}) },
  });
}
