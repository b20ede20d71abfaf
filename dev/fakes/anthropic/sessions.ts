/**
 * Sessions of the fake Managed Agents API and the scripts they play. A test scripts what each poll of
 * `GET /v1/sessions/:id` (the runner's poll) releases; the sandbox's autoplay pushes events as it goes.
 */

export type SessionStatus = "rescheduling" | "running" | "idle" | "terminated";
export type StopReason = "end_turn" | "requires_action" | "retries_exhausted" | "budget_reached" | "refusal";
export type RetryStatus = "retrying" | "exhausted" | "terminal";

/** An event as scripted: id and processed_at are filled in when it is released (unless given). */
export type ScriptEvent = { type: string; id?: string; processed_at?: string } & Record<string, unknown>;
export type SessionEvent = Record<string, unknown> & { id: string; type: string; processed_at: string };

export interface ScriptedPoll {
  events?: ScriptEvent[];
  /** Session status after this poll's events (default: derived from the last status event). */
  status?: SessionStatus;
  /** Cumulative usage after this poll. */
  usage?: Partial<FakeUsage>;
}

export interface SessionScript {
  polls: ScriptedPoll[];
  /** Events appended when a `user.interrupt` arrives (default: idle end_turn). */
  onInterrupt?: ScriptEvent[];
}

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface FakeSession {
  id: string;
  body: Record<string, unknown>;
  status: SessionStatus;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  metadata: Record<string, string>;
  vault_ids: string[];
  usage: FakeUsage;
  /** Events released so far (what events.list can return). */
  events: SessionEvent[];
  script: SessionScript;
  pollsServed: number;
  /** Set once a user.interrupt arrived. */
  interrupted: boolean;
}

/** Builders for scripted events (shapes of @anthropic-ai/sdk's `BetaManagedAgentsSessionEvent`). */
export const ev = {
  running: (): ScriptEvent => ({ type: "session.status_running" }),
  rescheduled: (): ScriptEvent => ({ type: "session.status_rescheduled" }),
  agentMessage: (text: string): ScriptEvent => ({ type: "agent.message", content: [{ type: "text", text }] }),
  thinking: (): ScriptEvent => ({ type: "agent.thinking" }),
  mcpToolUse: (name: string, input: Record<string, unknown> = {}, id?: string): ScriptEvent => ({
    type: "agent.mcp_tool_use",
    name,
    input,
    mcp_server_name: "freee",
    evaluated_permission: "allow",
    ...(id === undefined ? {} : { id }),
  }),
  /** Linked to the latest agent.mcp_tool_use unless `mcpToolUseId` is given. */
  mcpToolResult: (opts: { text: string; isError?: boolean; mcpToolUseId?: string }): ScriptEvent => ({
    type: "agent.mcp_tool_result",
    content: [{ type: "text", text: opts.text }],
    is_error: opts.isError ?? false,
    ...(opts.mcpToolUseId === undefined ? {} : { mcp_tool_use_id: opts.mcpToolUseId }),
  }),
  idle: (reason: StopReason, extra: { eventIds?: string[]; stopDetails?: unknown; processedAt?: string } = {}): ScriptEvent => ({
    type: "session.status_idle",
    stop_reason: reason === "requires_action" ? { type: reason, event_ids: extra.eventIds ?? [] } : { type: reason },
    stop_details: extra.stopDetails ?? null,
    ...(extra.processedAt === undefined ? {} : { processed_at: extra.processedAt }),
  }),
  sessionError: (errorType: string, retry: RetryStatus, message = "scripted error", extra: Record<string, unknown> = {}): ScriptEvent => ({
    type: "session.error",
    error: { type: errorType, message, retry_status: { type: retry }, ...extra },
  }),
  terminated: (): ScriptEvent => ({ type: "session.status_terminated" }),
  modelRequestEnd: (usage: Partial<{ input_tokens: number; output_tokens: number }> = {}): ScriptEvent => ({
    type: "span.model_request_end",
    is_error: false,
    model_request_start_id: "span_start",
    model_usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
  }),
};

/** Without a script, a session answers and ends its turn on its second poll. */
export const DEFAULT_SESSION_SCRIPT: SessionScript = {
  polls: [
    { events: [] },
    { events: [ev.agentMessage("すべてのステップを実行しました。\n[result:done]"), ev.idle("end_turn")], usage: { input_tokens: 100, output_tokens: 20 } },
  ],
};

export const ZERO_USAGE: FakeUsage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } };

/** Status events move the session's status as the real API's do. */
export function applyStatus(session: FakeSession, event: SessionEvent): void {
  if (event.type === "session.status_running") session.status = "running";
  if (event.type === "session.status_rescheduled") session.status = "rescheduling";
  if (event.type === "session.status_idle") session.status = "idle";
  if (event.type === "session.status_terminated") session.status = "terminated";
}

/**
 * The API's page cursor for events and session lists: opaque to the client (the SDK passes `next_page` back as
 * `page`), here an offset under a prefix so a made-up cursor is refused.
 */
export function encodeCursor(offset: number): string {
  return `page_${Buffer.from(String(offset)).toString("base64url")}`;
}

export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return 0;
  if (!cursor.startsWith("page_")) return undefined;
  const n = Number(Buffer.from(cursor.slice(5), "base64url").toString("utf8"));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

export function agentIdOf(body: Record<string, any>): string | undefined {
  const a = body.agent as Record<string, any> | string | undefined;
  return typeof a === "string" ? a : (a?.id as string | undefined);
}

export function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function filterByTime<T>(items: T[], query: Record<string, string | string[]>, at: (item: T) => string): T[] {
  const bound = (key: string) => first(query[key]);
  const [gt, gte, lt, lte] = ["created_at[gt]", "created_at[gte]", "created_at[lt]", "created_at[lte]"].map(bound);
  return items.filter((item) => {
    const t = Date.parse(at(item));
    return (gt === undefined || t > Date.parse(gt)) && (gte === undefined || t >= Date.parse(gte)) && (lt === undefined || t < Date.parse(lt)) && (lte === undefined || t <= Date.parse(lte));
  });
}

export function errorTypeFor(status: number): string {
  return { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error" }[status] ?? "api_error";
}

export function withHeaders(res: Response, headers: Record<string, string> | undefined): Response {
  if (headers === undefined) return res;
  const merged = new Headers(res.headers);
  for (const [k, v] of Object.entries(headers)) merged.set(k, v);
  return new Response(res.body, { status: res.status, headers: merged });
}
