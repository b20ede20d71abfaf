import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { optionalEnv, type Env } from "../config/env";

/**
 * Document client with few SDK retries: Step Functions owns the retry policy (DESIGN §2), so throttling
 * surfaces as ThrottledError and shows in the execution history. `DYNAMODB_ENDPOINT` points it at dynalite
 * or DynamoDB Local.
 */
export function createDocumentClient(env: Env = process.env): DynamoDBDocumentClient {
  const endpoint = optionalEnv("DYNAMODB_ENDPOINT", env);
  const client = new DynamoDBClient({
    maxAttempts: 2,
    ...(endpoint === undefined
      ? {}
      : {
          endpoint,
          region: optionalEnv("AWS_REGION", env) ?? "local",
          credentials: {
            accessKeyId: optionalEnv("AWS_ACCESS_KEY_ID", env) ?? "local",
            secretAccessKey: optionalEnv("AWS_SECRET_ACCESS_KEY", env) ?? "local",
          },
        }),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
