import { json, listen, pathMatches, sleep, type ListeningFake } from "../http";
import { checkAgentCreate, checkCredentialCreate, checkEnvironmentCreate, checkSessionCreate, checkVaultCreate } from "./agents-checks";
import { checkMessageParams, errorReply, MODELS, type ApiError, type ModelSpec, type ScriptedReply } from "./messages";
import { agentIdOf, applyStatus, decodeCursor, DEFAULT_SESSION_SCRIPT, encodeCursor, errorTypeFor, filterByTime, first, withHeaders, ZERO_USAGE, type FakeSession, type ScriptEvent, type SessionEvent, type SessionScript } from "./sessions";

/**
 * One Anthropic API for the tests and the sandbox, on one base URL (`ANTHROPIC_BASE_URL`): the Messages API
 * (scripted replies, or a responder that plays L1–L3 by itself) and the Managed Agents beta (agents,
 * environments, vaults + credentials, sessions + events; sessions play a script, or the sandbox's autoplay).
 * Requests are checked as the API checks them (see messages.ts, agents-checks.ts) and refused with its error
 * body; the `anthropic-version` header and, for Managed Agents, the `managed-agents-2026-04-01` beta are
 * required; events and lists paginate with opaque cursors and the API's default page size.
 */

export const FAKE_ANTHROPIC_API_KEY = "fake-anthropic-api-key";
export const MANAGED_AGENTS_BETA = "managed-agents-2026-04-01";
/** Anthropic's list endpoints answer 20 items unless `limit` says otherwise. */
export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 1000;

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when empty). */
  body: any;
  apiKey: string | undefined;
  status?: number;
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

export interface FakeAnthropicOptions {
  apiKey?: string;
  models?: Record<string, ModelSpec>;
  /** Plays Messages requests that no scripted reply is queued for (the sandbox's L1–L3). */
  respond?: (body: Record<string, unknown>) => ScriptedReply;
  /** Called for each new session instead of a script (the sandbox's agent that plays the approved steps). */
  autoplay?: (session: FakeSession, api: FakeAnthropic) => void;
}

