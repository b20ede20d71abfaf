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
  total(): number;
  reset(): void;
  createTable(tableName: string): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingDynamo(): Promise<CountingDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const counts: Record<string, number> = {};
  server.on("request", (req: { headers: Record<string, string | string[] | undefined> }) => {
    const target = String(req.headers["x-amz-target"] ?? "unknown").replace(/^DynamoDB_\d+\./, "");
    counts[target] = (counts[target] ?? 0) + 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    counts,
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    reset() {
      for (const key of Object.keys(counts)) delete counts[key];
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
