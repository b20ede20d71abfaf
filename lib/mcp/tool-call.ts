import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FreeeClient } from "../freee/client";
import type { FreeeResult } from "../freee/types";
import { getTool, type FreeeToolDefinition } from "../freee/tools/registry";
import { settled, ToolCall, type ToolCallDeps } from "./call-context";
import { permitCall, precheck, type Permit } from "./capability";
import { LIVE_EXECUTION_STATUSES, type ExecutionScope } from "./execution-scope";
import { refusal, RefusalTexts, type Refusal } from "./refusals";
import { runWrite } from "./write-call";

export type { ToolCallDeps } from "./call-context";

type Client = Pick<FreeeClient, "companyId" | "request">;

/**
 * The workspace's freee connection, its read started beside the execution scope's (lib/mcp/server.ts): both are
 * read for every tools/call. Settled, never rejected, so a request that ends before it is awaited (a 403, a
 * refusal) leaves no unhandled rejection; its outcome is used only once the call passes the prechecks.
 */
export interface ConnectionRead {
  client: Client;
  companyId: Promise<{ ok: true; companyId: number } | { ok: false; error: unknown }>;
}

export function startConnectionRead(deps: Pick<ToolCallDeps, "freeeClient">, teamId: string): ConnectionRead | { ok: false; error: unknown } {
  let client: Client;
  try {
    client = deps.freeeClient(teamId);
  } catch (error) {
    return { ok: false, error };
  }
  return {
    client,
    companyId: client.companyId().then(
      (companyId) => ({ ok: true as const, companyId }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
  };
}

/**
 * One `tools/call`, judged against the approved Process (lib/mcp/capability.ts) before freee is called, then
 * run and audited. Every outcome is a tool result (tool errors go back to the agent, which decides);
 * nothing here throws to the SDK, so no internal message leaks into the session.
 * The audit subject carries the execution, the MCP request id and a digest of the call, so a retried request
 * writes its entries once, while a different call reusing a request id does not collide.
 */
export async function runToolCall(
  deps: ToolCallDeps,
  scope: ExecutionScope,
  toolName: string,
  rawArgs: unknown,
  requestId: string | number,
  connection?: ConnectionRead | { ok: false; error: unknown },
): Promise<CallToolResult> {
  const args = typeof rawArgs === "object" && rawArgs !== null && !Array.isArray(rawArgs) ? (rawArgs as Record<string, unknown>) : undefined;
  const call = new ToolCall(deps, scope, toolName, args ?? { value: rawArgs }, requestId);
  if (!LIVE_EXECUTION_STATUSES.has(scope.executionStatus)) {
    return call.refuse(refusal("execution_not_live", RefusalTexts.executionNotLive(scope.executionStatus), { executionStatus: scope.executionStatus }));
  }
  const tool = getTool(toolName);
  if (tool === undefined) return call.refuse(refusal("unknown_tool", RefusalTexts.unknownTool(toolName)));
  if (args === undefined) return call.refuse(refusal("invalid_input", RefusalTexts.invalidInput(toolName, ["arguments must be a JSON object"])));
  // What needs no freee connection is refused first; the connected company is read only when it passes.
  const early = precheck(scope, tool);
  if (early !== undefined) return call.refuse(early);
  const read = connection ?? startConnectionRead(deps, scope.teamId);
  if (!("client" in read)) return call.failed(read.error, { stage: "connection" });
  const connected = await read.companyId;
  if (!connected.ok) return call.failed(connected.error, { stage: "connection" });
  const { client } = read;
  const { companyId } = connected;
  // The approval was of one company's data: a connection that now acts on another (an admin reconnected and chose
  // it) serves nothing, and the run ends (lib/core/messages FreeeCompanyChangedMessages).
  if (scope.company === undefined || scope.company.id !== companyId) return call.companyChanged(companyId);
  const permit: Permit | Refusal = permitCall(scope, tool, args, companyId);
  if ("refused" in permit) return call.refuse(permit);
  // Requests name the checked company, never one read again later.
  if (permit.kind === "write") return runWrite(call, tool, permit, client, companyId);
  return runRead(call, tool, permit, client, companyId);
}

async function runRead(call: ToolCall, tool: FreeeToolDefinition, permit: Extract<Permit, { kind: "read" }>, client: Client, companyId: number): Promise<CallToolResult> {
  // A read changes nothing in freee: its entry (timed now) goes out beside the request, awaited before the answer.
  const called = call.audit("freee.tool_called", { input: permit.input, stepIds: permit.stepIds });
  const started = Date.now();
  let result: FreeeResult;
  let request;
  try {
    request = tool.toRequest(permit.input as never, companyId);
    const [sent] = await Promise.all([settled(client.request(request)), called]);
    result = sent();
  } catch (err) {
    await called;
    return call.failed(err, { durationMs: Date.now() - started });
  }
  return call.answered(request, result, started);
}

