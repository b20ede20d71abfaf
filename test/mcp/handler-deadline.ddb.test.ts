import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { afterAll, beforeAll, expect, it } from "vitest";
import { issueMcpBearer } from "../../lib/mcp/bearer";
import { freeeRateLimitedMessage } from "../../lib/core/messages/ja";
import { TaskStore } from "../../lib/store/task-store";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { startTestTable, type TestTable } from "../support/dynamo";
import { connect, localKey, makeStore } from "../freee/helpers";
import { seedExecution } from "./harness";

/**
 * The MCP Lambda as deployed, over its Function URL event and Lambda context: the invocation's remaining time
 * reaches the freee client, so a 429 whose reset is further off than the invocation has left is answered at
 * once (the agent is told when to try again) instead of being waited out until the Lambda is killed.
 */

const SECRET = "mcp-bearer-secret-for-deadline-test-0000";
const TEAM = "TDEADLINE";
let table: TestTable;
let fake: FakeFreee;

beforeAll(async () => {
  table = await startTestTable();
  fake = await startFakeFreee();
  const key = localKey();
  await connect(makeStore(table, key), fake, TEAM);
  Object.assign(process.env, table.env, {
    MCP_BEARER_SECRET: SECRET,
    FREEE_CLIENT_ID: FAKE_CLIENT_ID,
    FREEE_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    FREEE_API_BASE_URL: fake.url,
    FREEE_OAUTH_BASE_URL: fake.url,
    FREEE_TOKEN_LOCAL_KEY: key,
  });
});
afterAll(async () => {
  await fake.stop();
  await table.close();
});

function event(bearer: string, body: unknown): APIGatewayProxyEventV2 {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: "/mcp",
    rawQueryString: "",
    headers: { host: "mcp.lambda-url.ap-northeast-1.on.aws", "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${bearer}` },
    requestContext: { domainName: "mcp.lambda-url.ap-northeast-1.on.aws", http: { method: "POST", path: "/mcp" } },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

it("a 429 resetting in 20 s with 15 s of the invocation left: answered at once with the wait, freee asked once", async () => {
  const store = new TaskStore(table.doc, table.tableName);
  const { execution } = await seedExecution(store, TEAM, "1700000002.000001", [{ stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 1 } }]);
  const bearer = issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 600 }, SECRET);
  // Every HR request is over the limit until the 20-second window resets.
  fake.setRateLimit("hr", { limit: 0, windowSeconds: 20 });
  const { handler } = await import("../../lambdas/freee-mcp/handler");
  const res = await handler(
    event(bearer, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } } }),
    { getRemainingTimeInMillis: () => 15_000 } as unknown as Context,
  );
  const result = JSON.parse(res.body!).result;
  expect(result.isError).toBe(true);
  // Answered at once: the wait it says is still nearly the whole window, and freee was asked once (no retry after
  // a sleep). The reset is a whole second, up to 20 s from the window's start (a moment ago).
  const seconds = Number(/制限は約 (\d+) 秒後に解除されます/.exec(result.content[0].text)?.[1]);
  expect(seconds).toBeGreaterThanOrEqual(15);
  expect(seconds).toBeLessThanOrEqual(21);
  expect(result.content[0].text).toBe(freeeRateLimitedMessage(seconds));
  expect(fake.apiRequests("/hr/api/v1/employees")).toHaveLength(1);
});
