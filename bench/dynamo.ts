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
  let seen = 0;
  // Tallied from the proxy's log on each read, so a request counts once whatever the caller asks first.
  const tally = () => {
    for (; seen < proxy.requests.length; seen++) {
      const request = proxy.requests[seen]!;
      const operation = String(request.headers["x-amz-target"] ?? "unknown").replace(/^DynamoDB_\d+\./, "");
      counts[operation] = (counts[operation] ?? 0) + 1;
      const key = `${operation} ${itemKinds(request.body)}`;
      byItem[key] = (byItem[key] ?? 0) + 1;
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
    total: () => (tally(), Object.values(counts).reduce((a, b) => a + b, 0)),
    reset() {
      tally();
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
