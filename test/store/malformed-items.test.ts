import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MalformedOutputError } from "../../lib/core/errors/taxonomy";
import { WriteOnceLedger } from "../../lib/store/write-ledger";
import { listRecentTasksOf } from "../../lib/store/recent-tasks";
import { Keys } from "../../lib/store/table";
import { TaskStore } from "../../lib/store/task-store";
import { makeStore } from "../freee/helpers";
import { startTestTable, type TestTable } from "../support/dynamo";

/**
 * An item in the table that does not match its schema (an old version's, a hand edit) is a MalformedOutputError
 * naming the fields, never a half-read record: a write ledger entry read as "no prior write" would let a write
 * run twice, a connection read as "not connected" would hide a real one.
 */
let table: TestTable;
beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());

const put = (item: Record<string, unknown>) => table.doc.send(new PutCommand({ TableName: table.tableName, Item: item }));

async function refusal(read: Promise<unknown>): Promise<MalformedOutputError> {
  const err = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MalformedOutputError);
  return err as MalformedOutputError;
}

it("a write ledger entry without its state", async () => {
  await put({ ...Keys.toolWrite("TBAD-1", 1, "s1"), tool: "freee_hr_update_basic_pay_rule", digest: "d" });
  const err = await refusal(new WriteOnceLedger(table.doc, table.tableName).get({ taskId: "TBAD-1", processVersion: 1, stepId: "s1" }));
  expect(err.message).toBe("stored freee write does not match its schema");
  expect(JSON.stringify(err.details)).toContain("state");
});

it("a freee connection whose company id is text", async () => {
  await put({ ...Keys.freeeConnection("TBAD"), teamId: "TBAD", companyId: "one" });
  const err = await refusal(makeStore(table).getMeta("TBAD"));
  expect(err.message).toBe("stored freee connection does not match its schema");
  expect(JSON.stringify(err.details)).toContain("companyId");
});

it("a task in the member's App Home list whose status no version knows", async () => {
  const store = new TaskStore(table.doc, table.tableName);
  const { record } = await store.createTask({ thread: { teamId: "TBAD", channelId: "C1", messageTs: "1700000000.000001" }, requesterId: "U1", requestText: "経費", pipelineExecutionName: "x" });
  const item = (await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.task(record.taskId) }))).Item!;
  await put({ ...item, status: "half_done" });
  const err = await refusal(listRecentTasksOf(table.doc, table.tableName, { teamId: "TBAD", requesterId: "U1", limit: 5 }));
  expect(err.message).toBe("stored task does not match its schema");
  expect(JSON.stringify(err.details)).toContain("status");
});
