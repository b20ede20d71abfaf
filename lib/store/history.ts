import {
  AuditEntrySchema,
  ExecutionSchema,
  ProcessVersionSchema,
  PromptVersionSchema,
  TaskSchema,
  type AuditEntry,
  type Execution,
  type ProcessVersion,
  type PromptVersion,
  type Task,
} from "../core/domain/records";
import { parseRecord, type ItemTable } from "./item-table";
import { Keys } from "./table";
import { taskNotFound } from "./tasks";

/** Everything a task's partition holds: what the cards are rendered from. */
export interface TaskHistory {
  task: Task;
  prompts: PromptVersion[];
  processes: ProcessVersion[];
  executions: Execution[];
  audit: AuditEntry[];
}

/**
 * The whole history of a task from one Query on its partition (paged only past 1 MB). `cardsOnly`: what the
 * cards show (task, versions, executions) and nothing else. The sort keys put them in one range, EXEC# … META …
 * PROCESS# … PROMPT#, between the AUDIT# and WRITE# items, which are never read for it.
 */
export async function loadHistory(table: ItemTable, taskId: string, options: { cardsOnly?: boolean } = {}): Promise<TaskHistory> {
  const pk = Keys.taskPartition(taskId);
  const items = await table.query(
    options.cardsOnly === true
      ? { KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to", ExpressionAttributeValues: { ":pk": pk, ":from": "EXEC#", ":to": "PROMPT#\uffff" } }
      : { KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk } },
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
  if (task === undefined) throw taskNotFound(taskId);
  history.audit.sort((a, b) => a.at.localeCompare(b.at) || a.auditKey.localeCompare(b.auditKey));
  return { task, ...history };
}
