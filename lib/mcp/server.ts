import type { Logger } from "@aws-lambda-powertools/logger";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { bearerFromAuthorizationHeader, verifyMcpBearer, type McpBearerClaims } from "./bearer";
import { AuthError, RecordNotFoundError, StateConflictError, TransientError } from "../core/errors/taxonomy";
import type { TaskStore } from "../store/task-store";
import { FREEE_TOOLS } from "../freee/tools/registry";
import { ExecutionScopeCache, loadExecutionScope, type ExecutionScope } from "./execution-scope";
import { runToolCall, startConnectionRead, type ConnectionRead, type ToolCallDeps } from "./tool-call";
import { appendInvocationKeys } from "../core/observability/logger";

/**
 * The freee MCP server (docs/architecture.md, shape on AWS): Streamable HTTP in stateless mode (no session id, one McpServer per
 * HTTP request, JSON responses), so it runs in a Lambda behind a Function URL. Each request is authorised
 * by the bearer the Managed Agents vault sends; the bearer names the workspace and the execution, whose
 * approved Process decides which tools may run.
 */
export interface FreeeMcpDeps extends ToolCallDeps {
  taskStore: Pick<TaskStore, "getTask" | "getExecution" | "getVersion" | "recordRunFault">;
  bearerSecret: () => Promise<string>;
  now?: () => Date;
}

export const MCP_SERVER_INFO = { name: "freee", version: "1.0.0" } as const;

export function createFreeeMcpHandler(deps: FreeeMcpDeps): (req: Request) => Promise<Response> {
  // Per warm Lambda: only what an execution never changes (lib/mcp/execution-scope.ts).
  const scopeCache = new ExecutionScopeCache();
  return async (req) => {
    // Before the bearer: `npm run smoke` asks whether the function is deployed and wired; it reads nothing.
    if (req.method === "GET" && /\/healthz\/?$/.test(new URL(req.url).pathname)) return Response.json({ ok: true, function: "freee-mcp" });
    const claims = await authenticate(deps, req);
    if (claims instanceof Response) return claims;
    if (req.method !== "POST") {
      // Stateless: no standalone SSE stream (GET) and no session to delete (DELETE).
      return jsonRpcError(405, -32000, "Method not allowed", { allow: "POST" });
    }
    // A tools/call reads the freee connection whatever its scope holds: both reads go out together.
    const connection = (await isToolCall(req)) ? startConnectionRead(deps, claims.teamId) : undefined;
    let scope: ExecutionScope;
    try {
      scope = await loadExecutionScope(deps.taskStore, claims, scopeCache);
    } catch (err) {
      if (err instanceof RecordNotFoundError || err instanceof StateConflictError) {
        deps.logger.warn("MCP bearer names an execution it may not act for", { executionId: claims.executionId, reason: err.message });
        return jsonRpcError(403, -32001, "Forbidden");
      }
      if (err instanceof TransientError) return jsonRpcError(503, -32002, "Temporarily unavailable", { "retry-after": "1" });
      throw err;
    }
    // The rest of the request's log lines name the run it serves.
    appendInvocationKeys({ taskId: scope.taskId, executionNo: scope.executionNo });
    const server = buildServer(deps, scope, connection);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  };
}

/**
 * The low-level SDK server, not McpServer: McpServer validates arguments itself and answers an invalid or unknown
 * call before our code sees it, so that refusal would go unaudited. Here every call reaches `runToolCall`,
 * which judges it against the approved Process (input schema included) and audits every refusal.
 */
function buildServer(deps: FreeeMcpDeps, scope: ExecutionScope, connection: ConnectionRead | { ok: false; error: unknown } | undefined): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  // The connection read serves one call: a batch of several reads its own for the others.
  let prefetched = connection;
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const read = prefetched;
    prefetched = undefined;
    return runToolCall(deps, scope, request.params.name, request.params.arguments ?? {}, extra.requestId, read);
  });
  return server;
}

/** Largest body peeked at for its method; a larger one is parsed only by the SDK transport (which bounds it). */
const PEEK_MAX_BYTES = 64 * 1024;

/**
 * Whether the POST is a single `tools/call`, read from a copy of its body (the SDK transport reads the original and
 * answers anything malformed itself, so a body that does not parse here is simply not peeked at).
 */
async function isToolCall(req: Request): Promise<boolean> {
  // A Function URL body is in memory already (at most 6 MB); one that says it is large is left to the transport.
  const length = Number(req.headers.get("content-length") ?? 0);
  if (req.method !== "POST" || req.body === null || length > PEEK_MAX_BYTES) return false;
  const text = await req.clone().text();
  return /^\s*\{/.test(text) && /"method"\s*:\s*"tools\/call"/.test(text);
}

/** What tools/list answers: the registry's tools as JSON Schema (no company_id: the server sets it). */
const TOOL_LIST: Tool[] = FREEE_TOOLS.map((tool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema as Tool["inputSchema"],
  annotations: { readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, openWorldHint: true },
}));

async function authenticate(deps: FreeeMcpDeps, req: Request): Promise<McpBearerClaims | Response> {
  const token = bearerFromAuthorizationHeader(req.headers.get("authorization"));
  if (token === undefined) return unauthorized("missing");
  const secret = await deps.bearerSecret();
  try {
    return verifyMcpBearer(token, secret, { now: (deps.now ?? (() => new Date()))() });
  } catch (err) {
    if (err instanceof AuthError) {
      deps.logger.warn("MCP bearer rejected", { reason: err.details.reason });
      return unauthorized(String(err.details.reason ?? "invalid"));
    }
    // A missing or short secret is a FatalConfigError: fail loudly, not as a 401.
    throw err;
  }
}

function unauthorized(reason: string): Response {
  return jsonRpcError(401, -32001, "Unauthorized", {
    "www-authenticate": `Bearer error="invalid_token", error_description="${reason}"`,
  });
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
