import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { createFreeeMcpHandlerFromEnv } from "../../wiring/freee-mcp";
import { functionUrlHandler } from "../../lib/mcp/function-url";

/**
 * The freee MCP Lambda behind its Function URL (auth NONE: every request carries the MCP bearer, checked in
 * code). Wiring happens once per container; a failed wiring (missing setting, unreachable secret) is not
 * cached, so the next request tries again and the error shows in every failed invocation's log.
 */
let wired: Promise<(req: Request) => Promise<Response>> | undefined;

function getHandler(): Promise<(req: Request) => Promise<Response>> {
  if (wired === undefined) {
    wired = createFreeeMcpHandlerFromEnv().catch((err: unknown) => {
      wired = undefined;
      throw err;
    });
  }
  return wired;
}

/** Plain fetch-style entry, for the local dev server. */
export async function fetchHandler(req: Request): Promise<Response> {
  return (await getHandler())(req);
}

/** The Lambda context gives the freee client the invocation's remaining time (rate-limit waits). */
export const handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2> = functionUrlHandler(fetchHandler);
