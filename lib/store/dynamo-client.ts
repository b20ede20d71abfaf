import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { localEndpointConfig } from "../aws/local-endpoint";
import type { Env } from "../config/env";

/**
 * Document client with few SDK retries: Step Functions owns the retry policy (DESIGN §2), so throttling
 * surfaces as ThrottledError and shows in the execution history. `DYNAMODB_ENDPOINT` points it at dynalite
 * or DynamoDB Local.
 */
export function createDocumentClient(env: Env = process.env): DynamoDBDocumentClient {
  const client = new DynamoDBClient({ maxAttempts: 2, ...localEndpointConfig("DYNAMODB_ENDPOINT", env) });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
