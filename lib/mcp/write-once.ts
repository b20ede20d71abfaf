import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { isConditionFailure, translateDynamoError } from "../store/conditional";
import { Keys } from "../store/table";

/** What an earlier identical write of the same Execution left behind. */
export type PriorWrite = { state: "in_flight"; since: string } | { state: "done"; resultText: string; completedAt: string };

export interface WriteRef {
  taskId: string;
  executionId: string;
  /** Digest of (tool, input). */
  digest: string;
}

/**
 * Write-once guard for freee write tools within one Execution. An agent that repeats a write it already made
 * (a lost tool result, a confused retry) gets the first result back instead of a second deal or a second pay
 * change in freee, which has no idempotency key of its own. A write that freee refused, or that failed, is
 * released so the agent can decide to try again (seed §3.4).
 */
export class WriteOnceLedger {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Claim the write. Returns undefined when this caller may write; otherwise what the earlier call left. */
  async claim(ref: WriteRef, tool: string): Promise<PriorWrite | undefined> {
    const key = Keys.toolWrite(ref.taskId, ref.executionId, ref.digest);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, recordType: "tool_write", tool, state: "in_flight", since: this.clock().toISOString() },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return undefined;
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "claim freee write");
    }
    let item: Record<string, unknown> | undefined;
    try {
      item = (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
    } catch (err) {
      throw translateDynamoError(err, "read freee write");
    }
    // Released between our put and this read: the agent may simply ask again.
    if (item === undefined) return { state: "in_flight", since: this.clock().toISOString() };
    if (item.state === "done" && typeof item.resultText === "string" && typeof item.completedAt === "string") {
      return { state: "done", resultText: item.resultText, completedAt: item.completedAt };
    }
    return { state: "in_flight", since: String(item.since) };
  }

  async complete(ref: WriteRef, resultText: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.toolWrite(ref.taskId, ref.executionId, ref.digest),
          UpdateExpression: "SET #state = :done, resultText = :text, completedAt = :now",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":done": "done", ":text": resultText, ":now": this.clock().toISOString() },
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "complete freee write");
    }
  }

  async release(ref: WriteRef): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: Keys.toolWrite(ref.taskId, ref.executionId, ref.digest),
          ConditionExpression: "#state = :inFlight",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":inFlight": "in_flight" },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) return;
      throw translateDynamoError(err, "release freee write");
    }
  }
}
