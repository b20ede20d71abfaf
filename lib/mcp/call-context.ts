import { createHash } from "node:crypto";
import type { Logger } from "@aws-lambda-powertools/logger";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuditLog } from "../store/audit-log";
import { AuthError, FreeeThrottledError, isAppError, RateLimitedError, TransientError } from "../core/errors/taxonomy";
import type { FreeeClient } from "../freee/client";
import type { FreeeResult } from "../freee/types";
import { freeeAuthMessageFor, freeeRateLimitedMessage, freeeThrottledMessage } from "../core/messages/ja";
import { FreeeRefusalTexts } from "../core/messages/freee-refusals";
import type { PipelineMetrics } from "../core/observability/metrics";
import { redactString } from "../core/redaction/redact";
import type { TaskStore } from "../store/task-store";
import type { ExecutionScope } from "./execution-scope";
import { refusal, RefusalTexts, type Refusal } from "./refusals";
import type { Execution } from "../core/domain/records";
import { throttleFaultReason } from "../core/domain/throttle-fault";
import type { SlackFileFetcher } from "./slack-files";
import type { WriteOnceLedger } from "../store/write-ledger";

/** A tool result the agent reads; large freee lists are cut so one call cannot flood the session context. */
const MAX_RESULT_CHARS = 60_000;

export interface ToolCallDeps {
  audit: Pick<AuditLog, "record" | "recordError">;
  freeeClient: (teamId: string) => Pick<FreeeClient, "companyId" | "request">;
  /** Write steps run once per Task (lib/store/write-ledger.ts). */
  writes: Pick<WriteOnceLedger, "claim" | "takeOver" | "complete" | "markUnknown" | "release">;
  metrics: Pick<PipelineMetrics, "toolRefused" | "writeOutcomeUnknown">;
  /**
   * Where a failed freee connection is stamped on the run, which ends it (the L4 completion contract); and the
   * run's status, read again before a rerun takes over an earlier attempt's step (a first claim checks it in the
   * claim's own transaction: lib/store/write-ledger.ts).
   */
  taskStore: Pick<TaskStore, "getExecution" | "recordRunFault" | "getTask">;
  /** Where an approved file-box upload gets the request's file (lib/mcp/slack-files.ts). */
  slackFiles?: Pick<SlackFileFetcher, "fetchFile">;
  logger: Logger;
  clock?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Defaults: WRITE_CALL_DEFAULTS (lib/mcp/write-call-defaults.ts). */
  reconcileDelayMs?: number;
  reconcileBudgetMs?: number;
  inFlightLeaseMs?: number;
  ledgerAttempts?: number;
  ledgerBackoffMs?: number;
}

/** The per-call helpers both paths share: audit, refuse, report a failure, answer. */
export class ToolCall {
  readonly subject: string;

  constructor(
    readonly deps: ToolCallDeps,
    readonly scope: ExecutionScope,
    readonly toolName: string,
    readonly args: Record<string, unknown>,
    requestId: string | number,
  ) {
    const digest = createHash("sha256").update(JSON.stringify([toolName, args])).digest("hex").slice(0, 12);
    this.subject = `execution#${scope.executionId}#call#${String(requestId)}#${digest}`;
  }

  async audit(action: string, details: Record<string, unknown>): Promise<void> {
    const s = this.scope;
    await safely(this.deps, action, () =>
      this.deps.audit.record({ teamId: s.teamId, taskId: s.taskId, subject: this.subject, actor: `agent:${s.executionId}`, layer: "freee", action, details: { tool: this.toolName, ...details } }),
    );
  }

  /** An error the ledger counts by class (`error.freee`), e.g. WriteOutcomeUnknownError. */
  async auditError(err: Error, details: Record<string, unknown>): Promise<void> {
    const s = this.scope;
    await safely(this.deps, `error.freee`, () =>
      this.deps.audit.recordError({ teamId: s.teamId, taskId: s.taskId, subject: this.subject, actor: `agent:${s.executionId}`, layer: "freee", error: err, details: { tool: this.toolName, ...details } }),
    );
  }

  async refuse(r: Refusal): Promise<CallToolResult> {
    await this.audit("freee.tool_refused", { reason: r.refused, input: this.args, ...r.details });
    try {
      this.deps.metrics.toolRefused(r.refused);
    } catch (err) {
      this.deps.logger.error("could not count a refused tool call", { reason: r.refused, error: err instanceof Error ? err : String(err) });
    }
    return errorResult(r.text);
  }

