import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startFaultProxy } from "../dev/chaos/fault-proxy";
import { startDynamoDbLocal, type DynamoDbLocal } from "../dev/local/dynamodb-local";
import { createTableInput } from "../lib/store/table";

/**
 * DynamoDB Local with every request counted on its way in by its X-Amz-Target operation: a pass-through HTTP
 * proxy (dev/chaos/fault-proxy, no rule armed) on 127.0.0.1 in front of it. That counts what any client in the
 * process sends (ingress, step handlers, lib/ingress/actions), retries included, without touching the app's clients.
 * `upstream`: a DynamoDB that already runs (the test suite's); otherwise one is started and stopped with this.
 */
export interface CountingDynamo {
  /** The counting proxy: what a client should use whose requests are counted. */
  endpoint: string;
  /** DynamoDB itself, not counted: the warm bench's timed requests (the proxy's hop would be timed as ours). */
  directEndpoint: string;
  counts: Record<string, number>;
  /** The same requests by operation and the kind of item they touch: `GetItem TASK META`, `Query TASK EXEC#…PROMPT#`. */
  byItem: Record<string, number>;
  /** On-demand request units of the same requests, estimated from their bodies (requestUnits below). */
  units: RequestUnits;
  total(): number;
  reset(): void;
  createTable(tableName: string): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingDynamo(upstream?: string): Promise<CountingDynamo> {
  const own: DynamoDbLocal | undefined = upstream === undefined ? await startDynamoDbLocal() : undefined;
  const target = upstream ?? own!.endpoint;
  const proxy = await startFaultProxy({ dependency: "DynamoDB", target, phases: () => [] });
  const counts: Record<string, number> = {};
  const byItem: Record<string, number> = {};
  const units: RequestUnits = { read: 0, write: 0 };
  let seen = 0;
  // Tallied from the proxy's log on each read, so a request counts once whatever the caller asks first.
  const tally = () => {
    for (; seen < proxy.requests.length; seen++) {
      const request = proxy.requests[seen]!;
      const operation = String(request.headers["x-amz-target"] ?? "unknown").replace(/^DynamoDB_\d+\./, "");
      counts[operation] = (counts[operation] ?? 0) + 1;
      const key = `${operation} ${itemKinds(request.body)}`;
      byItem[key] = (byItem[key] ?? 0) + 1;
      const u = requestUnits(operation, request.body);
      units.read += u.read;
      units.write += u.write;
    }
  };
  return {
    endpoint: proxy.url,
    directEndpoint: target,
    get counts() {
      tally();
      return counts;
    },
    get byItem() {
      tally();
      return byItem;
    },
    get units() {
      tally();
      return { ...units };
    },
    total: () => (tally(), Object.values(counts).reduce((a, b) => a + b, 0)),
    reset() {
      tally();
      units.read = 0;
      units.write = 0;
      for (const key of Object.keys(counts)) delete counts[key];
      for (const key of Object.keys(byItem)) delete byItem[key];
    },
    async createTable(tableName) {
      const raw = new DynamoDBClient({ endpoint: target, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
      try {
        await raw.send(new CreateTableCommand(createTableInput(tableName)));
      } finally {
        raw.destroy();
      }
    },
    async close() {
      await proxy.close();
      await own?.close();
    },
  };
}

export interface RequestUnits {
  read: number;
  write: number;
}

/**
 * What DynamoDB on-demand bills a request, estimated from its body: a read of ≤ 4 KB is 1 read unit strongly
 * consistent, 0.5 eventually (a Query's answer assumed ≤ 4 KB: the app's queries read one task's items); a
 * transactional read 2 per item. A write is 1 write unit per started KB of the item, taken as the JSON of what the
 * request sends for it (DynamoDB JSON is larger than the item, so this errs high; an UpdateItem's item may be larger
 * than the update, so that errs low); a transactional write 2 per KB per item.
 */
export function requestUnits(operation: string, body: string): RequestUnits {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(body) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof SyntaxError) return { read: 0, write: 0 };
    throw err;
  }
  const kb = (value: unknown) => Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(value ?? {})) / 1024));
  const readOf = (i: Record<string, unknown>) => (i.ConsistentRead === true ? 1 : 0.5);
  const items = (input.TransactItems ?? []) as Array<Record<string, unknown>>;
  switch (operation) {
    case "GetItem":
    case "Query":
    case "Scan":
      return { read: readOf(input), write: 0 };
    case "TransactGetItems":
      return { read: 2 * items.length, write: 0 };
    case "PutItem":
      return { read: 0, write: kb(input.Item) };
    case "UpdateItem":
    case "DeleteItem":
      return { read: 0, write: kb(input) };
    case "TransactWriteItems":
      return { read: 0, write: items.reduce((sum, t) => sum + 2 * kb(Object.values(t)[0]), 0) };
    default:
      // Table management (CreateTable) and batch calls the app does not make: not a task's cost.
      return { read: 0, write: 0 };
  }
}

type Attr = { S?: string } | undefined;
type Input = { Key?: Record<string, Attr>; Item?: Record<string, Attr>; IndexName?: string; ExpressionAttributeValues?: Record<string, Attr> };

/**
 * The partition prefix and sort-key kind a request addresses (ids and numbers left out), from its JSON body; a
 * transaction names each of its items (`TransactWriteItems TASK# META + TASK# AUDIT#`), so the breakdown still
 * has one entry per request.
 */
function itemKinds(body: string): string {
  let input: Input & { TransactItems?: Record<string, Input>[] };
  try {
    input = JSON.parse(body) as typeof input;
  } catch (err) {
    if (err instanceof SyntaxError) return "(unreadable body)";
    throw err;
  }
  if (input.TransactItems !== undefined) return input.TransactItems.map((t) => itemKind(Object.values(t)[0] ?? {})).join(" + ");
  return itemKind(input);
}

function itemKind(input: Input): string {
  const kind = (value: string | undefined) => (value ?? "?").replace(/#.*$/, "#");
  const key = input.Key ?? input.Item;
  if (key !== undefined) return `${kind(key.pk?.S)} ${(key.sk?.S ?? "?").replace(/#.*$/, "#")}`;
  if (input.IndexName !== undefined) return `index ${input.IndexName}`;
  const values = input.ExpressionAttributeValues ?? {};
  const from = values[":from"]?.S;
  const to = values[":to"]?.S;
  return `${kind(values[":pk"]?.S)} ${from === undefined ? "(partition)" : `${from}…${(to ?? "?").replace(/\W+$/, "")}`}`;
}
