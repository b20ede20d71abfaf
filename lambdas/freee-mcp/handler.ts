import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { createFreeeMcpHandlerFromEnv } from "../../wiring/freee-mcp";
import { plainFunctionUrlHandler } from "../../lib/mcp/function-url";
import { webHandler, type McpHttpHandler } from "../../lib/mcp/http";

/**
 * The freee MCP Lambda behind its Function URL (auth NONE: every request carries the MCP bearer, checked in
 * code). Wiring happens once per container; a failed wiring (missing setting, unreachable secret) is not
 * cached, so the next request tries again and the error shows in every failed invocation's log.
 */
let wired: Promise<McpHttpHandler> | undefined;

function getHandler(): Promise<McpHttpHandler> {
  if (wired === undefined) {
    wired = createFreeeMcpHandlerFromEnv().catch((err: unknown) => {
      wired = undefined;
      throw err;
    });
  }
  return wired;
}

/** Plain fetch-style entry, for the local dev server. */
export const fetchHandler: (req: Request) => Promise<Response> = webHandler(async (req) => (await getHandler())(req));

/**
 * The Lambda context gives the freee client the invocation's remaining time (rate-limit waits). The event is served
 * as a plain request (lib/mcp/http.ts): an `initialize` or `tools/list` never loads Node's fetch implementation.
 */
export const handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2> = plainFunctionUrlHandler(async (req) => (await getHandler())(req));
