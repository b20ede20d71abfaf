import { afterAll, beforeAll, expect, it } from "vitest";
import { readAuditEntries } from "../../lib/store/audit-source";
import { buildLedger } from "../../lib/store/ledger";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";

let table: TestTable;
beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());

it("reads every workspace's audit entries of a period from the table, or one workspace's", async () => {
  const store = new TaskStore(table.doc, table.tableName);
  const put = (teamId: string, taskId: string, action: string, at: string) =>
    store.appendAudit({ teamId, taskId, auditKey: `${action}#${taskId}`, at, action, actor: "system", details: {} });
  await put("T1", "a", "execution.completed", "2026-11-02T00:00:00.000Z");
  await put("T2", "b", "execution.cancelled", "2026-11-03T00:00:00.000Z");
  await put("T2", "c", "execution.completed", "2026-10-03T00:00:00.000Z"); // before the window
  await store.createTask({ thread: { teamId: "T1", channelId: "C", messageTs: "1.000001" }, requesterId: "U", requestText: "x", pipelineExecutionName: "n" });

  const all = await readAuditEntries({ store, doc: table.doc, tableName: table.tableName }, { since: "2026-11-01", until: "2026-11-30" });
  expect(all.map((e) => e.taskId).sort()).toEqual(["a", "b"]);
  expect(buildLedger(all, { since: "2026-11-01", until: "2026-11-30" }).byOutcome).toMatchObject({ completed: 1, cancelled: 1 });

  const t2 = await readAuditEntries({ store, doc: table.doc, tableName: table.tableName }, { since: "2026-11-01", until: "2026-11-30", teamId: "T2" });
  expect(t2.map((e) => e.taskId)).toEqual(["b"]);
});
