import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { jsonAnswer, type McpHttpRequest, type McpHttpResponse } from "./http";

/**
 * The MCP server's wire: JSON-RPC 2.0 over Streamable HTTP, stateless, answered as JSON (never SSE), for a server
 * that offers tools only. It answers as the official SDK's `Server` with its `WebStandardStreamableHTTPServerTransport`
 * (`sessionIdGenerator: undefined`, `enableJsonResponse: true`) did, status and JSON-RPC codes alike
 * (test/mcp/json-rpc.test.ts sends the same requests to both; test/mcp speaks to ours with the official client).
 * Why not the SDK: its `types.js` builds a zod schema of every MCP message at load (about 200 schemas of full zod,
 * ~170 KiB in the bundle), the largest part of the freee MCP Lambda's cold start, for the five methods used here.
 */

/** The protocol versions the SDK this was written against speaks (test/mcp/json-rpc.test.ts holds them to it). */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
/** As the SDK's transport: a body over 4 MiB is refused unread, a batch of more than 100 messages too. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_BATCH_SIZE = 100;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const SERVER_ERROR = -32000;

export type RequestId = string | number;

export interface McpToolServer {
  serverInfo: { name: string; version: string };
  tools(): Tool[];
  callTool(name: string, args: Record<string, unknown>, requestId: RequestId): Promise<CallToolResult>;
}

/** A POST body as read: its text, or too large to read. */
export type PostBody = { text: string } | { tooLarge: true };

type Message = Record<string, unknown> & { jsonrpc: "2.0" };
type RpcRequest = Message & { id: RequestId; method: string; params?: Record<string, unknown> };

/** The body, bounded as the SDK's transport bounds it (a declared length over the bound is not read). */
export async function readPostBody(req: McpHttpRequest): Promise<PostBody> {
  if (Number(req.headers.get("content-length")) > MAX_BODY_BYTES) return { tooLarge: true };
  const text = await req.text();
  return Buffer.byteLength(text, "utf8") > MAX_BODY_BYTES ? { tooLarge: true } : { text };
}

export async function answerPost(req: McpHttpRequest, body: PostBody, server: McpToolServer): Promise<McpHttpResponse> {
  const accept = req.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return errorResponse(406, SERVER_ERROR, "Not Acceptable: Client must accept both application/json and text/event-stream");
  }
  if (!isJsonContentType(req.headers.get("content-type"))) return errorResponse(415, SERVER_ERROR, "Unsupported Media Type: Content-Type must be application/json");
  if ("tooLarge" in body) return errorResponse(413, SERVER_ERROR, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(body.text);
  } catch {
    return errorResponse(400, PARSE_ERROR, "Parse error: Invalid JSON");
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) return errorResponse(400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages = Array.isArray(raw) ? raw : [raw];
  if (!messages.every(isJsonRpcMessage)) return errorResponse(400, PARSE_ERROR, "Parse error: Invalid JSON-RPC message");
  const initializing = messages.some((m) => m.method === "initialize" && isRequest(m));
  if (initializing && messages.length > 1) return errorResponse(400, INVALID_REQUEST, "Invalid Request: Only one initialization request is allowed");
  const version = req.headers.get("mcp-protocol-version");
  if (!initializing && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return errorResponse(400, SERVER_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`);
  }
  // Notifications (initialized, cancelled: nothing to cancel in a one-request server) and responses need no answer.
  const requests = messages.filter(isRequest);
  if (requests.length === 0) return { status: 202, headers: {}, body: null };
  const answers = await Promise.all(requests.map((r) => answer(r, server)));
  return jsonAnswer(200, answers.length === 1 ? answers[0] : answers);
}

type Outcome = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

async function answer(request: RpcRequest, server: McpToolServer): Promise<Message> {
  let outcome: Outcome;
  try {
    outcome = await outcomeOf(request, server);
  } catch (err) {
    // As the SDK answers a handler that throws (runToolCall answers its refusals and failures as results).
    const e = err as { code?: unknown; message?: unknown; data?: unknown };
    outcome = { error: { code: Number.isSafeInteger(e.code) ? (e.code as number) : INTERNAL_ERROR, message: typeof e.message === "string" ? e.message : "Internal error", ...(e.data === undefined ? {} : { data: e.data }) } };
  }
  return "result" in outcome ? { result: outcome.result, jsonrpc: "2.0", id: request.id } : { jsonrpc: "2.0", id: request.id, error: outcome.error };
}

async function outcomeOf(request: RpcRequest, server: McpToolServer): Promise<Outcome> {
  const params = request.params ?? {};
  switch (request.method) {
    case "initialize": {
      const asked = params.protocolVersion;
      if (typeof asked !== "string" || !isObject(params.capabilities) || !isObject(params.clientInfo)) return invalidParams("Invalid initialize request: protocolVersion, capabilities and clientInfo are required");
      const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
      return { result: { protocolVersion, capabilities: { tools: {} }, serverInfo: server.serverInfo } };
    }
    case "ping":
      return { result: {} };
    case "tools/list":
      return { result: { tools: server.tools() } };
    case "tools/call": {
      const { name, arguments: args } = params;
      if (typeof name !== "string" || (args !== undefined && !isObject(args))) return invalidParams("Invalid tools/call request: params.name must be a string and params.arguments an object");
      return { result: await server.callTool(name, (args ?? {}) as Record<string, unknown>, request.id) };
    }
    default:
      return { error: { code: METHOD_NOT_FOUND, message: "Method not found" } };
  }
}

const invalidParams = (message: string): Outcome => ({ error: { code: INVALID_PARAMS, message } });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const isId = (v: unknown): v is RequestId => typeof v === "string" || Number.isInteger(v);

/** A request, a notification, a result or an error, as JSON-RPC 2.0 writes them (the SDK's JSONRPCMessageSchema). */
function isJsonRpcMessage(m: unknown): m is Message {
  if (!isObject(m) || m.jsonrpc !== "2.0") return false;
  if (typeof m.method === "string") return (m.id === undefined || isId(m.id)) && (m.params === undefined || isObject(m.params));
  if ("result" in m) return isId(m.id) && isObject(m.result);
  if (isObject(m.error)) return (m.id === undefined || isId(m.id)) && Number.isInteger(m.error.code) && typeof m.error.message === "string";
  return false;
}

function isRequest(m: Message): m is RpcRequest {
  return typeof m.method === "string" && m.id !== undefined;
}

/** `application/json`, with or without parameters, in any case (a parsed media type, as the SDK checks it). */
function isJsonContentType(header: string | null): boolean {
  return header !== null && header.split(";")[0]!.trim().toLowerCase() === "application/json";
}

function errorResponse(status: number, code: number, message: string): McpHttpResponse {
  return jsonAnswer(status, { jsonrpc: "2.0", error: { code, message }, id: null });
}
