import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { z } from "zod/mini";
import { MalformedOutputError, ThrottledError } from "../core/errors/taxonomy";
import { isConditionFailure, translateDynamoError } from "./conditional";

export type Item = Record<string, unknown>;
export type ItemKey = { pk: string; sk: string };

/** Result of a conditional write: `applied` is false when an earlier identical write had already done it. */
export interface WriteResult<T> {
  record: T;
  applied: boolean;
}

/** A Put or an Update whose condition may refuse it. */
export type ConditionalWrite = { put: Omit<PutCommandInput, "TableName"> } | { update: Omit<UpdateCommandInput, "TableName"> };

/**
 * What a conditional write did. When the condition refused it, `current()` is the item as the condition saw it:
 * taken from the refusal itself (`ReturnValuesOnConditionCheckFailure: ALL_OLD`, which DynamoDB and DynamoDB
 * Local answer), read once more only where the refusal carries no item (a stand-in may ignore the parameter;
 * and DynamoDB sends none when there is no item, which the read then confirms).
 */
export type WriteOutcome =
  | { applied: true; attributes: Item | undefined }
  | { applied: false; refusal: unknown; current: () => Promise<Item | undefined> };

/**
 * What became of a write-once entry written with an effect (`writeWithEntries`): `written` by this call; `existed`
 * already (an earlier attempt's, under the same key); `missing`: not written, because the effect was refused.
 */
export type EntryState = "written" | "existed" | "missing";

/** The single table as the item kinds of lib/store use it: one place for reads, queries and conditional writes. */
export class ItemTable {
  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  now(): string {
    return this.clock().toISOString();
  }

