import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ThrottledError } from "../../lib/core/errors/taxonomy";
import { ItemTable, type ConditionalWrite } from "../../lib/store/item-table";
import { startTestTable, type TestTable } from "../support/dynamo";

/**
 * `ItemTable.writeWithEntries` on DynamoDB Local: an effect and its write-once entries in one TransactWriteItems —
 * both land or neither; a retry after a committed transaction sees its own entry (`existed`) and is refused as the
 * effect's own condition says, never with a generic error; an entry already there does not stop the effect.
 */
let t: TestTable;
let table: ItemTable;
beforeAll(async () => {
  t = await startTestTable();
  table = new ItemTable(t.doc, t.tableName);
});
afterAll(async () => t.close());

let n = 0;
const keys = () => {
  n += 1;
  return { pk: `TASK#tx${n}`, effect: "META", entry: "AUDIT#x.happened#thing" };
};
const read = async (pk: string, sk: string) => (await t.doc.send(new GetCommand({ TableName: t.tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;
const start = (pk: string): ConditionalWrite => ({
  update: {
    Key: { pk, sk: "META" },
    UpdateExpression: "SET #status = :to",
    ConditionExpression: "#status = :from",
    ExpressionAttributeNames: { "#status": "status" },
    ExpressionAttributeValues: { ":from": "pending", ":to": "running" },
    ReturnValues: "ALL_NEW",
  },
});

describe("writeWithEntries: an effect and its audit entry in one transaction", () => {
  it("both are written", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "pending" } } }, "test");
    const out = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry, note: "started" }], "test");
    expect(out).toEqual({ outcome: { applied: true, attributes: undefined }, entries: ["written"] });
    expect(await read(k.pk, k.effect)).toMatchObject({ status: "running" });
    expect(await read(k.pk, k.entry)).toMatchObject({ note: "started" });
  });

  it("the effect refused → nothing is written: no entry without its effect; the refusal carries the item", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "cancelled" } } }, "test");
    const out = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry }], "test");
    expect(out.entries).toEqual(["missing"]);
    if (out.outcome.applied) throw new Error("expected a refusal");
    expect(await out.outcome.current()).toEqual({ pk: k.pk, sk: k.effect, status: "cancelled" });
    expect(await read(k.pk, k.entry)).toBeUndefined();
  });

  it("a retry after the committed transaction sees its own entry and the effect's refusal (idempotent, not an error)", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "pending" } } }, "test");
    await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry, attempt: 1 }], "test");
    const again = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry, attempt: 2 }], "test");
    expect(again.entries).toEqual(["existed"]);
    if (again.outcome.applied) throw new Error("expected a refusal");
    expect(await again.outcome.current()).toMatchObject({ status: "running" });
    expect(await read(k.pk, k.entry)).toMatchObject({ attempt: 1 });
  });

  it("an entry already there (written on its own before) does not stop the effect, and is not written twice", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "pending" } } }, "test");
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.entry, attempt: 1 } } }, "test");
    const out = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry, attempt: 2 }, { pk: k.pk, sk: "AUDIT#other#thing" }], "test");
    expect(out.outcome.applied).toBe(true);
    expect(out.entries).toEqual(["existed", "written"]);
    expect(await read(k.pk, k.effect)).toMatchObject({ status: "running" });
    expect(await read(k.pk, k.entry)).toMatchObject({ attempt: 1 });
    expect(await read(k.pk, "AUDIT#other#thing")).toBeDefined();
  });

  it("a transaction cancelled for another reason than a condition is a ThrottledError (Step Functions retries it)", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "pending" } } }, "test");
    const conflicting = { send: async () => Promise.reject(Object.assign(new Error("Transaction cancelled"), { name: "TransactionCanceledException", CancellationReasons: [{ Code: "TransactionConflict" }, { Code: "None" }] })) };
    const other = new ItemTable(conflicting as never, t.tableName);
    await expect(other.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry }], "test")).rejects.toBeInstanceOf(ThrottledError);
  });
});

describe("writeWithEntries with a write alongside (a task's status that moves with its version's content)", () => {
  const moveTask = (pk: string): ConditionalWrite => ({
    update: {
      Key: { pk, sk: "TASK" },
      UpdateExpression: "SET #status = :to",
      ConditionExpression: "#status = :from",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":from": "prompt_review", ":to": "process_review" },
    },
  });

  it("its condition holds → all three land in one transaction", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "pending" } } }, "test");
    await table.writeIf({ put: { Item: { pk: k.pk, sk: "TASK", status: "prompt_review" } } }, "test");
    const out = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry }], "test", moveTask(k.pk));
    expect(out).toMatchObject({ outcome: { applied: true }, entries: ["written"], alongside: "applied" });
    expect(await read(k.pk, "TASK")).toMatchObject({ status: "process_review" });
  });

  it("its condition fails → the effect and the entry are written without it, and the caller is told", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "pending" } } }, "test");
    await table.writeIf({ put: { Item: { pk: k.pk, sk: "TASK", status: "failed" } } }, "test");
    const out = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry }], "test", moveTask(k.pk));
    expect(out).toMatchObject({ outcome: { applied: true }, entries: ["written"], alongside: "refused" });
    expect(await read(k.pk, k.effect)).toMatchObject({ status: "running" });
    expect(await read(k.pk, k.entry)).toBeDefined();
    expect(await read(k.pk, "TASK")).toMatchObject({ status: "failed" });
  });

  it("the effect refused → nothing lands, the write alongside neither", async () => {
    const k = keys();
    await table.writeIf({ put: { Item: { pk: k.pk, sk: k.effect, status: "cancelled" } } }, "test");
    await table.writeIf({ put: { Item: { pk: k.pk, sk: "TASK", status: "prompt_review" } } }, "test");
    const out = await table.writeWithEntries(start(k.pk), [{ pk: k.pk, sk: k.entry }], "test", moveTask(k.pk));
    expect(out).toMatchObject({ outcome: { applied: false }, entries: ["missing"], alongside: "refused" });
    expect(await read(k.pk, "TASK")).toMatchObject({ status: "prompt_review" });
  });
});
