import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import type { AddressInfo } from "node:net";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { createTableInput } from "../../lib/store/table";

/**
 * A real DynamoDB wire endpoint for tests. Default: dynalite in-process on 127.0.0.1 (ephemeral port).
 * `TEST_DYNAMODB_ENDPOINT=http://127.0.0.1:8000` runs the same suite against DynamoDB Local instead
 * (`npm run test:ddb-local` starts it).
 */
export interface TestTable {
  endpoint: string;
  tableName: string;
  doc: DynamoDBDocumentClient;
  env: Record<string, string>;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestTable(): Promise<TestTable> {
  const external = process.env.TEST_DYNAMODB_ENDPOINT;
  let endpoint: string;
  let stop: () => Promise<void> = async () => {};
  if (external !== undefined && external !== "") {
    endpoint = external;
  } else {
    const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const tableName = `test-${process.pid}-${Date.now()}-${counter++}`;
  const env = { DYNAMODB_ENDPOINT: endpoint, AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local", TABLE_NAME: tableName };
  const raw = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await raw.send(new CreateTableCommand(createTableInput(tableName)));
  raw.destroy();
  const doc = createDocumentClient(env);
  return {
    endpoint,
    tableName,
    doc,
    env,
    async close() {
      doc.destroy();
      await stop();
    },
  };
}
