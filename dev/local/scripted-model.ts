import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { randomUUID } from "node:crypto";
import { L1_SYSTEM_PROMPT } from "../../lib/layers/l1-task";
import { L2_SYSTEM_PROMPT } from "../../lib/layers/l2-prompt";
import { L3_SYSTEM_PROMPT } from "../../lib/layers/l3-process";
import { AGENT_DECIDE } from "../../lib/tools/registry";

/**
 * The sandbox's model, for `npm run dev` without ANTHROPIC_API_KEY: the Anthropic Messages API (L1–L3 answer
 * from the request text, recognised by their system prompt) and the Managed Agents API (agents, environments,
 * vaults, sessions, events) on one base URL. A session plays the approved steps for real: for each step it
 * writes the `[step:<id>]` marker, calls the tool on the freee MCP server named in the session with the vault's
 * bearer (so the MCP server, its allow-list, audit and freee all run), and reports the result; then it ends the
 * turn with a summary. Deterministic and offline; labelled as scripted on the sandbox page.
 */
export const SCRIPTED_MODEL_API_KEY = "sandbox-scripted-model";

export interface ScriptedModelOptions {
  /** Pause before each step of a session (so the page shows progress). Default 400 ms. */
  stepDelayMs?: number;
}

interface SessionEvent extends Record<string, unknown> {
  id: string;
  type: string;
  processed_at: string;
}

interface Session {
  id: string;
  body: Record<string, unknown>;
  status: "running" | "idle" | "terminated";
  created_at: string;
  updated_at: string;
  metadata: Record<string, string>;
  vault_ids: string[];
  events: SessionEvent[];
  interrupted: boolean;
  usage: { input_tokens: number; output_tokens: number };
}

interface ParsedStep {
  stepId: string;
  tool: string;
  input: Record<string, unknown>;
}

export interface ScriptedModel {
  sessions: Map<string, Session>;
  /** Interrupt every session still playing and wait for them to stop (shutdown). */
  stop(): Promise<void>;
  handle(request: Request, path: string): Promise<Response>;
}

