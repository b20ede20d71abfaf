import { createHash } from "node:crypto";
import type { Logger } from "@aws-lambda-powertools/logger";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuditEvent, AuditLog } from "../audit/audit-log";
import { AuthError, isAppError, RateLimitedError, TransientError } from "../errors/taxonomy";
import type { FreeeClient } from "../freee/client";
import type { FreeeResult } from "../freee/types";
import { redactString } from "../observability/redact";
import type { FreeeToolDefinition } from "../tools/registry";
import { LIVE_EXECUTION_STATUSES, type ExecutionScope } from "./execution-scope";
import type { WriteOnceLedger, WriteRef } from "./write-once";

/** A tool result the agent reads; large freee lists are cut so one call cannot flood the session context. */
const MAX_RESULT_CHARS = 60_000;

export interface ToolCallDeps {
  audit: Pick<AuditLog, "record">;
  freeeClient: (teamId: string) => Pick<FreeeClient, "companyId" | "request">;
  /** Write tools run once per Execution and input (lib/mcp/write-once.ts). */
  writes: Pick<WriteOnceLedger, "claim" | "complete" | "release">;
  logger: Logger;
}

/**
 * One `tools/call`: enforce the execution's approved tool list, call freee, and audit it. Every outcome is
 * a tool result (seed §3.4: tool errors go back to the agent, which decides); nothing here throws to the
 * SDK, so no internal message leaks into the session.
 * The audit subject carries the execution, the MCP request id and a digest of the call, so a retried
 * request writes its entries once, while a different call reusing a request id does not collide.
 */
export async function runToolCall(
  deps: ToolCallDeps,
  scope: ExecutionScope,
  tool: FreeeToolDefinition,
  args: Record<string, unknown>,
  requestId: string | number,
): Promise<CallToolResult> {
  const digest = createHash("sha256").update(JSON.stringify([tool.name, args])).digest("hex").slice(0, 12);
  const subject = `execution#${scope.executionId}#call#${String(requestId)}#${digest}`;
  const base = { teamId: scope.teamId, taskId: scope.taskId, subject, actor: `agent:${scope.executionId}`, layer: "freee" as const };
  const audit = (action: string, details: Record<string, unknown>) => safeAudit(deps, { ...base, action, details: { tool: tool.name, ...details } });

  if (!scope.allowedTools.has(tool.name)) {
    await audit("freee.tool_refused", { reason: "not_approved", input: args, allowedTools: [...scope.allowedTools] });
    return errorResult(
      `ツール ${tool.name} はこの実行の承認済みステップに含まれていないため実行できません。` +
        `使用できるツール: ${[...scope.allowedTools].join(", ") || "（なし）"}`,
    );
  }
  if (!LIVE_EXECUTION_STATUSES.has(scope.executionStatus)) {
    await audit("freee.tool_refused", { reason: "execution_not_running", executionStatus: scope.executionStatus });
    return errorResult(`この実行はすでに終了しています（状態: ${scope.executionStatus}）。ツールは実行できません。`);
  }

  // A write the agent already made in this run is answered from the ledger, not sent to freee again.
  const writeRef: WriteRef | undefined = tool.readOnly
    ? undefined
    : { taskId: scope.taskId, executionId: scope.executionId, digest: createHash("sha256").update(stableJson([tool.name, args])).digest("hex").slice(0, 32) };
  if (writeRef !== undefined) {
    let prior;
    try {
      prior = await deps.writes.claim(writeRef, tool.name);
    } catch (err) {
      await audit("freee.tool_failed", { errorType: err instanceof Error ? err.name : "Error", stage: "write_claim" });
      return errorResult(agentTextForError(err));
    }
    if (prior?.state === "done") {
      await audit("freee.tool_deduplicated", { input: args, firstCompletedAt: prior.completedAt });
      return {
        content: [{ type: "text", text: `（同じ入力の書き込みはこの実行ですでに完了しています。freee には再送していません。前回の結果:）\n${prior.resultText}` }],
      };
    }
    if (prior?.state === "in_flight") {
      await audit("freee.tool_refused", { reason: "same_write_in_flight", since: prior.since });
      return errorResult(
        "同じ入力の書き込みがこの実行で処理中か、結果が不明のままです。freee に二重に書き込まないよう再送しません。読み取りツールで反映を確認してください。",
      );
    }
  }
  const releaseWrite = async () => {
    if (writeRef === undefined) return;
    try {
      await deps.writes.release(writeRef);
    } catch (err) {
      deps.logger.error("could not release a failed freee write", { tool: tool.name, executionId: scope.executionId, error: err instanceof Error ? err : String(err) });
    }
  };

  await audit("freee.tool_called", { input: args });
  const started = Date.now();
  let result: FreeeResult;
  let request;
  try {
    const client = deps.freeeClient(scope.teamId);
    request = tool.toRequest(args as never, await client.companyId());
    result = await client.request(request);
  } catch (err) {
    const name = err instanceof Error ? err.name : "Error";
    deps.logger.error("freee tool failed", { tool: tool.name, executionId: scope.executionId, error_type: name, error: err instanceof Error ? err : String(err) });
    await audit("freee.tool_failed", {
      errorType: name,
      errorMessage: err instanceof Error ? redactString(err.message) : String(err),
      ...(isAppError(err) ? { errorDetails: err.details } : {}),
      durationMs: Date.now() - started,
    });
    await releaseWrite();
    return errorResult(agentTextForError(err));
  }
  const call = { method: request.method, path: request.path, status: result.status, durationMs: Date.now() - started };
  if (!result.ok) {
    await audit("freee.tool_failed", { ...call, kind: result.kind, messages: result.messages });
    await releaseWrite();
    return errorResult(agentTextForRefusal(result));
  }
  await audit("freee.tool_completed", call);
  const text = clip(JSON.stringify(result.data ?? null));
  if (writeRef !== undefined) {
    try {
      await deps.writes.complete(writeRef, text);
    } catch (err) {
      // The write happened; the ledger keeps it `in_flight`, so a repeat is refused rather than written twice.
      deps.logger.error("could not record a completed freee write", { tool: tool.name, executionId: scope.executionId, error: err instanceof Error ? err : String(err) });
    }
  }
  return { content: [{ type: "text", text }] };
}

