import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { localEndpointConfig } from "../core/aws/local-endpoint";
import { DYNAMODB_CALL } from "../core/config/client-budgets";
import type { Env } from "../core/config/env";
import { boundedRequestHandler } from "../core/config/request-handler";

/**
 * Document client with few SDK retries: Step Functions owns the retry policy (docs/architecture.md, shape on AWS), so throttling
 * surfaces as ThrottledError and shows in the execution history. `DYNAMODB_ENDPOINT` points it at
 * DynamoDB Local.
 */
export function createDocumentClient(env: Env = process.env): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: DYNAMODB_CALL.attempts,
    // Without a request timeout one hung call could outlive the Lambda (its timeout is derived from this budget).
    requestHandler: boundedRequestHandler(DYNAMODB_CALL),
    ...localEndpointConfig("DYNAMODB_ENDPOINT", env),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
