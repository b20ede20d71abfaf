import { QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TaskSchema } from "../core/domain/records";
import { translateDynamoError } from "./conditional";
import { ItemTable, parseRecord } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";

/** The error name an invalidated Process version carries: the card and a late click read it (version-card.ts, decision.ts). */
export const COMPANY_CHANGED = "FreeeCompanyChangedError";

/** How many of the workspace's newest tasks are looked through for plans awaiting approval (bounded read). */
export const SWEEP_SCAN_LIMIT = 2000;

export interface InvalidatedPlan {
  taskId: string;
  version: number;
  /** The company the plan was previewed against (undefined: a preview that recorded none). */
  approvedCompanyId: number | undefined;
  /** Still on the item, as on a decided one: the wait is ended with it (SendTaskFailure). */
  taskToken: string | undefined;
}

/**
 * A reconnect to another freee company: every Process of the workspace awaiting approval whose preview read
 * another company (or recorded none) leaves `pending_approval` for `failed` with `FreeeCompanyChangedError`, in one
 * conditional write each. The decision write requires `pending_approval` (decision.ts), so from this write on no
 * click can approve it. A plan previewed against the new company is left as it is.
 */
export async function invalidatePlansOfOtherCompanies(
  doc: DynamoDBDocumentClient,
  tableName: string,
  input: { teamId: string; companyId: number; now: string; scanLimit?: number },
): Promise<InvalidatedPlan[]> {
  const candidates = await tasksAwaitingProcess(doc, tableName, input.teamId, input.scanLimit ?? SWEEP_SCAN_LIMIT);
  const invalidated: InvalidatedPlan[] = [];
  const table = new ItemTable(doc, tableName);
  for (const { taskId, version } of candidates) {
    const out = await table.writeIf(
      {
        update: {
          Key: Keys.version(taskId, "process", version),
          UpdateExpression: "SET #status = :failed, errorName = :error, updatedAt = :now",
          ConditionExpression: "#status = :pending AND teamId = :team AND (attribute_not_exists(#preview.#company.#id) OR #preview.#company.#id <> :company)",
          ExpressionAttributeNames: { "#status": "status", "#preview": "preview", "#company": "company", "#id": "id" },
          ExpressionAttributeValues: { ":failed": "failed", ":error": COMPANY_CHANGED, ":now": input.now, ":pending": "pending_approval", ":team": input.teamId, ":company": input.companyId },
          ReturnValues: "ALL_NEW",
        },
      },
      "invalidatePlan",
    );
    // Decided meanwhile, previewed against the new company, or not this workspace's: left as it is.
    if (!out.applied) continue;
    const item = out.attributes ?? {};
    const preview = item.preview as { company?: { id?: unknown } } | undefined;
    const approved = preview?.company?.id;
    invalidated.push({
      taskId,
      version,
      approvedCompanyId: typeof approved === "number" ? approved : undefined,
      taskToken: typeof item.taskToken === "string" ? item.taskToken : undefined,
    });
  }
  return invalidated;
}

/** The workspace's tasks in `process_review` and their current Process version (byTeam, newest first, bounded). */
async function tasksAwaitingProcess(doc: DynamoDBDocumentClient, tableName: string, teamId: string, scanLimit: number): Promise<{ taskId: string; version: number }[]> {
  const found: { taskId: string; version: number }[] = [];
  let evaluated = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    let out;
    try {
      out = await doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: TABLE_KEYS.byTeamIndex,
          KeyConditionExpression: "#gpk = :gpk",
          FilterExpression: "#status = :review",
          ExpressionAttributeNames: { "#gpk": TABLE_KEYS.byTeamPartitionKey, "#status": "status" },
          ExpressionAttributeValues: { ":gpk": Keys.teamTasksIndex(teamId), ":review": "process_review" },
          ScanIndexForward: false,
          Limit: Math.min(200, scanLimit - evaluated),
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "tasksAwaitingProcess");
    }
    evaluated += out.ScannedCount ?? 0;
    for (const item of out.Items ?? []) {
      const task = parseRecord(TaskSchema, item, "task");
      if (task.thread.teamId === teamId && task.status === "process_review" && task.currentProcessVersion > 0) {
        found.push({ taskId: task.taskId, version: task.currentProcessVersion });
      }
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined && evaluated < scanLimit);
  return found;
}