/** JSON with object keys sorted, so the same input digests the same however the agent ordered it. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

function agentTextForRefusal(result: Extract<FreeeResult, { ok: false }>): string {
  const head =
    result.kind === "forbidden"
      ? "freee API が権限不足のためリクエストを拒否しました (403)。アプリの権限（スコープ）が足りないか、アクセス制限中です。"
      : result.kind === "not_found"
        ? "freee に該当するデータが見つかりません (404)。ID や日付を確認してください。"
        : `freee API がリクエストを受け付けませんでした (${result.status})。入力を確認してください。`;
  return result.messages.length === 0 ? head : `${head}\nfreee のメッセージ: ${result.messages.join(" / ")}`;
}

function agentTextForError(err: unknown): string {
  if (err instanceof AuthError) {
    return "freee の認証が無効です（接続なし、またはトークンの更新に失敗）。ワークスペースの管理者が App Home から freee に再接続する必要があります。";
  }
  if (err instanceof RateLimitedError) return "freee API の利用回数制限に達しました。再試行しても失敗しました。時間をおいて実行してください。";
  if (err instanceof TransientError) return "freee API が一時的に応答しません。再試行しても失敗しました。";
  return "ツールの実行中に内部エラーが発生しました。";
}

function clip(text: string): string {
  return text.length <= MAX_RESULT_CHARS ? text : `${text.slice(0, MAX_RESULT_CHARS)}\n…（結果が長いため ${MAX_RESULT_CHARS} 文字で省略しました。limit / offset で絞り込んでください）`;
}

/**
 * The audit write must not change what the agent is told (a lost result after a successful freee write
 * invites a duplicate write), so a failed audit write is logged as an error and the call goes on.
 */
async function safeAudit(deps: ToolCallDeps, event: AuditEvent): Promise<void> {
  try {
    await deps.audit.record(event);
  } catch (err) {
    deps.logger.error("audit write failed for a freee tool call", {
      action: event.action,
      subject: event.subject,
      error_type: err instanceof Error ? err.name : "Error",
      error: err instanceof Error ? err : String(err),
    });
  }
}