  async get(key: ItemKey, where: string): Promise<Item | undefined> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      return out.Item;
    } catch (err) {
      throw translateDynamoError(err, where);
    }
  }

  /**
   * Several items of the table as one snapshot, in one request (TransactGetItems: IAM authorizes it item by item
   * as GetItem, and it reads as strongly as `get`). Absent items are undefined, in the order asked. A read that
   * met a transaction in flight on one of the items is cancelled: a ThrottledError, retried like a throttle.
   */
  async getAll(keys: readonly ItemKey[], where: string): Promise<(Item | undefined)[]> {
    try {
      const out = await this.doc.send(new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: this.tableName, Key } })) }));
      const responses = out.Responses ?? [];
      if (responses.length !== keys.length) {
        throw new MalformedOutputError(`${where}: TransactGetItems answered ${responses.length} of ${keys.length} items`, { details: { asked: keys.length, answered: responses.length } });
      }
      return responses.map((r) => r.Item);
    } catch (err) {
      if (err instanceof Error && err.name === "TransactionCanceledException") {
        throw new ThrottledError(`${where}: read cancelled by a transaction in flight`, { cause: err });
      }
      throw err instanceof MalformedOutputError ? err : translateDynamoError(err, where);
    }
  }

  /** The one conditional-write helper: errors other than a refused condition leave as taxonomy errors. */
  async writeIf(write: ConditionalWrite, where: string): Promise<WriteOutcome> {
    const key = ("put" in write ? keyOf(write.put.Item) : write.update.Key) as ItemKey;
    try {
      const out =
        "put" in write
          ? await this.doc.send(new PutCommand({ ...write.put, TableName: this.tableName, ReturnValuesOnConditionCheckFailure: "ALL_OLD" }))
          : await this.doc.send(new UpdateCommand({ ...write.update, TableName: this.tableName, ReturnValuesOnConditionCheckFailure: "ALL_OLD" }));
      return { applied: true, attributes: out.Attributes };
    } catch (err) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, where);
      const old = (err as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      return { applied: false, refusal: err, current: async () => (old === undefined ? this.get(key, where) : unmarshall(old)) };
    }
  }

  /**
   * A conditional write and its write-once entries (`attribute_not_exists(pk)`: audit entries) in ONE
   * TransactWriteItems: both land or neither, so no effect is stored without its entry and no entry without its
   * effect. The transaction returns no item: `attributes` is undefined when it applied. Refused, its cancellation
   * reasons say which condition failed (DynamoDB and DynamoDB Local answer them in order, the refused item's old
   * image included):
   *   the effect's — `applied: false` as `writeIf` says it, and each entry `existed` or `missing` (the caller
   *     repairs a missing one when the effect turns out done already: an earlier write made it without this entry);
   *   only entries' — they are there already (an earlier attempt): the effect again with the others.
   * A cancellation for any other reason (a conflicting transaction, throttling) is a ThrottledError: retried.
   */
  async writeWithEntries(
    write: ConditionalWrite,
    entries: readonly Item[],
    where: string,
    /**
     * One more conditional write that should land with them (a task's status that moves with its version's
     * content). Refused, the rest is written without it (`alongside: "refused"`), and the caller makes that
     * change on its own, as it would have without the transaction.
     */
    alongside?: ConditionalWrite,
  ): Promise<{ outcome: WriteOutcome; entries: EntryState[]; alongside?: "applied" | "refused" }> {
    if (entries.length === 0 && alongside === undefined) return { outcome: await this.writeIf(write, where), entries: [] };
    const key = ("put" in write ? keyOf(write.put.Item) : write.update.Key) as ItemKey;
    const puts = entries.map((Item) => ({ Put: { TableName: this.tableName, Item, ConditionExpression: "attribute_not_exists(pk)" } }));
    const items = [this.transactItem(write), ...puts, ...(alongside === undefined ? [] : [this.transactItem(alongside)])];
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items as never }));
      return { outcome: { applied: true, attributes: undefined }, entries: entries.map(() => "written"), ...(alongside === undefined ? {} : { alongside: "applied" as const }) };
    } catch (err) {
      const reasons = (err as { name?: string; CancellationReasons?: { Code?: string; Item?: Parameters<typeof unmarshall>[0] }[] }).CancellationReasons;
      if (!(err instanceof Error) || err.name !== "TransactionCanceledException" || reasons === undefined) throw translateDynamoError(err, where);
      const codes = reasons.map((r) => r.Code ?? "None");
      if (codes.some((c) => c !== "None" && c !== "ConditionalCheckFailed")) {
        throw new ThrottledError(`${where}: transaction cancelled (${codes.join(", ")})`, { cause: err, details: { codes } });
      }
      if (alongside !== undefined && codes[items.length - 1] === "ConditionalCheckFailed") {
        return { ...(await this.writeWithEntries(write, entries, where)), alongside: "refused" };
      }
      const existed = codes.slice(1, 1 + entries.length).map((c) => c === "ConditionalCheckFailed");
      if (codes[0] === "ConditionalCheckFailed") {
        const old = reasons[0]?.Item;
        return {
          outcome: { applied: false, refusal: err, current: async () => (old === undefined ? this.get(key, where) : unmarshall(old)) },
          entries: existed.map((e) => (e ? "existed" : "missing")),
          ...(alongside === undefined ? {} : { alongside: "refused" as const }),
        };
      }
      const again = await this.writeWithEntries(write, entries.filter((_, i) => !existed[i]), where, alongside);
      let next = 0;
      return { outcome: again.outcome, entries: existed.map((e) => (e ? "existed" : again.entries[next++]!)), ...(again.alongside === undefined ? {} : { alongside: again.alongside }) };
    }
  }

  /** A write as an item of TransactWriteItems (no ReturnValues there; a refusal carries the old item). */
  private transactItem(write: ConditionalWrite) {
    return "put" in write
      ? { Put: { ...write.put, TableName: this.tableName, ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const } }
      : { Update: { ...withoutReturnValues(write.update), TableName: this.tableName, ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const } };
  }

  /** Every item a query matches (paged past 1 MB), or the first `limit`; `where` names it in a translated error. */
  async query(input: Omit<QueryCommandInput, "TableName">, limit?: number, where = "query"): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      try {
        const out = await this.doc.send(
          new QueryCommand({
            ...input,
            TableName: this.tableName,
            ExclusiveStartKey: startKey,
            ...(limit === undefined ? {} : { Limit: limit - items.length }),
          }),
        );
        items.push(...(out.Items ?? []));
        startKey = out.LastEvaluatedKey;
      } catch (err) {
        throw translateDynamoError(err, where);
      }
    } while (startKey !== undefined && (limit === undefined || items.length < limit));
    return items;
  }
}

function withoutReturnValues(update: Omit<UpdateCommandInput, "TableName">): Omit<UpdateCommandInput, "TableName" | "ReturnValues"> {
  const { ReturnValues: _ignored, ...rest } = update;
  return rest;
}

function keyOf(item: Item | undefined): ItemKey {
  return { pk: String(item?.pk), sk: String(item?.sk) };
}

/** `SET #p0 = :p0, ...` for the defined fields (undefined ones are left out). */
export function buildSet(fields: Record<string, unknown>, prefix = "f") {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments: string[] = [];
  Object.entries(fields).forEach(([field, value], i) => {
    if (value === undefined) return;
    names[`#${prefix}${i}`] = field;
    values[`:${prefix}${i}`] = value;
    assignments.push(`#${prefix}${i} = :${prefix}${i}`);
  });
  return { names, values, assignments, expression: `SET ${assignments.join(", ")}` };
}

/** What parseRecord needs of a schema: zod's and zod/mini's both have it. */
export interface RecordSchema<T> {
  safeParse(item: unknown): { success: true; data: T } | { success: false; error: z.core.$ZodError };
}

/** A stored item that does not match its schema is a MalformedOutputError, never a half-read record. */
export function parseRecord<T>(schema: RecordSchema<T>, item: unknown, what: string): T {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    throw new MalformedOutputError(`stored ${what} does not match its schema`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`) },
    });
  }
  return parsed.data;
}
