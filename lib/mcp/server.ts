import type { Logger } from "@aws-lambda-powertools/logger";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { bearerFromAuthorizationHeader, verifyMcpBearer, type McpBearerClaims } from "./bearer";
import { AuthError, RecordNotFoundError, StateConflictError, TransientError } from "../core/errors/taxonomy";
import type { TaskStore } from "../store/task-store";
import { FREEE_TOOLS } from "../freee/tools/registry";
import { ExecutionScopeCache, loadExecutionScope, type ExecutionScope } from "./execution-scope";
import { runToolCall, startConnectionRead, type ConnectionRead, type ToolCallDeps } from "./tool-call";
import { appendInvocationKeys } from "../core/observability/logger";
import { answerPost, readPostBody, type McpToolServer, type PostBody } from "./json-rpc";
import { jsonAnswer, type McpHttpHandler, type McpHttpRequest, type McpHttpResponse } from "./http";

/**
 * The freee MCP server (docs/architecture.md, shape on AWS): Streamable HTTP in stateless mode (no session id, each
 * HTTP request answered on its own, JSON responses: lib/mcp/json-rpc.ts), so it runs in a Lambda behind a Function URL. Each request is authorised
 * by the bearer the Managed Agents vault sends; the bearer names the workspace and the execution, whose
 * approved Process decides which tools may run.
 */
export interface FreeeMcpDeps extends ToolCallDeps {
  taskStore: Pick<TaskStore, "getTask" | "getExecution" | "getVersion" | "recordRunFault">;
  bearerSecret: () => Promise<string>;
  now?: () => Date;
}

export const MCP_SERVER_INFO = { name: "freee", version: "1.0.0" } as const;

export function createFreeeMcpHandler(deps: FreeeMcpDeps): McpHttpHandler {
  // Per warm Lambda: only what an execution never changes (lib/mcp/execution-scope.ts).
  const scopeCache = new ExecutionScopeCache();
  return async (req) => {
    // Before the bearer: `npm run smoke` asks whether the function is deployed and wired; it reads nothing.
    if (req.method === "GET" && /\/healthz\/?$/.test(new URL(req.url).pathname)) return jsonAnswer(200, { ok: true, function: "freee-mcp" });
    const auth = await authenticate(deps, req);
    if (!auth.ok) return auth.refused;
    const { claims } = auth;
    if (req.method !== "POST") {
      // Stateless: no standalone SSE stream (GET) and no session to delete (DELETE).
      return jsonRpcError(405, -32000, "Method not allowed", { allow: "POST" });
    }
    // The body is read once: a tools/call reads the freee connection whatever its scope holds, both reads together.
    const body = await readPostBody(req);
    const connection = isToolCall(body) ? startConnectionRead(deps, claims.teamId) : undefined;
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
    return answerPost(req, body, toolServer(deps, scope, connection));
  };
}

/**
 * The tools for one request. Every call reaches `runToolCall` (nothing answers an invalid or unknown call before
 * it), which judges it against the approved Process (input schema included) and audits every refusal.
 */
function toolServer(deps: FreeeMcpDeps, scope: ExecutionScope, connection: ConnectionRead | { ok: false; error: unknown } | undefined): McpToolServer {
  // The connection read serves one call: a batch of several reads its own for the others.
  let prefetched = connection;
  return {
    serverInfo: MCP_SERVER_INFO,
    tools: () => toolList(),
    callTool: (name, args, requestId) => {
      const read = prefetched;
      prefetched = undefined;
      return runToolCall(deps, scope, name, args, requestId, read);
    },
  };
}

/** Largest body looked at for its method; a larger one is left to the JSON-RPC answer (which bounds it). */
const PEEK_MAX_BYTES = 64 * 1024;

/** Whether the POST is a single `tools/call` (a body that is not one, or does not parse, is simply not one). */
function isToolCall(body: PostBody): boolean {
  if ("tooLarge" in body || body.text.length > PEEK_MAX_BYTES) return false;
  return /^\s*\{/.test(body.text) && /"method"\s*:\s*"tools\/call"/.test(body.text);
}

let tools: Tool[] | undefined;

/** What tools/list answers: the registry's tools as JSON Schema (no company_id: the server sets it), built on first list. */
function toolList(): Tool[] {
  tools ??= FREEE_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    annotations: { readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, openWorldHint: true },
  }));
  return tools;
}

async function authenticate(deps: FreeeMcpDeps, req: McpHttpRequest): Promise<{ ok: true; claims: McpBearerClaims } | { ok: false; refused: McpHttpResponse }> {
  const token = bearerFromAuthorizationHeader(req.headers.get("authorization"));
  if (token === undefined) return { ok: false, refused: unauthorized("missing") };
  const secret = await deps.bearerSecret();
  try {
    return { ok: true, claims: verifyMcpBearer(token, secret, { now: (deps.now ?? (() => new Date()))() }) };
  } catch (err) {
    if (err instanceof AuthError) {
      deps.logger.warn("MCP bearer rejected", { reason: err.details.reason });
      return { ok: false, refused: unauthorized(String(err.details.reason ?? "invalid")) };
    }
    // A missing or short secret is a FatalConfigError: fail loudly, not as a 401.
    throw err;
  }
}

function unauthorized(reason: string): McpHttpResponse {
  return jsonRpcError(401, -32001, "Unauthorized", {
    "www-authenticate": `Bearer error="invalid_token", error_description="${reason}"`,
  });
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): McpHttpResponse {
  return jsonAnswer(status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}
