import { afterAll, beforeAll, expect, it } from "vitest";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";

let table: TestTable;
beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());

it("creates a task once", async () => {
  const store = new TaskStore(table.doc, table.tableName);
  const input = { thread: { teamId: "T1", channelId: "C1", messageTs: "1700000000.000100" }, requesterId: "U1", requestText: "テスト", pipelineExecutionName: "x" };
  const a = await store.createTask(input);
  const b = await store.createTask(input);
  expect(a.applied).toBe(true);
  expect(b.applied).toBe(false);
  expect(b.record.taskId).toBe(a.record.taskId);
});