type Body = Record<string, any>;
type Result = [number, unknown];

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  readonly agents = new Map<string, Body>();
  readonly environments = new Map<string, Body>();
  readonly vaults = new Map<string, Body>();
  /** Credentials as created, token included (the API never returns it; tests and autoplay read it). */
  readonly credentials = new Map<string, { vaultId: string; body: Body }>();
  readonly sessions = new Map<string, FakeSession>();
  readonly apiKey: string;
  url = "";
  private readonly queue: ScriptedReply[] = [];
  private readonly scripts: SessionScript[] = [];
  private readonly failRules: Array<FailRule & { remaining: number }> = [];
  private readonly delays: Array<{ method: string; path: string | RegExp; ms: number }> = [];
  private readonly models: Record<string, ModelSpec>;
  private seq = 0;
  private lastTime = 0;
  private server: ListeningFake | undefined;

  constructor(private readonly options: FakeAnthropicOptions = {}) {
    this.apiKey = options.apiKey ?? FAKE_ANTHROPIC_API_KEY;
    this.models = options.models ?? MODELS;
  }

  /** The SDK's `baseURL`. */
  get baseURL(): string {
    return this.url;
  }

  async start(port?: number): Promise<this> {
    this.server = await listen((request) => this.handle(request), port === undefined ? {} : { port });
    this.url = this.server.url;
    return this;
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  // ------------------------------------------------------------ scripting

  /** Messages replies, taken in order by the next requests that pass the checks. */
  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  pending(): number {
    return this.queue.length;
  }

  /** Session scripts not taken by a session yet. */
  pendingSessionScripts(): number {
    return this.scripts.length;
  }

  /** Drop every queued reply and session script (a test harness between tests). */
  discardScripts(): void {
    this.queue.length = 0;
    this.scripts.length = 0;
  }

  /** Script for the next session(s) created, in order. */
  scriptNextSession(script: SessionScript): void {
    this.scripts.push(script);
  }

  /** Replace the rest of a live session's script. */
  scriptSession(sessionId: string, script: SessionScript): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new Error(`no session ${sessionId}`);
    session.script = script;
    session.pollsServed = 0;
  }

  failNext(rule: FailRule): void {
    this.failRules.push({ ...rule, remaining: rule.times ?? 1 });
  }

  /** Delay responses to matching requests (to make races observable). */
  delay(method: string, path: string | RegExp, ms: number): void {
    this.delays.push({ method, path, ms });
  }

  requestsTo(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && pathMatches(path, r.path));
  }

  /** Appends events to a session as the platform would (ids, strictly increasing processed_at, status moves). */
  push(session: FakeSession, events: ScriptEvent[]): SessionEvent[] {
    const out: SessionEvent[] = [];
    for (const raw of events) {
      const event = { ...raw, id: raw.id ?? this.nextId("sevt"), type: raw.type, processed_at: raw.processed_at ?? this.stamp() } as SessionEvent;
      if (event.type === "agent.mcp_tool_result" && event.mcp_tool_use_id === undefined) {
        event.mcp_tool_use_id = [...session.events].reverse().find((e) => e.type === "agent.mcp_tool_use")?.id ?? "unknown";
      }
      session.events.push(event);
      applyStatus(session, event);
      out.push(event);
    }
    session.updated_at = this.stamp();
    return out;
  }

  // ------------------------------------------------------------ HTTP

  async handle(request: Request, path?: string): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const text = method === "GET" ? "" : await request.text();
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of url.searchParams) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    const headers = Object.fromEntries(request.headers);
    const auth = headers.authorization;
    const apiKey = auth?.startsWith("Bearer ") ? auth.slice(7) : headers["x-api-key"];
    const r: RecordedRequest = { method, path: path ?? url.pathname, query, headers, body: undefined, apiKey };
    this.requests.push(r);
    const answer = async (status: number, body: unknown, extra: Record<string, string> = {}, delayMs = 0): Promise<Response> => {
      if (delayMs > 0) await sleep(delayMs);
      r.status = status;
      return typeof body === "string" ? new Response(body, { status, headers: { "content-type": "application/json", ...extra } }) : json(status, body, { "request-id": `req_fake_${this.seq}`, ...extra });
    };
    const refuse = (e: ApiError) => answer(e.status, { type: "error", error: { type: e.type, message: e.message } });

    try {
      r.body = text === "" ? undefined : JSON.parse(text);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      return refuse({ status: 400, type: "invalid_request_error", message: "The request body is not valid JSON." });
    }
    for (const d of this.delays) if (d.method === method && pathMatches(d.path, r.path)) await sleep(d.ms);
    if (apiKey !== this.apiKey) return refuse({ status: 401, type: "authentication_error", message: "invalid x-api-key" });
    if (headers["anthropic-version"] === undefined) return refuse({ status: 400, type: "invalid_request_error", message: "anthropic-version: header is required" });
    const rule = this.failRules.find((f) => f.remaining > 0 && f.method === method && pathMatches(f.path, r.path) && (f.when === undefined || f.when(r.body)));
    if (rule !== undefined) {
      rule.remaining -= 1;
      return refuse({ status: rule.status, type: rule.errorType ?? errorTypeFor(rule.status), message: "injected fault" }).then((res) => withHeaders(res, rule.headers));
    }

    if (method === "POST" && r.path === "/v1/messages") {
      const bad = checkMessageParams(r.body, this.models);
      if (bad !== undefined) return refuse(bad);
      const reply = this.queue.shift() ?? this.options.respond?.(r.body as Body) ?? errorReply(500, "api_error", `fake anthropic: no scripted reply for request #${this.requests.length}`);
      return answer(reply.status, reply.body, reply.headers, reply.delayMs);
    }
    if (!/^\/v1\/(agents|environments|vaults|sessions)(\/|$)/.test(r.path)) return refuse({ status: 404, type: "not_found_error", message: `Not found: ${method} ${r.path}` });
    if (!(headers["anthropic-beta"] ?? "").split(",").map((s) => s.trim()).includes(MANAGED_AGENTS_BETA)) {
      return refuse({ status: 400, type: "invalid_request_error", message: `this endpoint requires the anthropic-beta header ${MANAGED_AGENTS_BETA}` });
    }
    const [status, body] = this.route(method, r.path, query, (r.body ?? {}) as Body);
    if (status >= 400) return refuse(body as ApiError);
    return answer(status, body);
  }

  private nextId(prefix: string): string {
    this.seq += 1;
    return `${prefix}_${String(this.seq).padStart(6, "0")}`;
  }

  /** Strictly increasing timestamps, so ordering by processed_at is well defined. */
  private stamp(): string {
    this.lastTime = Math.max(Date.now(), this.lastTime + 1);
    return new Date(this.lastTime).toISOString();
  }

  private route(method: string, path: string, query: Record<string, string | string[]>, body: Body): Result {
    const now = this.stamp();
    const notFound = (what: string): Result => [404, { status: 404, type: "not_found_error", message: `${what} not found` }];
    const invalid = (message: string): Result => [400, { status: 400, type: "invalid_request_error", message }];
    let m: RegExpExecArray | null;
    if (method === "POST" && path === "/v1/agents") {
      const bad = checkAgentCreate(body);
      if (bad !== undefined) return [400, bad];
      const agent = { ...body, id: this.nextId("agent"), type: "agent", version: 1, created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {} };
      this.agents.set(agent.id, agent);
      return [200, agent];
    }
    if (method === "POST" && path === "/v1/environments") {
      const bad = checkEnvironmentCreate(body);
      if (bad !== undefined) return [400, bad];
      const env = { ...body, id: this.nextId("env"), type: "environment", created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {}, description: body.description ?? null };
      this.environments.set(env.id, env);
      return [200, env];
    }
    if (method === "POST" && path === "/v1/vaults") {
      const bad = checkVaultCreate(body);
      if (bad !== undefined) return [400, bad];
      const vault = { ...body, id: this.nextId("vlt"), type: "vault", created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {} };
      this.vaults.set(vault.id, vault);
      return [200, vault];
    }
    if ((m = /^\/v1\/(agents|environments|vaults|sessions)\/([^/]+)\/archive$/.exec(path)) && method === "POST") {
      const store = { agents: this.agents, environments: this.environments, vaults: this.vaults, sessions: this.sessions }[m[1] as "agents"] as Map<string, Body>;
      const item = store.get(m[2] as string);
      if (item === undefined) return notFound(String(m[1]).slice(0, -1));
      item.archived_at = now;
      return [200, m[1] === "sessions" ? this.sessionView(item as FakeSession) : item];
    }
    if ((m = /^\/v1\/agents\/([^/]+)$/.exec(path)) && method === "GET") {
      const agent = this.agents.get(m[1] as string);
      return agent === undefined ? notFound("agent") : [200, agent];
    }
    if ((m = /^\/v1\/vaults\/([^/]+)\/credentials$/.exec(path)) && method === "POST") {
      const vault = this.vaults.get(m[1] as string);
      if (vault === undefined) return notFound("vault");
      if (vault.archived_at !== null) return invalid(`vault ${String(vault.id)} is archived`);
      const bad = checkCredentialCreate(body);
      if (bad !== undefined) return [400, bad];
      const id = this.nextId("vcrd");
      this.credentials.set(id, { vaultId: vault.id, body });
      const { token: _token, ...auth } = body.auth as Body;
      return [200, { id, type: "vault_credential", vault_id: vault.id, auth, metadata: body.metadata ?? {}, created_at: now, updated_at: now, archived_at: null, display_name: body.display_name ?? null }];
    }
    if (method === "POST" && path === "/v1/sessions") return this.createSession(body, now);
    if (method === "GET" && path === "/v1/sessions") {
      const agentId = first(query.agent_id);
      let list = [...this.sessions.values()].filter((s) => (agentId === undefined || agentIdOf(s.body) === agentId) && (first(query.include_archived) === "true" || s.archived_at === null));
      list = filterByTime(list, query, (s) => s.created_at).sort((a, b) => b.created_at.localeCompare(a.created_at));
      if (first(query.order) === "asc") list.reverse();
      const page = this.page(list.map((s) => this.sessionView(s)), query, 100);
      return Array.isArray(page) ? page : [200, { ...page, prev_page: null }];
    }
    if ((m = /^\/v1\/sessions\/([^/]+)$/.exec(path)) && method === "GET") {
      const session = this.sessions.get(m[1] as string);
      if (session === undefined) return notFound("session");
      const next = session.script.polls[session.pollsServed];
      if (next !== undefined) {
        session.pollsServed += 1;
        this.push(session, next.events ?? []);
        if (next.status !== undefined) session.status = next.status;
        if (next.usage !== undefined) session.usage = { ...session.usage, ...next.usage };
      }
      return [200, this.sessionView(session)];
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/events$/.exec(path))) {
      const session = this.sessions.get(m[1] as string);
      if (session === undefined) return notFound("session");
      if (method === "GET") {
        const types = query["types[]"] ?? query.types;
        const typeSet = types === undefined ? undefined : new Set(Array.isArray(types) ? types : [types]);
        let list = filterByTime(session.events, query, (e) => e.processed_at);
        if (typeSet !== undefined) list = list.filter((e) => typeSet.has(e.type));
        if (first(query.order) === "desc") list = [...list].reverse();
        const page = this.page(list, query, MAX_PAGE_SIZE);
        return Array.isArray(page) ? page : [200, page];
      }
      if (method === "POST") return this.sendEvents(session, body);
    }
    return notFound(`route ${method} ${path}`);
  }

  private createSession(body: Body, now: string): Result {
    const agent = this.agents.get(agentIdOf(body) ?? "");
    if (agent === undefined) return [404, { status: 404, type: "not_found_error", message: "agent not found" }];
    if (agent.archived_at !== null) return [400, { status: 400, type: "invalid_request_error", message: `agent ${String(agent.id)} is archived` }];
    const environment = this.environments.get(String(body.environment_id));
    if (environment === undefined) return [404, { status: 404, type: "not_found_error", message: "environment not found" }];
    if (environment.archived_at !== null) return [400, { status: 400, type: "invalid_request_error", message: `environment ${String(environment.id)} is archived` }];
    for (const id of (body.vault_ids ?? []) as string[]) {
      if (!this.vaults.has(id)) return [404, { status: 404, type: "not_found_error", message: `vault ${id} not found` }];
    }
    const bad = checkSessionCreate(body, agent, environment);
    if (bad !== undefined) return [400, bad];
    const session: FakeSession = {
      id: this.nextId("sesn"),
      body,
      status: "idle",
      created_at: now,
      updated_at: now,
      archived_at: null,
      metadata: body.metadata ?? {},
      vault_ids: body.vault_ids ?? [],
      usage: { ...ZERO_USAGE },
      events: [],
      script: this.options.autoplay === undefined ? (this.scripts.shift() ?? DEFAULT_SESSION_SCRIPT) : { polls: [] },
      pollsServed: 0,
      interrupted: false,
    };
    this.sessions.set(session.id, session);
    const initial = (body.initial_events ?? []) as ScriptEvent[];
    // A session given work at creation starts on it at once: it is `running`, not `idle`.
    if (initial.length > 0) this.push(session, [...initial, { type: "session.status_running" }]);
    this.options.autoplay?.(session, this);
    return [200, this.sessionView(session)];
  }

  private sendEvents(session: FakeSession, body: Body): Result {
    if (session.archived_at !== null || session.status === "terminated") {
      return [400, { status: 400, type: "invalid_request_error", message: `session ${session.id} is ${session.archived_at !== null ? "archived" : "terminated"}` }];
    }
    const events = body.events as ScriptEvent[] | undefined;
    if (!Array.isArray(events) || events.length === 0) return [400, { status: 400, type: "invalid_request_error", message: "events: at least one event is required" }];
    const allowed = ["user.message", "user.interrupt", "user.tool_confirmation", "user.custom_tool_result", "user.define_outcome"];
    const wrong = events.find((e) => !allowed.includes(e.type));
    if (wrong !== undefined) return [400, { status: 400, type: "invalid_request_error", message: `events: '${wrong.type}' cannot be sent` }];
    const sent: SessionEvent[] = [];
    for (const e of events) {
      sent.push(...this.push(session, [e]));
      if (e.type === "user.interrupt" && !session.interrupted) {
        session.interrupted = true;
        const after = session.script.onInterrupt ?? [{ type: "session.status_idle", stop_reason: { type: "end_turn" }, stop_details: null }];
        session.script = { polls: [] };
        this.push(session, after);
      }
      if (e.type === "user.message" && session.status === "idle") this.push(session, [{ type: "session.status_running" }]);
    }
    return [200, { data: sent }];
  }

  private page<T>(items: T[], query: Record<string, string | string[]>, max: number): { data: T[]; next_page: string | null } | Result {
    const limit = first(query.limit) === undefined ? DEFAULT_PAGE_SIZE : Number(first(query.limit));
    if (!Number.isInteger(limit) || limit < 1 || limit > max) return [400, { status: 400, type: "invalid_request_error", message: `limit: must be an integer from 1 to ${max}` }];
    const offset = decodeCursor(first(query.page));
    if (offset === undefined) return [400, { status: 400, type: "invalid_request_error", message: "page: invalid page cursor" }];
    return { data: items.slice(offset, offset + limit), next_page: offset + limit < items.length ? encodeCursor(offset + limit) : null };
  }

  sessionView(s: FakeSession): Body {
    const param = s.body.agent as Body | string;
    const base = this.agents.get(agentIdOf(s.body) ?? "") ?? {};
    const overrides = typeof param === "string" ? {} : param;
    return {
      id: s.id,
      type: "session",
      agent: { ...base, ...(overrides.tools === undefined ? {} : { tools: overrides.tools }), ...(overrides.mcp_servers === undefined ? {} : { mcp_servers: overrides.mcp_servers }), type: "agent" },
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
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  return new FakeAnthropic(options).start();
}
