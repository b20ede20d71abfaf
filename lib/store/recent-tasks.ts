import { QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TaskSchema, type Task } from "../core/domain/records";
import { translateDynamoError } from "./conditional";
import { parseRecord } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";

/** How many of the workspace's newest tasks are looked through for one member's (App Home reads, bounded). */
export const OWN_TASKS_SCAN_LIMIT = 500;

/**
 * One member's most recent tasks in a workspace, newest first (GSI byTeam, filtered on the requester): what App
 * Home shows a member who is not an admin. Looks through at most `scanLimit` of the workspace's newest tasks, so a
 * member with no recent task costs a bounded read, not the workspace's whole history.
 */
export async function listRecentTasksOf(
  doc: DynamoDBDocumentClient,
  tableName: string,
  query: { teamId: string; requesterId: string; limit: number; scanLimit?: number },
): Promise<Task[]> {
  const scanLimit = query.scanLimit ?? OWN_TASKS_SCAN_LIMIT;
  const tasks: Task[] = [];
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
          FilterExpression: "requesterId = :u",
          ExpressionAttributeNames: { "#gpk": TABLE_KEYS.byTeamPartitionKey },
          ExpressionAttributeValues: { ":gpk": Keys.teamTasksIndex(query.teamId), ":u": query.requesterId },
          ScanIndexForward: false,
          Limit: Math.min(100, scanLimit - evaluated),
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "listRecentTasksOf");
    }
    evaluated += out.ScannedCount ?? 0;
    for (const item of out.Items ?? []) {
      const task = parseRecord(TaskSchema, item, "task");
      // The filter is the query's; checked again here, because showing a task to the wrong member is the harm.
      if (task.requesterId === query.requesterId && task.thread.teamId === query.teamId) tasks.push(task);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined && tasks.length < query.limit && evaluated < scanLimit);
  return tasks.slice(0, query.limit);
}
