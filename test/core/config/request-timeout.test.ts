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
 * timeout derived from its budget. Against such a server each client must give up within its budget with a
 * timeout the error table knows: each of its attempts is a connection the server sees the client close (its
 * timeout, not ours), and there are exactly as many as the budget says — so the time is attempts × timeout
 * plus backoff by construction, with no wall clock to judge it on a loaded machine. A client that never gives
 * up is ended by the test's limit.
 */

let server: Server;
let endpoint: string;
const sockets = new Set<Socket>();
/** Connections accepted, and closed by the client, since the test began. */
let accepted = 0;
let closedByClient = 0;

beforeAll(async () => {
  // Accepts, reads the request, never answers.
  server = createServer((socket) => {
    sockets.add(socket);
    accepted += 1;
    socket.on("data", () => {});
    socket.on("end", () => (closedByClient += 1));
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
async function rejection(call: () => Promise<unknown>): Promise<{ err: unknown; attempts: number; gaveUp: number }> {
  [accepted, closedByClient] = [0, 0];
  try {
    await call();
  } catch (err) {
    // The client's last close may reach the server a moment after the call rejects.
    while (closedByClient < accepted) await new Promise((resolve) => setTimeout(resolve, 5));
    return { err, attempts: accepted, gaveUp: closedByClient };
  }
  throw new Error("the call to a server that never answers succeeded");
}

describe("AWS clients give up on a server that never answers", () => {
  it("DynamoDB: its attempts, each ended by its timeout, as the timeout row", async () => {
    const doc = createDocumentClient({ ...env(), DYNAMODB_ENDPOINT: endpoint });
    const { err, attempts, gaveUp } = await rejection(() => doc.send(new GetCommand({ TableName: "t", Key: { pk: "a", sk: "b" } })));
    expect((err as Error).name).toBe("TimeoutError");
    expect(classifyAwsError(err, "dynamodb")?.name).toBe("UpstreamTimeoutError");
    expect([attempts, gaveUp]).toEqual([DYNAMODB_CALL.attempts, DYNAMODB_CALL.attempts]);
  });

  it("Step Functions: its attempts, each ended by its timeout", async () => {
    const sfn = createSfnClient({ ...env(), SFN_ENDPOINT: endpoint });
    const { err, attempts, gaveUp } = await rejection(() => sfn.send(new StartExecutionCommand({ stateMachineArn: "arn:aws:states:us-east-1:123456789012:stateMachine:x", input: "{}" })));
    expect(classifyAwsError(err, "sfn")?.name).toBe("UpstreamTimeoutError");
    expect([attempts, gaveUp]).toEqual([SFN_CALL.attempts, SFN_CALL.attempts]);
  });

  it("KMS (the token cipher): gives up too", async () => {
    const cipher = createTokenCipher({ ...env(), TOKEN_KMS_KEY_ID: "arn:aws:kms:us-east-1:123456789012:key/x", KMS_ENDPOINT: endpoint });
    const { err } = await rejection(() => cipher.encrypt("secret", { teamId: "T1" }));
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as Error).cause)).toMatch(/TimeoutError|timed out/);
  });
});
