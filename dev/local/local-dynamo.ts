import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from "@aws-sdk/client-dynamodb";
import { join } from "node:path";
import { createTableInput } from "../../lib/store/table";
import { startDynamoDbLocal } from "./dynamodb-local";

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * The local stack's DynamoDB. `endpoint` given (DYNAMODB_ENDPOINT: a DynamoDB Local you run, or the test suite's
 * one): that one, left running at close. Otherwise DynamoDB Local is started (Java 17: dev/local/dynamodb-local.ts),
 * its data under `<dataDir>/dynamodb-local` so a restart keeps tasks; `dataDir: undefined` keeps it in memory.
 * Creates the table when missing.
 */
export async function startLocalDynamo(options: { dataDir: string | undefined; tableName: string; endpoint?: string }): Promise<LocalDynamo> {
  const own =
    options.endpoint === undefined ? await startDynamoDbLocal(options.dataDir === undefined ? {} : { dbPath: join(options.dataDir, "dynamodb-local") }) : undefined;
  const endpoint = own?.endpoint ?? options.endpoint!;
  const client = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    await createTableIfMissing(client, options.tableName);
  } catch (err) {
    await own?.close();
    throw err;
  } finally {
    client.destroy();
  }
  return { endpoint, close: async () => own?.close() };
}

async function createTableIfMissing(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  }
}
