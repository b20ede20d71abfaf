import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { createTableInput } from "../../lib/store/table";

/**
 * A real DynamoDB for tests: AWS's DynamoDB Local, one per vitest run (test/setup/dynamodb-local.ts starts it and
 * sets TEST_DYNAMODB_ENDPOINT), a fresh table per call. Set TEST_DYNAMODB_ENDPOINT yourself to use another one.
 */
export interface TestTable {
  endpoint: string;
  tableName: string;
  doc: DynamoDBDocumentClient;
  env: Record<string, string>;
  close(): Promise<void>;
}

let counter = 0;

/** The run's DynamoDB endpoint. */
export function testDynamoEndpoint(): string {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint === undefined || endpoint === "") {
    throw new FatalConfigError("TEST_DYNAMODB_ENDPOINT is not set: run the tests with vitest (its globalSetup starts DynamoDB Local)", {
      details: { setting: "TEST_DYNAMODB_ENDPOINT" },
    });
  }
  return endpoint;
}

/** A table name no other test file of the run uses (the run's DynamoDB Local is shared). */
export function uniqueTableName(prefix = "test"): string {
  return `${prefix}-${process.pid}-${Date.now()}-${counter++}`;
}

export async function startTestTable(): Promise<TestTable> {
  const endpoint = testDynamoEndpoint();
  const tableName = uniqueTableName();
  const env = { DYNAMODB_ENDPOINT: endpoint, AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local", TABLE_NAME: tableName };
  const raw = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    await raw.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    raw.destroy();
  }
  const doc = createDocumentClient(env);
  return {
    endpoint,
    tableName,
    doc,
    env,
    async close() {
      doc.destroy();
    },
  };
}
