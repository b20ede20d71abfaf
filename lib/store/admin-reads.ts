import { TaskSchema, type Task } from "../core/domain/records";
import { parseRecord, type ItemTable } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";

/** The most tasks one list of the web admin reads (a month of a busy workspace; the page says when it is cut). */
export const ADMIN_TASK_LIMIT = 1000;

/**
 * A workspace's tasks created in a period, newest first (GSI byTeam, whose sort key starts with the creation time).
 * `requesterId`: only that member's (a member sees only their own). Every task is checked against the workspace
 * again after the read: a task of another workspace on this page is the harm the query's key already rules out.
 */
export async function listTasksInPeriod(
  table: ItemTable,
  query: { teamId: string; since: string; until: string; requesterId?: string; limit?: number },
): Promise<{ tasks: Task[]; truncated: boolean }> {
  const limit = query.limit ?? ADMIN_TASK_LIMIT;
  const items = await table.query(
    {
      IndexName: TABLE_KEYS.byTeamIndex,
      KeyConditionExpression: "#gpk = :gpk AND #gsk BETWEEN :since AND :until",
      ExpressionAttributeNames: { "#gpk": TABLE_KEYS.byTeamPartitionKey, "#gsk": TABLE_KEYS.byTeamSortKey, ...(query.requesterId === undefined ? {} : { "#r": "requesterId" }) },
      ExpressionAttributeValues: {
        ":gpk": Keys.teamTasksIndex(query.teamId),
        ":since": query.since,
        ":until": `${query.until}\uffff`,
        ...(query.requesterId === undefined ? {} : { ":r": query.requesterId }),
      },
      ...(query.requesterId === undefined ? {} : { FilterExpression: "#r = :r" }),
      ScanIndexForward: false,
    },
    limit + 1,
    "listTasksInPeriod",
  );
  const tasks = items
    .map((item) => parseRecord(TaskSchema, item, "task"))
    .filter((task) => task.thread.teamId === query.teamId && (query.requesterId === undefined || task.requesterId === query.requesterId));
  return { tasks: tasks.slice(0, limit), truncated: tasks.length > limit };
}
