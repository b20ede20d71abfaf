import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FreeeClient } from "../freee/client";
import type { FreeeResult } from "../freee/types";
import { getTool, type FreeeToolDefinition } from "../freee/tools/registry";
import { ToolCall, type ToolCallDeps } from "./call-context";
import { permitCall, precheck, type Permit } from "./capability";
import { LIVE_EXECUTION_STATUSES, type ExecutionScope } from "./execution-scope";
import { refusal, RefusalTexts, type Refusal } from "./refusals";
import { runWrite } from "./write-call";

export type { ToolCallDeps } from "./call-context";

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
  let client: Pick<FreeeClient, "companyId" | "request">;
  let companyId: number;
  try {
    client = deps.freeeClient(scope.teamId);
    companyId = await client.companyId();
  } catch (err) {
    return call.failed(err, { stage: "connection" });
  }
  // The approval was of one company's data: a connection that now acts on another (an admin reconnected and chose
  // it) serves nothing, and the run ends (lib/core/messages FreeeCompanyChangedMessages).
  if (scope.company === undefined || scope.company.id !== companyId) return call.companyChanged(companyId);
  const permit: Permit | Refusal = permitCall(scope, tool, args, companyId);
  if ("refused" in permit) return call.refuse(permit);
  // Requests name the checked company, never one read again later.
  if (permit.kind === "write") return runWrite(call, tool, permit, client, companyId);
  return runRead(call, tool, permit, client, companyId);
}

async function runRead(call: ToolCall, tool: FreeeToolDefinition, permit: Extract<Permit, { kind: "read" }>, client: Pick<FreeeClient, "companyId" | "request">, companyId: number): Promise<CallToolResult> {
  await call.audit("freee.tool_called", { input: permit.input, stepIds: permit.stepIds });
  const started = Date.now();
  let result: FreeeResult;
  let request;
  try {
    request = tool.toRequest(permit.input as never, companyId);
    result = await client.request(request);
  } catch (err) {
    return call.failed(err, { durationMs: Date.now() - started });
  }
  return call.answered(request, result, started);
}

