import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createTableInput } from "../../lib/store/table";

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * dynalite in-process on 127.0.0.1 (ephemeral port), its data under `<dataDir>/dynamodb` (LevelDB) so a
 * restart keeps tasks; `dataDir: undefined` keeps everything in memory (tests). Creates the table when missing.
 */
export async function startLocalDynamo(options: { dataDir: string | undefined; tableName: string }): Promise<LocalDynamo> {
  let path: string | undefined;
  if (options.dataDir !== undefined) {
    path = join(options.dataDir, "dynamodb");
    mkdirSync(path, { recursive: true });
  }
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path === undefined ? {} : { path }) });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    await client.send(new DescribeTableCommand({ TableName: options.tableName }));
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
    await client.send(new CreateTableCommand(createTableInput(options.tableName)));
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
