import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/**
 * The bench's naive MCP forwarder: what a tutorial would write with the official SDK. One tool passes the
 * request it is given to freee with one access token and answers freee's body: no bearer, no approved Process,
 * no ledger, no audit, no table at all. Stateless Streamable HTTP with JSON responses, one server per request, as
 * lib/mcp/server.ts runs, so the transport costs both sides the same.
 */
export const FORWARD_TOOL = "freee_request";

export interface ForwardedRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

export function createForwarder(apiBaseUrl: string, accessToken: string): (req: Request) => Promise<Response> {
  return async (req) => {
    const server = new McpServer({ name: "naive-forwarder", version: "1.0.0" });
    server.registerTool(
      FORWARD_TOOL,
      {
        description: "Sends one request to the freee API",
        inputSchema: { method: z.string(), path: z.string(), query: z.record(z.string(), z.string()).optional(), body: z.unknown().optional() },
      },
      async ({ method, path, query, body }) => {
        const url = new URL(path, apiBaseUrl);
        for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
        const res = await fetch(url, {
          method,
          headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { content: [{ type: "text", text: await res.text() }], isError: !res.ok };
      },
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  };
}
