import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DYNAMODB_CALL, SFN_CALL } from "../../../lib/core/config/client-budgets";
import { classifyAwsError } from "../../../lib/core/errors/classify";
import { createTokenCipher } from "../../../lib/store/token-cipher";
import { createDocumentClient } from "../../../lib/store/dynamo-client";
import { createSfnClient } from "../../../lib/steps/machines/sfn-client";

/**
 * The AWS SDK's `requestTimeout` only warns unless `throwOnRequestTimeout` is set: a DynamoDB / Step Functions /
 * KMS call to an endpoint that accepts the connection and never answers would then wait forever, past the Lambda
 * timeout derived from its budget. Against such a server each client must give up within its budget
 * (attempts × timeout, plus backoff) with a timeout the error table knows.
 */

let server: Server;
let endpoint: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  // Accepts, reads the request, never answers.
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on("data", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  endpoint = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const env = () => ({ AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "x", AWS_SECRET_ACCESS_KEY: "x" });
const budgetMs = (b: { timeoutMs: number; attempts: number; backoffMs: number }) => b.attempts * b.timeoutMs + 2_000;

async function rejection(call: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  try {
    await call();
  } catch (err) {
    return { err, ms: Date.now() - started };
  }
  throw new Error("the call to a server that never answers succeeded");
}

describe("AWS clients give up on a server that never answers", () => {
  it("DynamoDB: within attempts × timeout, as the timeout row", { timeout: budgetMs(DYNAMODB_CALL) + 5_000 }, async () => {
    const doc = createDocumentClient({ ...env(), DYNAMODB_ENDPOINT: endpoint });
    const { err, ms } = await rejection(() => doc.send(new GetCommand({ TableName: "t", Key: { pk: "a", sk: "b" } })));
    expect((err as Error).name).toBe("TimeoutError");
    expect(classifyAwsError(err, "dynamodb")?.name).toBe("UpstreamTimeoutError");
    expect(ms).toBeLessThan(budgetMs(DYNAMODB_CALL));
  });

  it("Step Functions: within attempts × timeout", { timeout: budgetMs(SFN_CALL) + 5_000 }, async () => {
    const sfn = createSfnClient({ ...env(), SFN_ENDPOINT: endpoint });
    const { err, ms } = await rejection(() => sfn.send(new StartExecutionCommand({ stateMachineArn: "arn:aws:states:us-east-1:123456789012:stateMachine:x", input: "{}" })));
    expect(classifyAwsError(err, "sfn")?.name).toBe("UpstreamTimeoutError");
    expect(ms).toBeLessThan(budgetMs(SFN_CALL));
  });

  it("KMS (the token cipher): gives up too", { timeout: 20_000 }, async () => {
    const cipher = createTokenCipher({ ...env(), TOKEN_KMS_KEY_ID: "arn:aws:kms:us-east-1:123456789012:key/x", KMS_ENDPOINT: endpoint });
    const { err } = await rejection(() => cipher.encrypt("secret", { teamId: "T1" }));
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as Error).cause)).toMatch(/TimeoutError|timed out/);
  });
});
