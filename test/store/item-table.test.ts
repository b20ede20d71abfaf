import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { describe, expect, it } from "vitest";
import { ItemTable } from "../../lib/store/item-table";
import { startTestTable } from "../support/dynamo";

const refused = (item?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({ message: "The conditional request failed", $metadata: {}, ...(item === undefined ? {} : { Item: item as never }) });

function mocked() {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: "us-east-1", credentials: { accessKeyId: "x", secretAccessKey: "x" } }));
  return { mock: mockClient(doc), table: new ItemTable(doc, "t") };
}

describe("writeIf: the one conditional write", () => {
  it("asks for the item as the condition saw it (ReturnValuesOnConditionCheckFailure: ALL_OLD) on puts and updates", async () => {
    const { mock, table } = mocked();
    mock.on(PutCommand).resolves({}).on(UpdateCommand).resolves({ Attributes: { pk: "a", sk: "b" } });
    await table.writeIf({ put: { Item: { pk: "a", sk: "b" }, ConditionExpression: "attribute_not_exists(pk)" } }, "test");
    await table.writeIf({ update: { Key: { pk: "a", sk: "b" }, UpdateExpression: "SET x = :x", ExpressionAttributeValues: { ":x": 1 } } }, "test");
    expect(mock.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({ TableName: "t", ReturnValuesOnConditionCheckFailure: "ALL_OLD" });
    expect(mock.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({ TableName: "t", ReturnValuesOnConditionCheckFailure: "ALL_OLD" });
  });

  it("a refusal that carries the item (DynamoDB, DynamoDB Local) is read from the refusal: no second request", async () => {
    const { mock, table } = mocked();
    mock.on(UpdateCommand).rejects(refused({ pk: { S: "a" }, sk: { S: "b" }, status: { S: "approved" }, n: { N: "3" } }));
    const out = await table.writeIf({ update: { Key: { pk: "a", sk: "b" }, UpdateExpression: "SET x = :x", ExpressionAttributeValues: { ":x": 1 } } }, "test");
    expect(out.applied).toBe(false);
    if (out.applied) return;
    expect(await out.current()).toEqual({ pk: "a", sk: "b", status: "approved", n: 3 });
    expect(mock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it("a refusal without the item (DynamoDB when there is no item; a stand-in that ignores the parameter) reads it once, consistently", async () => {
    const { mock, table } = mocked();
    mock.on(PutCommand).rejects(refused()).on(GetCommand).resolves({ Item: { pk: "a", sk: "b", status: "x" } });
    const out = await table.writeIf({ put: { Item: { pk: "a", sk: "b" }, ConditionExpression: "attribute_not_exists(pk)" } }, "test");
    if (out.applied) throw new Error("expected a refusal");
    expect(await out.current()).toEqual({ pk: "a", sk: "b", status: "x" });
    expect(mock.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([{ TableName: "t", Key: { pk: "a", sk: "b" }, ConsistentRead: true }]);
  });

  it("on the test table (DynamoDB Local) a refused write yields the stored item", async () => {
    const t = await startTestTable();
    try {
      const table = new ItemTable(t.doc, t.tableName);
      await table.writeIf({ put: { Item: { pk: "P", sk: "S", status: "open" } } }, "test");
      const out = await table.writeIf({ put: { Item: { pk: "P", sk: "S", status: "other" }, ConditionExpression: "attribute_not_exists(pk)" } }, "test");
      if (out.applied) throw new Error("expected a refusal");
      expect(await out.current()).toEqual({ pk: "P", sk: "S", status: "open" });
      const missing = await table.writeIf({ update: { Key: { pk: "P", sk: "none" }, UpdateExpression: "SET x = :x", ConditionExpression: "attribute_exists(pk)", ExpressionAttributeValues: { ":x": 1 } } }, "test");
      if (missing.applied) throw new Error("expected a refusal");
      expect(await missing.current()).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
