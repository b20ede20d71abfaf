import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import * as sdkTypes from "@modelcontextprotocol/sdk/types.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { toWebResponse } from "../../lib/mcp/http";
import { answerPost, LATEST_PROTOCOL_VERSION, MAX_BATCH_SIZE, readPostBody, SUPPORTED_PROTOCOL_VERSIONS, type McpToolServer } from "../../lib/mcp/json-rpc";

/**
 * Our JSON-RPC answer (lib/mcp/json-rpc.ts) against the official SDK's Server and stateless JSON transport, as the
 * freee MCP server used them: each request below goes to both, and both must answer the same status and the same
 * JSON-RPC body (for errors: the same code; the SDK's messages for invalid params are zod's). The whole server
 * with the official client is test/mcp/server.ddb.test.ts and the others in this folder.
 */
const TOOLS: Tool[] = [{ name: "echo", description: "返す", inputSchema: { type: "object", properties: { text: { type: "string" } } }, annotations: { readOnlyHint: true } }];
const callResult = (name: string, args: Record<string, unknown>): CallToolResult => ({ content: [{ type: "text", text: `${name} ${JSON.stringify(args)}` }], structuredContent: { args } });
const INFO = { name: "freee", version: "1.0.0" };

const ours: McpToolServer = { serverInfo: INFO, tools: () => TOOLS, callTool: async (name, args) => callResult(name, args) };

async function viaOurs(req: Request): Promise<Response> {
  return toWebResponse(await answerPost(req, await readPostBody(req), ours));
}

async function viaSdk(req: Request): Promise<Response> {
  const server = new Server(INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callResult(request.params.name, request.params.arguments ?? {}));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    await server.close();
  }
}

const HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const post = (body: unknown, headers: Record<string, string> = HEADERS) => () => new Request("https://mcp.test/mcp", { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
const rpc = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const INIT = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } };

/** Status, content type and body; error messages only where the SDK's are not zod's. */
async function seen(res: Response, messages: boolean) {
  const text = await res.text();
  const body = text === "" ? null : (JSON.parse(text) as unknown);
  const strip = (m: Record<string, unknown>) => (m.error === undefined || messages ? m : { ...m, error: { code: (m.error as { code: number }).code } });
  return { status: res.status, type: res.headers.get("content-type"), body: Array.isArray(body) ? body.map(strip) : body === null ? null : strip(body as Record<string, unknown>) };
}

const CASES: Array<[string, () => Request, boolean?]> = [
  ["initialize, a version both speak", post(rpc(1, "initialize", INIT))],
  ["initialize, a version unknown: the latest", post(rpc(1, "initialize", { ...INIT, protocolVersion: "1999-01-01" }))],
  ["initialize in a batch", post([rpc(1, "initialize", INIT), rpc(2, "ping")])],
  ["the initialized notification: 202, no body", post({ jsonrpc: "2.0", method: "notifications/initialized" })],
  ["a response from the client: 202", post({ jsonrpc: "2.0", id: 9, result: {} })],
  ["ping", post(rpc(2, "ping"))],
  ["tools/list", post(rpc("a", "tools/list"))],
  ["tools/list with a cursor", post(rpc(3, "tools/list", { cursor: "x" }))],
  ["tools/call", post(rpc(4, "tools/call", { name: "echo", arguments: { text: "やあ" } }))],
  ["tools/call without arguments", post(rpc(5, "tools/call", { name: "echo" }))],
  ["an unknown method", post(rpc(8, "resources/list"))],
  ["a batch of two requests and a notification", post([rpc(1, "ping"), { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } }, rpc(2, "tools/list")])],
  ["a batch too large", post(Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => rpc(i, "ping")))],
  ["not JSON", post("{nope")],
  ["not JSON-RPC", post({ jsonrpc: "1.0", id: 1, method: "ping" })],
  ["a request id that is null", post({ jsonrpc: "2.0", id: null, method: "ping" })],
  ["an Accept without event-stream: 406", post(rpc(1, "ping"), { ...HEADERS, accept: "application/json" })],
  ["a form body: 415", post(rpc(1, "ping"), { ...HEADERS, "content-type": "text/plain" })],
  ["JSON with a charset", post(rpc(1, "ping"), { ...HEADERS, "content-type": "application/json; charset=utf-8" })],
  ["an unsupported protocol version header", post(rpc(1, "ping"), { ...HEADERS, "mcp-protocol-version": "1999-01-01" })],
  ["a supported protocol version header", post(rpc(1, "tools/list"), { ...HEADERS, "mcp-protocol-version": "2025-06-18" })],
  ["a body declared over 4 MiB: 413", post(rpc(1, "ping"), { ...HEADERS, "content-length": String(4 * 1024 * 1024 + 1) })],
];

describe("our JSON-RPC answers as the SDK's stateless server did", () => {
  it.each(CASES)("%s", async (_name, request, messages = true) => {
    expect(await seen(await viaOurs(request()), messages)).toEqual(await seen(await viaSdk(request()), messages));
  });

  // One deliberate difference: the SDK's request parse (zod, in its Protocol) throws before its own InvalidParams
  // check and answers -32603 Internal error; ours answers JSON-RPC's -32602 Invalid params, naming what is wrong.
  it.each([
    ["tools/call, arguments not an object", post(rpc(6, "tools/call", { name: "echo", arguments: [1] }))],
    ["tools/call without a name", post(rpc(7, "tools/call", { arguments: {} }))],
    ["initialize without clientInfo", post(rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {} }))],
  ])("%s: -32602 (the SDK: -32603)", async (_name, request) => {
    const [o, sdk] = [await seen(await viaOurs(request()), true), await seen(await viaSdk(request()), false)];
    expect(o).toMatchObject({ status: 200, body: { jsonrpc: "2.0", error: { code: -32602, message: expect.stringMatching(/^Invalid (tools\/call|initialize) request: /) } } });
    expect(sdk).toMatchObject({ status: 200, body: { error: { code: -32603 } } });
  });

  it("speaks the protocol versions of the SDK the tests use", () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(sdkTypes.LATEST_PROTOCOL_VERSION);
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(sdkTypes.SUPPORTED_PROTOCOL_VERSIONS);
  });
});