  async failed(err: unknown, extra: Record<string, unknown>): Promise<CallToolResult> {
    const name = err instanceof Error ? err.name : "Error";
    this.deps.logger.error("freee tool failed", { tool: this.toolName, executionId: this.scope.executionId, error_type: name, error: err instanceof Error ? err : String(err) });
    await this.audit("freee.tool_failed", {
      errorType: name,
      errorMessage: err instanceof Error ? redactString(err.message) : String(err),
      ...(isAppError(err) ? { errorDetails: err.details } : {}),
      ...extra,
    });
    // A failed freee connection cannot be fixed by the agent: the run ends as AuthError with the freee connection
    // message, rather than the agent reading it as tool text and ending its turn as if done.
    if (err instanceof AuthError) await this.recordFault("AuthError", typeof err.details.reason === "string" ? err.details.reason : undefined);
    // freee's throttle stops every call for about ten minutes: the run ends now with when to run it again, rather
    // than the agent retrying into it and the run ending as an unexplained incomplete one.
    if (err instanceof FreeeThrottledError) await this.recordFault("FreeeThrottledError", typeof err.details.resetAt === "string" ? throttleFaultReason(err.details.resetAt) : undefined);
    return errorResult(agentTextForError(err));
  }

  /**
   * The connection acts on another company than the approved one: refused (audited, counted) and stamped on the
   * run, which the next poll ends as FreeeCompanyChangedError — the agent cannot fix it, and must not go on.
   */
  async companyChanged(connectedCompanyId: number): Promise<CallToolResult> {
    const approved = this.scope.company?.id;
    await this.recordFault("FreeeCompanyChangedError", approved === undefined ? "no_approved_company" : "company_changed");
    return this.refuse(refusal("company_changed", RefusalTexts.companyChanged(), { approvedCompanyId: approved ?? null, connectedCompanyId }));
  }

  private async recordFault(errorName: NonNullable<Execution["fault"]>["errorName"], reason: string | undefined): Promise<void> {
    const s = this.scope;
    try {
      await this.deps.taskStore.recordRunFault(s.taskId, s.executionNo, { errorName, at: (this.deps.clock ?? (() => new Date()))().toISOString(), tool: this.toolName, ...(reason === undefined ? {} : { reason }) });
    } catch (failure) {
      // The tool result still says what failed; the completion contract finds the writes missing.
      this.deps.logger.error("could not stamp a freee fault on the run", { executionId: s.executionId, errorName, error: failure instanceof Error ? failure : String(failure) });
    }
  }

  /** freee answered: success text, or its refusal as error text (403 / 404 / 4xx). */
  async answered(request: { method: string; path: string }, result: FreeeResult, started: number, extra: Record<string, unknown> = {}): Promise<CallToolResult> {
    const facts = { method: request.method, path: request.path, status: result.status, durationMs: Date.now() - started, ...extra };
    if (!result.ok) {
      await this.audit("freee.tool_failed", { ...facts, kind: result.kind, messages: result.messages });
      return errorResult(agentTextForRefusal(result));
    }
    await this.audit("freee.tool_completed", facts);
    return { content: [{ type: "text", text: clip(JSON.stringify(result.data ?? null)) }] };
  }
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

export function clip(text: string): string {
  return text.length <= MAX_RESULT_CHARS ? text : `${text.slice(0, MAX_RESULT_CHARS)}\n…（結果が長いため ${MAX_RESULT_CHARS} 文字で省略しました。limit / offset で絞り込んでください）`;
}

function agentTextForRefusal(result: Extract<FreeeResult, { ok: false }>): string {
  const head = result.kind === "forbidden" ? FreeeRefusalTexts.forbidden : result.kind === "not_found" ? FreeeRefusalTexts.notFound : FreeeRefusalTexts.rejected(result.status);
  // freee may echo what it was sent (a header, a token) in its error text: redacted before the agent reads it.
  return result.messages.length === 0 ? head : `${head}\nfreee のメッセージ: ${redactString(result.messages.join(" / "))}`;
}

function agentTextForError(err: unknown): string {
  // Each freee refusal says what is wrong and who fixes it (lib/core/messages/ja.ts), not a blanket "reconnect".
  if (err instanceof AuthError) return freeeAuthMessageFor(err.details.reason);
  if (err instanceof FreeeThrottledError) return freeeThrottledMessage(typeof err.details.resetAt === "string" ? err.details.resetAt : undefined);
  if (err instanceof RateLimitedError) return freeeRateLimitedMessage(err.retryAfterSeconds);
  if (err instanceof TransientError) return "freee API が一時的に応答しません。再試行しても失敗しました。";
  return "ツールの実行中に内部エラーが発生しました。";
}

/**
 * The audit write must not change what the agent is told (a lost result after a successful freee write
 * invites a duplicate write), so a failed audit write is logged as an error and the call goes on.
 */
async function safely(deps: ToolCallDeps, action: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    deps.logger.error("audit write failed for a freee tool call", { action, error_type: err instanceof Error ? err.name : "Error", error: err instanceof Error ? err : String(err) });
  }
}

/** A promise's outcome as a function that returns its value or throws its error, so it can be awaited beside others. */
export function settled<T>(promise: Promise<T>): Promise<() => T> {
  return promise.then(
    (value) => () => value,
    (err: unknown) => () => {
      throw err;
    },
  );
}
