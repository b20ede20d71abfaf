import { startDynamoDbLocal } from "../../dev/local/dynamodb-local";

/**
 * vitest globalSetup: ONE DynamoDB Local (in memory) for the whole run; each test file makes its own tables on it
 * (test/support/dynamo.ts). TEST_DYNAMODB_ENDPOINT already set: that DynamoDB is used and nothing is started.
 * The workers inherit the variable (they are forked after this runs).
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if ((process.env.TEST_DYNAMODB_ENDPOINT ?? "") !== "") return undefined;
  const started = Date.now();
  const ddb = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = ddb.endpoint;
  process.env.TEST_DYNAMODB_START_MS = String(Date.now() - started);
  return async () => {
    delete process.env.TEST_DYNAMODB_ENDPOINT;
    await ddb.close();
  };
}
