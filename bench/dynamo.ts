import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import type { AddressInfo } from "node:net";
import { createTableInput } from "../lib/store/table";

/**
 * dynalite on 127.0.0.1 (as test/support/dynamo.ts starts it) with every request counted at the HTTP server by
 * its X-Amz-Target operation: that counts what any client in the process sends (ingress, step handlers,
 * lib/actions), retries included, without touching the app's clients.
 */
export interface CountingDynamo {
  endpoint: string;
  counts: Record<string, number>;
  /** The same requests by operation and the kind of item they touch: `GetItem TASK META`, `Query TASK EXEC#…PROMPT#`. */
  byItem: Record<string, number>;
  total(): number;
  reset(): void;
  createTable(tableName: string): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingDynamo(): Promise<CountingDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const counts: Record<string, number> = {};
  const byItem: Record<string, number> = {};
  server.on("request", (req: NodeJS.ReadableStream & { headers: Record<string, string | string[] | undefined> }) => {
    const target = String(req.headers["x-amz-target"] ?? "unknown").replace(/^DynamoDB_\d+\./, "");
    counts[target] = (counts[target] ?? 0) + 1;
    // dynalite reads the body too: a second 'data' listener sees the same chunks.
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const what = `${target} ${itemKind(Buffer.concat(chunks).toString("utf8"))}`;
      byItem[what] = (byItem[what] ?? 0) + 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    counts,
    byItem,
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    reset() {
      for (const key of Object.keys(counts)) delete counts[key];
      for (const key of Object.keys(byItem)) delete byItem[key];
    },
    async createTable(tableName) {
      const raw = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
      try {
        await raw.send(new CreateTableCommand(createTableInput(tableName)));
      } finally {
        raw.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

type Attr = { S?: string } | undefined;

/** The partition prefix and sort-key kind a request addresses (ids and numbers left out), from its JSON body. */
function itemKind(body: string): string {
  let input: { Key?: Record<string, Attr>; Item?: Record<string, Attr>; IndexName?: string; ExpressionAttributeValues?: Record<string, Attr> };
  try {
    input = JSON.parse(body) as typeof input;
  } catch (err) {
    if (err instanceof SyntaxError) return "(unreadable body)";
    throw err;
  }
  const kind = (value: string | undefined) => (value ?? "?").replace(/#.*$/, "#");
  const key = input.Key ?? input.Item;
  if (key !== undefined) return `${kind(key.pk?.S)} ${(key.sk?.S ?? "?").replace(/#.*$/, "#")}`;
  if (input.IndexName !== undefined) return `index ${input.IndexName}`;
  const values = input.ExpressionAttributeValues ?? {};
  const from = values[":from"]?.S;
  const to = values[":to"]?.S;
  return `${kind(values[":pk"]?.S)} ${from === undefined ? "(partition)" : `${from}…${(to ?? "?").replace(/\W+$/, "")}`}`;
}