export function createScriptedModel(options: ScriptedModelOptions = {}): ScriptedModel {
  const stepDelayMs = options.stepDelayMs ?? 400;
  const sessions = new Map<string, Session>();
  const vaults = new Map<string, { id: string; archived_at: string | null; metadata: unknown; credentials: { token: string; mcpServerUrl: string }[] }>();
  const running = new Set<Promise<void>>();
  let seq = 0;
  let lastTime = 0;
  const nextId = (prefix: string) => `${prefix}_sandbox_${String(++seq).padStart(6, "0")}`;
  // Strictly increasing timestamps: the runner reads events by `created_at[gte]` and orders by processed_at.
  const stamp = () => {
    lastTime = Math.max(Date.now(), lastTime + 1);
    return new Date(lastTime).toISOString();
  };

  function push(session: Session, event: Record<string, unknown> & { type: string }): SessionEvent {
    const full = { ...event, id: nextId("sevt"), processed_at: stamp() } as SessionEvent;
    session.events.push(full);
    session.updated_at = full.processed_at;
    return full;
  }

  async function play(session: Session, steps: ParsedStep[]): Promise<void> {
    const credential = session.vault_ids.flatMap((id) => vaults.get(id)?.credentials ?? [])[0];
    const servers = ((session.body.agent as { mcp_servers?: { url?: string }[] } | undefined)?.mcp_servers ?? []).map((s) => s.url);
    const mcpUrl = credential?.mcpServerUrl ?? servers[0];
    push(session, { type: "session.status_running" });
    let client: Client | undefined;
    const results: string[] = [];
    try {
      for (const step of steps) {
        await sleep(stepDelayMs);
        if (session.interrupted) return;
        push(session, { type: "agent.message", content: [{ type: "text", text: `[step:${step.stepId}] ${step.tool === AGENT_DECIDE ? "判断します" : `${step.tool} を実行します`}` }] });
        session.usage.output_tokens += 40;
        if (step.tool === AGENT_DECIDE) {
          results.push(`${step.stepId}: 前のステップの結果から判断しました（${String(step.input.instruction ?? "判断")}）`);
          continue;
        }
        if (mcpUrl === undefined || credential === undefined) {
          push(session, { type: "session.error", error: { type: "mcp_connection_failed_error", message: "no MCP server or credential for this session", retry_status: { type: "terminal" } } });
          push(session, { type: "session.status_terminated" });
          session.status = "terminated";
          return;
        }
        if (client === undefined) {
          try {
            client = new Client({ name: "sandbox-scripted-agent", version: "1.0.0" });
            await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${credential.token}` } } }));
          } catch (err) {
            const auth = err instanceof Error && /401|unauthori[sz]ed/i.test(err.message);
            push(session, {
              type: "session.error",
              error: { type: auth ? "mcp_authentication_failed_error" : "mcp_connection_failed_error", message: err instanceof Error ? err.message.slice(0, 200) : String(err), retry_status: { type: "terminal" } },
            });
            push(session, { type: "session.status_terminated" });
            session.status = "terminated";
            return;
          }
        }
        const use = push(session, { type: "agent.mcp_tool_use", name: step.tool, input: step.input, mcp_server_name: "freee", evaluated_permission: "allow" });
        let text: string;
        let isError: boolean;
        try {
          const result = (await client.callTool({ name: step.tool, arguments: step.input })) as CallToolResult;
          text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
          isError = result.isError === true;
        } catch (err) {
          text = err instanceof Error ? err.message : String(err);
          isError = true;
        }
        if (session.interrupted) return;
        push(session, { type: "agent.mcp_tool_result", mcp_tool_use_id: use.id, content: [{ type: "text", text: text.slice(0, 2000) }], is_error: isError });
        results.push(`${step.stepId}: ${step.tool} ${isError ? "失敗" : "成功"}${isError ? `（${text.slice(0, 120)}）` : ""}`);
      }
      await sleep(stepDelayMs);
      if (session.interrupted) return;
      push(session, { type: "agent.message", content: [{ type: "text", text: `全 ${steps.length} ステップを実行しました（スクリプトのモデル）。\n${results.join("\n")}` }] });
      session.usage = { input_tokens: session.usage.input_tokens + 500, output_tokens: session.usage.output_tokens + 120 };
      push(session, { type: "session.status_idle", stop_reason: { type: "end_turn" }, stop_details: null });
      session.status = "idle";
    } finally {
      if (client !== undefined) await client.close();
    }
  }

  function view(session: Session): Record<string, unknown> {
    return {
      id: session.id,
      type: "session",
      agent: { ...(session.body.agent as object), type: "agent" },
      archived_at: null,
      created_at: session.created_at,
      updated_at: session.updated_at,
      environment_id: session.body.environment_id,
      metadata: session.metadata,
      outcome_evaluations: [],
      resources: [],
      stats: {},
      status: session.status,
      title: session.body.title ?? null,
      usage: { ...session.usage, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } },
      vault_ids: session.vault_ids,
    };
  }

  function route(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): [number, unknown] {
    const now = stamp();
    let m: RegExpExecArray | null;
    if (method === "POST" && path === "/v1/messages") return [200, messagesReply(body)];
    if (method === "POST" && (path === "/v1/agents" || path === "/v1/environments")) {
      const type = path === "/v1/agents" ? "agent" : "environment";
      return [200, { ...body, id: nextId(type === "agent" ? "agent" : "env"), type, version: 1, created_at: now, updated_at: now, archived_at: null, metadata: body.metadata ?? {} }];
    }
    if ((m = /^\/v1\/(agents|environments)\/([^/]+)\/archive$/.exec(path)) && method === "POST") return [200, { id: m[2], archived_at: now }];
    if (method === "POST" && path === "/v1/vaults") {
      const vault = { id: nextId("vlt"), archived_at: null, metadata: body.metadata ?? {}, credentials: [] };
      vaults.set(vault.id, vault);
      return [200, { id: vault.id, type: "vault", created_at: now, updated_at: now, archived_at: null, metadata: vault.metadata, display_name: body.display_name ?? null }];
    }
    if ((m = /^\/v1\/vaults\/([^/]+)\/credentials$/.exec(path)) && method === "POST") {
      const vault = vaults.get(m[1] as string);
      if (vault === undefined) return [404, notFound()];
      const auth = (body.auth ?? {}) as { token?: string; mcp_server_url?: string };
      if (typeof auth.token === "string" && typeof auth.mcp_server_url === "string") vault.credentials.push({ token: auth.token, mcpServerUrl: auth.mcp_server_url });
      return [200, { id: nextId("vcrd"), type: "vault_credential", vault_id: vault.id, auth: { type: "static_bearer", mcp_server_url: auth.mcp_server_url }, created_at: now, updated_at: now, archived_at: null }];
    }
    if ((m = /^\/v1\/vaults\/([^/]+)\/archive$/.exec(path)) && method === "POST") {
      const vault = vaults.get(m[1] as string);
      if (vault === undefined) return [404, notFound()];
      vault.archived_at = now;
      return [200, { id: vault.id, type: "vault", archived_at: now }];
    }
    if (method === "POST" && path === "/v1/sessions") {
      const session: Session = {
        id: nextId("sesn"),
        body,
        status: "running",
        created_at: now,
        updated_at: now,
        metadata: (body.metadata ?? {}) as Record<string, string>,
        vault_ids: (body.vault_ids ?? []) as string[],
        events: [],
        interrupted: false,
        usage: { input_tokens: 0, output_tokens: 0 },
      };
      sessions.set(session.id, session);
      const initial = (body.initial_events ?? []) as { type: string; content?: { type: string; text?: string }[] }[];
      const text = initial.flatMap((e) => (e.content ?? []).map((c) => c.text ?? "")).join("\n");
      for (const e of initial) push(session, e);
      const run = play(session, parseSteps(text)).catch((err: unknown) => {
        // A bug in the script itself: end the session visibly rather than leave it running forever.
        push(session, { type: "session.error", error: { type: "unknown_error", message: err instanceof Error ? err.message : String(err), retry_status: { type: "terminal" } } });
        session.status = "terminated";
      });
      running.add(run);
      void run.finally(() => running.delete(run));
      return [200, view(session)];
    }
    if (method === "GET" && path === "/v1/sessions") {
      const agentId = query.get("agent_id");
      const since = query.get("created_at[gte]");
      const list = [...sessions.values()].filter((s) => {
        const agent = s.body.agent as { id?: string } | string;
        const id = typeof agent === "string" ? agent : agent.id;
        return (agentId === null || id === agentId) && (since === null || Date.parse(s.created_at) >= Date.parse(since));
      });
      return [200, { data: list.map(view), next_page: null, prev_page: null }];
    }
    if ((m = /^\/v1\/sessions\/([^/]+)$/.exec(path)) && method === "GET") {
      const session = sessions.get(m[1] as string);
      return session === undefined ? [404, notFound()] : [200, view(session)];
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/events$/.exec(path))) {
      const session = sessions.get(m[1] as string);
      if (session === undefined) return [404, notFound()];
      if (method === "POST") {
        const sent = ((body.events ?? []) as { type: string }[]).map((e) => push(session, e));
        if (sent.some((e) => e.type === "user.interrupt") && !session.interrupted) {
          session.interrupted = true;
          push(session, { type: "session.status_idle", stop_reason: { type: "end_turn" }, stop_details: null });
          session.status = "idle";
        }
        return [200, { data: sent }];
      }
      const types = query.getAll("types[]").concat(query.getAll("types"));
      const since = query.get("created_at[gte]");
      let list = session.events.filter((e) => (since === null || Date.parse(e.processed_at) >= Date.parse(since)) && (types.length === 0 || types.includes(e.type)));
      if (query.get("order") === "desc") list = [...list].reverse();
      const limit = Number(query.get("limit") ?? 20);
      const offset = Number(query.get("page") ?? 0);
      const page = list.slice(offset, offset + limit);
      return [200, { data: page, next_page: offset + limit < list.length ? String(offset + limit) : null }];
    }
    return [404, notFound(`no route ${method} ${path}`)];
  }

  return {
    sessions,
    async stop() {
      for (const session of sessions.values()) session.interrupted = true;
      await Promise.all([...running]);
    },
    async handle(request, path) {
      const auth = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? request.headers.get("x-api-key");
      if (auth !== SCRIPTED_MODEL_API_KEY) return send(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
      const raw = request.method === "GET" ? "" : await request.text();
      const body = raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
      const [status, payload] = route(request.method.toUpperCase(), path, new URL(request.url).searchParams, body);
      return send(status, payload);
    },
  };
}

// ------------------------------------------------------------------ L1–L3

type Layer = "L1" | "L2" | "L3";

function layerOf(body: Record<string, unknown>): Layer | undefined {
  const system = Array.isArray(body.system) ? (body.system as { text?: string }[]).map((b) => b.text ?? "").join("") : String(body.system ?? "");
  const head = (prompt: string) => prompt.slice(0, 60);
  if (system.startsWith(head(L1_SYSTEM_PROMPT))) return "L1";
  if (system.startsWith(head(L2_SYSTEM_PROMPT))) return "L2";
  if (system.startsWith(head(L3_SYSTEM_PROMPT))) return "L3";
  return undefined;
}

function userText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("")))
    .join("\n");
}

function sectionOf(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text);
  return m?.[1];
}

/** What the request is about, read from its words: the sandbox company's HR or its books. */
function intentOf(request: string): { domain: "hr" | "accounting"; amount?: number } {
  const hr = /給|従業員|勤怠|社員|人事|さん/.test(request);
  const man = /(\d+(?:\.\d+)?)\s*万円/.exec(request);
  const yen = /([\d,]+)\s*円/.exec(request);
  const amount = man ? Math.round(Number(man[1]) * 10_000) : yen ? Number(yen[1]!.replace(/,/g, "")) : undefined;
  return { domain: hr ? "hr" : "accounting", ...(amount === undefined || !Number.isFinite(amount) ? {} : { amount }) };
}

function nextMonth(todayIso: string | undefined): { year: number; month: number } {
  const today = todayIso === undefined ? new Date() : new Date(`${todayIso.trim()}T00:00:00+09:00`);
  const month = today.getUTCMonth() + 2; // getUTCMonth is 0-based; +1 for next month
  return month > 12 ? { year: today.getUTCFullYear() + 1, month: month - 12 } : { year: today.getUTCFullYear(), month };
}

let messageSeq = 0;

function messagesReply(body: Record<string, unknown>): Record<string, unknown> {
  const layer = layerOf(body);
  const user = userText(body);
  const today = sectionOf(user, "today");
  let text: string;
  if (layer === "L1") {
    const request = sectionOf(user, "message") ?? user;
    const { domain, amount } = intentOf(request);
    const parameters: { name: string; value: string | number }[] = [];
    const who = /([一-龯ぁ-んァ-ヶ]+)さん/.exec(request)?.[1];
    if (who !== undefined) parameters.push({ name: "employee_name", value: who });
    if (amount !== undefined) parameters.push({ name: domain === "hr" ? "new_basic_pay" : "amount", value: amount });
    text = JSON.stringify({
      title: request.slice(0, 40),
      intent: `${request.slice(0, 200)}（スクリプトのモデルによる解析）`,
      domain,
      parameters,
      missingInformation: [],
    });
  } else if (layer === "L2") {
    const task = safeJson(sectionOf(user, "task"));
    const reason = sectionOf(user, "rejection_reason");
    const domain = (task?.domain as string | undefined) ?? "hr";
    const lines =
      domain === "hr"
        ? ["目的: 依頼に沿って従業員の基本給を変更する。", "1. 対象年月に在籍する従業員の一覧を取得する。", "2. 一覧から対象の従業員を特定する。", "3. 現在の基本給を確認する。", "4. 基本給を新しい金額に更新する。"]
        : ["目的: 依頼に沿って会計の取引を確認する。", "1. 勘定科目の一覧を取得する。", "2. 取引の一覧を取得して内容を確認する。"];
    if (reason !== undefined) lines.push(`（却下理由「${reason.trim().slice(0, 100)}」を反映しました）`);
    text = lines.join("\n");
  } else if (layer === "L3") {
    const task = safeJson(sectionOf(user, "task"));
    const params = (task?.parameters ?? {}) as Record<string, unknown>;
    const { year, month } = nextMonth(today);
    const amount = typeof params.new_basic_pay === "number" ? params.new_basic_pay : 300_000;
    const step = (order: number, tool: string, input: Record<string, unknown>) => ({ stepId: `s${order}`, order, tool, toolInput: JSON.stringify(input) });
    const steps =
      (task?.domain ?? "hr") === "hr"
        ? [
            step(1, "freee_hr_list_employees", { year, month }),
            step(2, AGENT_DECIDE, { instruction: "一覧から対象の従業員 ID を特定する", tools: ["freee_hr_get_employee"] }),
            step(3, "freee_hr_get_basic_pay_rule", { year, month, employee_id: 1 }),
            step(4, "freee_hr_update_basic_pay_rule", { year, month, employee_id: 1, pay_calc_type: "monthly", pay_amount: amount }),
          ]
        : [step(1, "freee_accounting_list_account_items", {}), step(2, "freee_accounting_list_deals", { limit: 20 })];
    text = JSON.stringify({ steps });
  } else {
    text = "（スクリプトのモデル）この依頼には応答できません。";
  }
  messageSeq += 1;
  return {
    id: `msg_sandbox_${messageSeq}`,
    type: "message",
    role: "assistant",
    model: String(body.model ?? "scripted"),
    content: [{ type: "text", text, citations: null }],
    stop_reason: "end_turn",
    stop_sequence: null,
    stop_details: null,
    usage: { input_tokens: Math.ceil(user.length / 2), output_tokens: Math.ceil(text.length / 2), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  };
}

// ------------------------------------------------------------------ L4 helpers

/** The steps back from the session's first user.message (lib/agent/agent-prompt.ts `buildTaskMessage`). */
export function parseSteps(text: string): ParsedStep[] {
  const steps: ParsedStep[] = [];
  const re = /\[step:([A-Za-z0-9_.-]+)\] ツール: (\S+?)(?:（[^）]*）)?\n\s+入力: (.*)/g;
  for (const m of text.matchAll(re)) {
    const raw: unknown = safeParse(m[3] as string);
    // toolInput is stored as a JSON string or an object depending on the layer's output; accept both.
    const input = typeof raw === "string" ? safeParse(raw) : raw;
    steps.push({ stepId: m[1] as string, tool: m[2] as string, input: (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown> });
  }
  return steps;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

function safeJson(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const parsed = safeParse(text);
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function notFound(message = "not found"): unknown {
  return { type: "error", error: { type: "not_found_error", message } };
}

function send(status: number, payload: unknown): Response {
  return new Response(JSON.stringify(payload), { status, headers: { "content-type": "application/json", "request-id": `req_sandbox_${randomUUID()}` } });
}
