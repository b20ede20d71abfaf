import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted Claude Managed Agents API on 127.0.0.1 (ephemeral port), for the SDK's `baseURL`.
 * Serves what ManagedAgentRunner uses: agents, environments, vaults (+ credentials), sessions (+ events).
 * Sessions play a script: each `GET /v1/sessions/:id` (the runner's poll) releases the next batch of events,
 * so events appear over successive polls. Every request is recorded; faults are injected with `failNext`.
 *
 *   const fake = await startFakeManagedAgents();
 *   fake.scriptNextSession({ polls: [{ events: [ev.running()] }, { events: [ev.agentMessage("完了"), ev.idle("end_turn")] }] });
 *   env.ANTHROPIC_BASE_URL = fake.url; env.ANTHROPIC_API_KEY = fake.apiKey;
 */

export type SessionStatus = "rescheduling" | "running" | "idle" | "terminated";
export type StopReason = "end_turn" | "requires_action" | "retries_exhausted" | "budget_reached" | "refusal";
export type RetryStatus = "retrying" | "exhausted" | "terminal";

/** An event as scripted: id and processed_at are filled in when it is released (unless given). */
export type ScriptEvent = { type: string; id?: string; processed_at?: string } & Record<string, unknown>;

export interface ScriptedPoll {
  events?: ScriptEvent[];
  /** Session status after this poll's events (default: derived from the last status event). */
  status?: SessionStatus;
  /** Cumulative usage after this poll. */
  usage?: Partial<FakeUsage>;
}

export interface SessionScript {
  polls: ScriptedPoll[];
  /** Events appended when a `user.interrupt` arrives (default: interrupt echo + idle end_turn). */
  onInterrupt?: ScriptEvent[];
}

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface FailRule {
  method: string;
  path: string | RegExp;
  status: number;
  /** How many matching requests fail (default 1). */
  times?: number;
  errorType?: string;
  headers?: Record<string, string>;
  /** Only when the JSON body satisfies this (e.g. a user.interrupt send). */
  when?: (body: unknown) => boolean;
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
  events: Array<Record<string, unknown> & { id: string; type: string; processed_at: string }>;
  script: SessionScript;
  pollsServed: number;
}

export interface FakeManagedAgents {
  url: string;
  apiKey: string;
  requests: RecordedRequest[];
  agents: Map<string, Record<string, unknown>>;
  environments: Map<string, Record<string, unknown>>;
  vaults: Map<string, Record<string, unknown>>;
  /** Credentials as created, token included (the real API never returns it; tests need to read it). */
  credentials: Map<string, { vaultId: string; body: Record<string, unknown> }>;
  sessions: Map<string, FakeSession>;
  /** Script for the next session(s) created, in order; without one a session completes on its 2nd poll. */
  scriptNextSession(script: SessionScript): void;
  /** Replace the rest of a live session's script. */
  scriptSession(sessionId: string, script: SessionScript): void;
  failNext(rule: FailRule): void;
  /** Delay responses to matching requests (to make races observable). */
  delay(method: string, path: string | RegExp, ms: number): void;
  requestsTo(method: string, path: string | RegExp): RecordedRequest[];
  close(): Promise<void>;
}

/** Builders for scripted events (shapes of @anthropic-ai/sdk 1.14 `BetaManagedAgentsSessionEvent`). */
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

export const DEFAULT_SESSION_SCRIPT: SessionScript = {
  polls: [
    { events: [ev.running()] },
    { events: [ev.agentMessage("すべてのステップを実行しました。"), ev.idle("end_turn")], usage: { input_tokens: 100, output_tokens: 20 } },
  ],
};

export async function startFakeManagedAgents(options: { apiKey?: string } = {}): Promise<FakeManagedAgents> {
  const apiKey = options.apiKey ?? "sk-ant-test-fake-managed-agents";
  const requests: RecordedRequest[] = [];
  const agents = new Map<string, Record<string, unknown>>();
  const environments = new Map<string, Record<string, unknown>>();
  const vaults = new Map<string, Record<string, unknown>>();
  const credentials = new Map<string, { vaultId: string; body: Record<string, unknown> }>();
  const sessions = new Map<string, FakeSession>();
  const queuedScripts: SessionScript[] = [];
  const failRules: Array<FailRule & { remaining: number }> = [];
  const delays: Array<{ method: string; path: string | RegExp; ms: number }> = [];
  let seq = 0;
  let lastTime = 0;

  const nextId = (prefix: string) => `${prefix}_${String(++seq).padStart(6, "0")}`;
  /** Strictly increasing timestamps, so ordering by processed_at is well defined. */
  const stamp = () => {
    lastTime = Math.max(Date.now(), lastTime + 1);
    return new Date(lastTime).toISOString();
  };
  const matches = (p: string | RegExp, path: string) => (typeof p === "string" ? p === path : p.test(path));

  function release(session: FakeSession, scripted: ScriptEvent[]): void {
    for (const raw of scripted) {
      const event: Record<string, unknown> & { id: string; type: string; processed_at: string } = {
        ...raw,
        id: raw.id ?? nextId("sevt"),
        type: raw.type,
        processed_at: raw.processed_at ?? stamp(),
      };
      if (event.type === "agent.mcp_tool_result" && event.mcp_tool_use_id === undefined) {
        const lastUse = [...session.events].reverse().find((e) => e.type === "agent.mcp_tool_use");
        event.mcp_tool_use_id = lastUse?.id ?? "unknown";
      }
      session.events.push(event);
      if (event.type === "session.status_running") session.status = "running";
      if (event.type === "session.status_rescheduled") session.status = "rescheduling";
      if (event.type === "session.status_idle") session.status = "idle";
      if (event.type === "session.status_terminated") session.status = "terminated";
    }
    session.updated_at = stamp();
  }

  function sessionView(s: FakeSession): Record<string, unknown> {
    const agentParam = s.body.agent as Record<string, unknown> | string;
    const agentId = typeof agentParam === "string" ? agentParam : (agentParam.id as string);
    const base = agents.get(agentId) ?? {};
    const overrides = typeof agentParam === "string" ? {} : agentParam;
    return {
      id: s.id,
      type: "session",
      agent: {
        ...base,
        ...(overrides.tools === undefined ? {} : { tools: overrides.tools }),
        ...(overrides.mcp_servers === undefined ? {} : { mcp_servers: overrides.mcp_servers }),
        type: "agent",
      },
      archived_at: s.archived_at,
      budget: null,
      created_at: s.created_at,
      updated_at: s.updated_at,
      environment_id: s.body.environment_id,
      metadata: s.metadata,
      outcome_evaluations: [],
      resources: [],
      stats: {},
      status: s.status,
      title: s.body.title ?? null,
      usage: s.usage,
      vault_ids: s.vault_ids,
    };
  }

  function page<T>(items: T[], query: Record<string, string | string[]>): { data: T[]; next_page: string | null } {
    const limit = Number(first(query.limit) ?? 20);
    const offset = Number(first(query.page) ?? 0);
    const data = items.slice(offset, offset + limit);
    return { data, next_page: offset + limit < items.length ? String(offset + limit) : null };
  }

  function filterByTime<T>(items: T[], query: Record<string, string | string[]>, at: (item: T) => string): T[] {
    const bound = (key: string) => first(query[key]);
    const gt = bound("created_at[gt]");
    const gte = bound("created_at[gte]");
    const lt = bound("created_at[lt]");
    const lte = bound("created_at[lte]");
    return items.filter((item) => {
      const t = Date.parse(at(item));
      return (
        (gt === undefined || t > Date.parse(gt)) &&
        (gte === undefined || t >= Date.parse(gte)) &&
        (lt === undefined || t < Date.parse(lt)) &&
        (lte === undefined || t <= Date.parse(lte))
      );
    });
  }

  function route(method: string, path: string, query: Record<string, string | string[]>, body: any): [number, unknown] {
    const now = stamp();
    let m: RegExpExecArray | null;
    // ---- agents
    if (method === "POST" && path === "/v1/agents") {
      const agent = { ...body, id: nextId("agent"), type: "agent", version: 1, created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {} };
      agents.set(agent.id, agent);
      return [200, agent];
    }
    if ((m = /^\/v1\/(agents|environments|vaults)\/([^/]+)\/archive$/.exec(path)) && method === "POST") {
      const store = m[1] === "agents" ? agents : m[1] === "environments" ? environments : vaults;
      const item = store.get(m[2] as string);
      if (item === undefined) return [404, notFound()];
      item.archived_at = now;
      return [200, item];
    }
    if ((m = /^\/v1\/agents\/([^/]+)$/.exec(path)) && method === "GET") {
      const agent = agents.get(m[1] as string);
      return agent === undefined ? [404, notFound()] : [200, agent];
    }
    // ---- environments
    if (method === "POST" && path === "/v1/environments") {
      const env = { ...body, id: nextId("env"), type: "environment", created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {}, description: body.description ?? null };
      environments.set(env.id, env);
      return [200, env];
    }
    // ---- vaults
    if (method === "POST" && path === "/v1/vaults") {
      const vault = { ...body, id: nextId("vlt"), type: "vault", created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {} };
      vaults.set(vault.id, vault);
      return [200, vault];
    }
    if ((m = /^\/v1\/vaults\/([^/]+)\/credentials$/.exec(path)) && method === "POST") {
      const vaultId = m[1] as string;
      if (!vaults.has(vaultId)) return [404, notFound()];
      const id = nextId("vcrd");
      credentials.set(id, { vaultId, body });
      const { token: _token, ...auth } = body.auth ?? {};
      return [200, { id, type: "vault_credential", vault_id: vaultId, auth, metadata: body.metadata ?? {}, created_at: now, updated_at: now, archived_at: null, display_name: body.display_name ?? null }];
    }
    // ---- sessions
    if (method === "POST" && path === "/v1/sessions") {
      const agentParam = body.agent;
      const agentId = typeof agentParam === "string" ? agentParam : agentParam?.id;
      if (!agents.has(agentId)) return [404, notFound("agent not found")];
      if (!environments.has(body.environment_id)) return [404, notFound("environment not found")];
      const session: FakeSession = {
        id: nextId("sesn"),
        body,
        status: "idle",
        created_at: now,
        updated_at: now,
        archived_at: null,
        metadata: body.metadata ?? {},
        vault_ids: body.vault_ids ?? [],
        usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } },
        events: [],
        script: queuedScripts.shift() ?? DEFAULT_SESSION_SCRIPT,
        pollsServed: 0,
      };
      sessions.set(session.id, session);
      for (const initial of body.initial_events ?? []) {
        session.events.push({ ...initial, id: nextId("sevt"), processed_at: now });
      }
      return [200, sessionView(session)];
    }
    if (method === "GET" && path === "/v1/sessions") {
      let list = [...sessions.values()];
      const agentId = first(query.agent_id);
      if (agentId !== undefined) {
        list = list.filter((s) => {
          const a = s.body.agent as Record<string, unknown> | string;
          return (typeof a === "string" ? a : a.id) === agentId;
        });
      }
      list = filterByTime(list, query, (s) => s.created_at).sort((a, b) => b.created_at.localeCompare(a.created_at));
      return [200, { ...page(list.map(sessionView), query), prev_page: null }];
    }
    if ((m = /^\/v1\/sessions\/([^/]+)$/.exec(path)) && method === "GET") {
      const session = sessions.get(m[1] as string);
      if (session === undefined) return [404, notFound()];
      const next = session.script.polls[session.pollsServed];
      if (next !== undefined) {
        session.pollsServed += 1;
        release(session, next.events ?? []);
        if (next.status !== undefined) session.status = next.status;
        if (next.usage !== undefined) session.usage = { ...session.usage, ...next.usage };
      }
      return [200, sessionView(session)];
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/events$/.exec(path))) {
      const session = sessions.get(m[1] as string);
      if (session === undefined) return [404, notFound()];
      if (method === "GET") {
        const types = query["types[]"] ?? query.types;
        const typeSet = types === undefined ? undefined : new Set(Array.isArray(types) ? types : [types]);
        let list = filterByTime(session.events, query, (e) => e.processed_at);
        if (typeSet !== undefined) list = list.filter((e) => typeSet.has(e.type));
        if (first(query.order) === "desc") list = [...list].reverse();
        return [200, page(list, query)];
      }
      if (method === "POST") {
        const sent = (body.events ?? []).map((e: Record<string, unknown>) => ({ ...e, id: nextId("sevt"), processed_at: stamp() }));
        for (const e of sent) {
          if (e.type === "user.interrupt") {
            session.events.push(e);
            release(session, session.script.onInterrupt ?? [ev.idle("end_turn")]);
            session.script = { polls: [] };
          } else {
            session.events.push(e);
          }
        }
        return [200, { data: sent }];
      }
    }
    return [404, notFound(`no route ${method} ${path}`)];
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const query: Record<string, string | string[]> = {};
        for (const [k, v] of url.searchParams) {
          const prev = query[k];
          query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
        }
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = undefined;
        if (text !== "") body = JSON.parse(text);
        const method = req.method ?? "GET";
        const path = url.pathname;
        requests.push({ method, path, query, headers: req.headers, body });

        for (const d of delays) if (d.method === method && matches(d.path, path)) await new Promise((r) => setTimeout(r, d.ms));

        const auth = req.headers.authorization;
        const key = typeof auth === "string" ? auth.replace(/^Bearer\s+/i, "") : req.headers["x-api-key"];
        if (key !== apiKey) return send(res, 401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });

        const rule = failRules.find((r) => r.remaining > 0 && r.method === method && matches(r.path, path) && (r.when === undefined || r.when(body)));
        if (rule !== undefined) {
          rule.remaining -= 1;
          return send(res, rule.status, { type: "error", error: { type: rule.errorType ?? errorTypeFor(rule.status), message: "injected fault" } }, rule.headers);
        }
        const [status, payload] = route(method, path, query, body ?? {});
        send(res, status, payload);
      })().catch((err: unknown) => send(res, 500, { type: "error", error: { type: "api_error", message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    agents,
    environments,
    vaults,
    credentials,
    sessions,
    scriptNextSession: (script) => queuedScripts.push(script),
    scriptSession: (sessionId, script) => {
      const session = sessions.get(sessionId);
      if (session === undefined) throw new Error(`no session ${sessionId}`);
      session.script = script;
      session.pollsServed = 0;
    },
    failNext: (rule) => failRules.push({ ...rule, remaining: rule.times ?? 1 }),
    delay: (method, path, ms) => delays.push({ method, path, ms }),
    requestsTo: (method, path) => requests.filter((r) => r.method === method && matches(path, r.path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_fake_${Date.now()}`, ...headers });
  res.end(JSON.stringify(payload));
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function notFound(message = "not found"): unknown {
  return { type: "error", error: { type: "not_found_error", message } };
}

function errorTypeFor(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}
