import type { z } from "zod/mini";
import { assertTransition, canTransition, EXECUTION_STATUSES, TASK_STATUSES, VERSION_STATUSES, type Machine } from "../domain/status";
import { RecordNotFoundError, StateConflictError } from "../errors/taxonomy";
import { buildSet, parseRecord, type ItemKey, type ItemTable, type WriteResult } from "./item-table";

export interface TransitionOptions {
  /** Narrow the statuses the write may start from (default: every status the table allows to reach `to`). */
  from?: readonly string[];
  set?: Record<string, unknown>;
  remove?: readonly string[];
  /** Return the item as it was before the write (e.g. to read the task token that the write removes). */
  returnOld?: boolean;
}

const ALL_STATUSES: Record<Machine, readonly string[]> = {
  task: TASK_STATUSES,
  version: VERSION_STATUSES,
  execution: EXECUTION_STATUSES,
};

/**
 * A status change of a task, version or execution as one conditional write (lib/domain/status.ts says which
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
  const from = options.from ?? ALL_STATUSES[machine].filter((s) => canTransition(machine, s, to));
  for (const f of from) assertTransition(machine, f, to);
  if (from.length === 0) assertTransition(machine, "(none)", to);
  const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
  const set = buildSet({ ...(options.set ?? {}), updatedAt: table.now() }, "s");
  const removeNames = Object.fromEntries((options.remove ?? []).map((name, i) => [`#r${i}`, name]));
  const removeClause = Object.keys(removeNames).length > 0 ? ` REMOVE ${Object.keys(removeNames).join(", ")}` : "";
  const write = await table.writeIf(
    {
      update: {
        Key: key,
        UpdateExpression: `SET #status = :to, ${set.assignments.join(", ")}${removeClause}`,
        ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(fromValues).join(", ")})`,
        ExpressionAttributeNames: { "#status": "status", ...set.names, ...removeNames },
        ExpressionAttributeValues: { ":to": to, ...fromValues, ...set.values },
        ReturnValues: options.returnOld ? "ALL_OLD" : "ALL_NEW",
      },
    },
    `transition ${machine}`,
  );
  if (write.applied) return { record: parseRecord(schema, write.attributes, machine), applied: true };
  const existing = await write.current();
  if (existing === undefined) {
    throw new RecordNotFoundError(`${machine} ${key.pk}/${key.sk} not found`, { cause: write.refusal, details: { ...key } });
  }
  if (existing.status === to) return { record: parseRecord(schema, existing, machine), applied: false };
  throw new StateConflictError(`${machine} is ${String(existing.status)}; expected ${from.join("|")} to move to ${to}`, {
    cause: write.refusal,
    details: { ...key, expected: from, actual: existing.status, to },
  });
}
