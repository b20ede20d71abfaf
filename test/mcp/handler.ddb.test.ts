import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { afterAll, beforeAll, expect, it } from "vitest";
import { issueMcpBearer } from "../../lib/mcp/bearer";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { createFreeeMcpHandlerFromEnv } from "../../wiring/freee-mcp";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";
import { localKey } from "../freee/helpers";
import { seedExecution } from "./harness";

/** The Lambda entry as deployed: wired from the environment, called with Function URL events. */

const SECRET = "mcp-bearer-secret-for-handler-test-000000";
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
  Object.assign(process.env, table.env, {
    MCP_BEARER_SECRET: SECRET,
    FREEE_CLIENT_ID: "cid",
    FREEE_CLIENT_SECRET: "csecret",
    FREEE_API_BASE_URL: "http://127.0.0.1:9",
    FREEE_OAUTH_BASE_URL: "http://127.0.0.1:9",
    FREEE_TOKEN_LOCAL_KEY: localKey(),
  });
});
afterAll(async () => table.close());

function event(authorization: string | undefined, body: unknown): APIGatewayProxyEventV2 {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: "/mcp",
    rawQueryString: "",
    headers: {
      host: "mcp.lambda-url.ap-northeast-1.on.aws",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(authorization === undefined ? {} : { authorization }),
    },
    requestContext: { domainName: "mcp.lambda-url.ap-northeast-1.on.aws", http: { method: "POST", path: "/mcp" } },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

/** The part of the Lambda context the handler reads: the invocation's remaining time. */
const lambdaContext = { getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };

it("the Lambda handler answers 401 without a bearer and serves initialize / tools/list with a valid one", async () => {
  const { handler } = await import("../../lambdas/freee-mcp/handler");
  expect((await handler(event(undefined, initialize), lambdaContext)).statusCode).toBe(401);

  const store = new TaskStore(table.doc, table.tableName);
  const { execution } = await seedExecution(store, "THANDLER", "1700000001.000001", [{ stepId: "s1", order: 1, tool: "freee_accounting_list_deals", toolInput: {} }]);
  const bearer = issueMcpBearer({ teamId: "THANDLER", executionId: execution.executionId, ttlSeconds: 600 }, SECRET);
  const init = await handler(event(`Bearer ${bearer}`, initialize), lambdaContext);
  expect(init.statusCode).toBe(200);
  expect(JSON.parse(init.body!)).toMatchObject({ result: { serverInfo: { name: "freee" } } });

  const list = await handler(event(`Bearer ${bearer}`, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }), lambdaContext);
  expect(JSON.parse(list.body!).result.tools.length).toBeGreaterThan(5);
});

it("missing settings fail at wiring time (FatalConfigError), not as a 401", async () => {
  await expect(createFreeeMcpHandlerFromEnv({ TABLE_NAME: "t" })).rejects.toBeInstanceOf(FatalConfigError);
});
