import { randomBytes } from "node:crypto";
import { SlackDirectory } from "./directory";
import { json, listen, type ListeningFake } from "../http";
import { checkBlocks, checkView } from "./block-kit";
import { SlackFiles } from "./files";
import { parseBody } from "./body";
import { FakeUploads } from "./uploads";
import { usersInfo, usersList } from "./users";
import { FakeSlackOpenId } from "./openid";
import { Workspace, type ChannelMessage } from "./workspace";


/** The workspace URL auth.test answers with, and that permalinks start with. */
export const FAKE_WORKSPACE_URL = "https://fake.slack.invalid/";
/**
 * One Slack Web API for the tests and the sandbox, at `<url>` (`SLACK_API_URL`; WebClient posts `<url><method>`).
 * As strict as Slack where the app relies on it: tokens must be ones Slack issued (`not_authed` / `invalid_auth`);
 * Block Kit limits answer `invalid_blocks` (messages) or `invalid_arguments` (views) with Slack's json-pointer
 * texts; a `trigger_id` opens one modal, within 3 s of the interaction (`expired_trigger_id`, `exchanged_trigger_id`,
 * `invalid_trigger_id`); chat.update past its rate (Tier 3, 50 a minute per channel by default) answers HTTP 429
 * `ratelimited` with Retry-After; only the bot's own messages can be updated or deleted. State (messages,
 * threads, modals, Home tabs) lives in `workspace`, which the sandbox page renders.
 */

export { parseBody } from "./body";

export const FAKE_SLACK_BOT_TOKEN = "fake-slack-bot-token";
export const FAKE_SLACK_TEAM = { teamId: "T0001", botUserId: "UBOT", botId: "BBOT" } as const;

export interface RecordedCall {
  method: string;
  body: Record<string, unknown>;
  token: string | undefined;
  at: number;
  /** Slack's `error` when the call was refused. */
  error?: string;
  /** The refusal was scripted by the test (failNext), not earned by the request. */
  scripted?: boolean;
  /** What Slack answered (for a refusal: its `errors` / `response_metadata`). */
  response?: Record<string, unknown>;
}

export interface ScriptedFailure {
  /** Slack error code (`{"ok":false,"error":...}`), e.g. invalid_auth, channel_not_found. */
  error?: string;
  /** HTTP status (429 sends Retry-After; 5xx an HTTP error). Default 200. */
  status?: number;
  retryAfterSeconds?: number;
  /** How many calls fail (default 1); Infinity for all. */
  times?: number;
}

export interface RateLimit {
  limit: number;
  windowMs: number;
  per: "channel" | "workspace";
}

interface BotIdentity {
  teamId: string;
  userId: string;
  botId: string;
  /** The token's granted scopes; undefined = every scope the app asks for. */
  scopes?: readonly string[];
}

export interface FakeSlackOptions {
  team?: { teamId: string; botUserId: string; botId: string };
  /** Bot tokens Slack has issued for the team (default: FAKE_SLACK_BOT_TOKEN). */
  botTokens?: string[];
  clientId?: string;
  clientSecret?: string;
  clock?: () => number;
  /** How long a trigger_id stays usable (Slack: 3 s). */
  triggerTtlMs?: number;
}

type Answer = Record<string, unknown>;

export class FakeSlack {
  readonly calls: RecordedCall[] = [];
  readonly workspace: Workspace;
  readonly files: SlackFiles;
  /** Files the app uploads (files.uploadV2). */
  readonly uploads: FakeUploads;
  /** User groups and conversations (their facts: public, private, DM). */
  readonly directory = new SlackDirectory();
  readonly team: { teamId: string; botUserId: string; botId: string };
  /** Sign in with Slack (OpenID Connect): `<base>/openid/connect/{authorize,keys}` and `openid.connect.token`. */
  readonly openid: FakeSlackOpenId;
  url = "";
  private readonly tokens = new Map<string, BotIdentity>();
  private readonly failures = new Map<string, ScriptedFailure & { left: number }>();
  private readonly answers = new Map<string, (call: RecordedCall) => Answer>();
  private readonly triggers = new Map<string, { issuedAt: number; used: boolean }>();
  private readonly oauthCodes = new Set<string>();
  private readonly limits = new Map<string, RateLimit>();
  private readonly windows = new Map<string, number[]>();
  private readonly clock: () => number;
  private readonly triggerTtlMs: number;
  private readonly client: { id: string; secret: string };
  private readonly seen = new WeakSet<RecordedCall>();
  private viewSeq = 0;
  private server: ListeningFake | undefined;

  constructor(options: FakeSlackOptions = {}) {
    this.team = options.team ?? { ...FAKE_SLACK_TEAM };
    this.clock = options.clock ?? Date.now;
    this.triggerTtlMs = options.triggerTtlMs ?? 3000;
    this.client = { id: options.clientId ?? "fake-slack-client-id", secret: options.clientSecret ?? "fake-slack-client-secret" };
    this.workspace = new Workspace(this.clock);
    this.files = new SlackFiles(this.team.teamId);
    this.uploads = new FakeUploads(this.workspace);
    this.openid = new FakeSlackOpenId(this.workspace, this.client, this.clock);
    for (const token of options.botTokens ?? [FAKE_SLACK_BOT_TOKEN]) this.addBotToken(token);
    this.setRateLimit("chat.update", { limit: 50, windowMs: 60_000, per: "channel" });
  }

  async start(port?: number): Promise<this> {
    this.server = await listen((request) => this.handle(request), port === undefined ? {} : { port });
    this.url = `${this.server.url}/api/`;
    this.files.baseUrl = this.server.url;
    return this;
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  addBotToken(token: string, identity: Partial<BotIdentity> = {}): void {
    this.tokens.set(token, {
      teamId: identity.teamId ?? this.team.teamId,
      userId: identity.userId ?? this.team.botUserId,
      botId: identity.botId ?? this.team.botId,
      ...(identity.scopes === undefined ? {} : { scopes: identity.scopes }),
    });
  }

  /** Slack revoked the token (app uninstalled, tokens_revoked): calls with it answer `invalid_auth`. */
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  /** The trigger_id of an interaction Slack is delivering now (its 3 s start at this call). */
  issueTriggerId(): string {
    const id = `${Math.floor(this.clock() / 1000)}.${randomBytes(4).readUInt32BE()}.${randomBytes(16).toString("hex")}`;
    this.triggers.set(id, { issuedAt: this.clock(), used: false });
    return id;
  }

  /** A code the OAuth redirect carries; oauth.v2.access exchanges it once. */
  issueOAuthCode(): string {
    const code = `${randomBytes(4).readUInt32BE()}.${randomBytes(8).toString("hex")}`;
    this.oauthCodes.add(code);
    return code;
  }

  setRateLimit(method: string, limit: RateLimit | undefined): void {
    if (limit === undefined) this.limits.delete(method);
    else this.limits.set(method, limit);
    this.windows.clear();
  }

  /** Calls Slack refused on their own merits (not by a scripted failure): a test expects none unless it says so. */
  refused(): RecordedCall[] {
    return this.calls.filter((c) => c.error !== undefined && c.scripted !== true);
  }

  /** The refusals not yet taken, marked as seen: a test's afterEach asserts there were none. */
  takeRefused(): { method: string; error: string | undefined; details?: unknown }[] {
    const refused = this.refused().filter((c) => !this.seen.has(c));
    for (const c of refused) this.seen.add(c);
    return refused.map((c) => ({ method: c.method, error: c.error, ...(c.response?.response_metadata === undefined ? {} : { details: c.response.response_metadata }) }));
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  failNext(method: string, failure: ScriptedFailure): void {
    this.failures.set(method, { ...failure, left: failure.times ?? 1 });
  }

  /** Replace the answer of a method (after the token and rate checks). */
  respond(method: string, answer: (call: RecordedCall) => Answer): void {
    this.answers.set(method, answer);
  }

  reset(): void {
    this.calls.length = 0;
    this.failures.clear();
    this.answers.clear();
    this.windows.clear();
    this.workspace.clear();
  }

  /** Fetch-style entry; `method` overrides the one read from the path (`/api/<method>`) when mounted elsewhere. */
  async handle(request: Request, method?: string): Promise<Response> {
    const { pathname } = new URL(request.url);
    const auth = request.headers.get("authorization");
    const bearer = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    if (method === undefined && this.files.isFileUrl(pathname)) return this.files.download(pathname, bearer === undefined ? undefined : this.tokens.get(bearer)?.teamId);
    const name = method ?? pathname.replace(/^\/(api\/)?/, "");
    if (name.startsWith("openid/connect/")) return this.openid.page(new URL(request.url), name.slice("openid/connect/".length));
    if (name.startsWith("upload/")) return this.uploads.receive(request);
    const body = parseBody(await request.text(), request.headers.get("content-type"));
    const token = bearer ?? (typeof body.token === "string" ? body.token : undefined);
    const call: RecordedCall = { method: name, body, token, at: this.clock() };
    this.calls.push(call);

    const failure = this.failures.get(name);
    if (failure !== undefined && failure.left > 0) {
      failure.left -= 1;
      const status = failure.status ?? 200;
      call.error = failure.error ?? (status === 429 ? "ratelimited" : "internal_error");
      call.scripted = true;
      return json(status, { ok: false, error: call.error }, status === 429 ? { "retry-after": String(failure.retryAfterSeconds ?? 1) } : {});
    }
    if (name === "oauth.v2.access") return this.finish(call, this.oauthAccess(body, auth));
    if (name === "openid.connect.token") return this.finish(call, this.openid.token(body, auth));
    if (token === undefined) return this.finish(call, { ok: false, error: "not_authed" });
    const bot = this.tokens.get(token);
    if (bot === undefined) return this.finish(call, { ok: false, error: "invalid_auth" });

    const retryAfter = this.rateLimited(name, bot, body);
    if (retryAfter !== undefined) {
      call.error = "ratelimited";
      return json(429, { ok: false, error: "ratelimited" }, { "retry-after": String(retryAfter) });
    }
    const custom = this.answers.get(name);
    return this.finish(call, custom !== undefined ? { ok: true, ...custom(call) } : this.method(name, body, bot));
  }

  private finish(call: RecordedCall, answer: Answer): Response {
    call.response = answer;
    if (answer.ok === false) call.error = String(answer.error);
    return json(200, answer);
  }

  /** Seconds to wait when this call is past its method's rate, else undefined (and the call is counted). */
  private rateLimited(method: string, bot: BotIdentity, body: Record<string, unknown>): number | undefined {
    const limit = this.limits.get(method);
    if (limit === undefined) return undefined;
    const key = `${method}|${bot.teamId}|${limit.per === "channel" ? String(body.channel) : "*"}`;
    const now = this.clock();
    const recent = (this.windows.get(key) ?? []).filter((t) => now - t < limit.windowMs);
    if (recent.length >= limit.limit) {
      this.windows.set(key, recent);
      return Math.max(1, Math.ceil((limit.windowMs - (now - (recent[0] as number))) / 1000));
    }
    recent.push(now);
    this.windows.set(key, recent);
    return undefined;
  }

  private method(name: string, body: Record<string, unknown>, bot: BotIdentity): Answer {
    const str = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : undefined);
    const ws = this.workspace;
    switch (name) {
      case "auth.test":
        return { ok: true, url: FAKE_WORKSPACE_URL, team: "fake", user: "slack-mcp-agent", team_id: bot.teamId, user_id: bot.userId, bot_id: bot.botId, is_enterprise_install: false };
      case "chat.postMessage":
      case "chat.postEphemeral": {
        const channel = str("channel");
        if (channel === undefined || channel === "") return { ok: false, error: "channel_not_found" };
        const invalid = messageContentError(body);
        if (invalid !== undefined) return invalid;
        const ephemeral = name === "chat.postEphemeral";
        const user = str("user");
        if (ephemeral && user === undefined) return { ok: false, error: "user_not_in_channel" };
        const threadTs = str("thread_ts");
        const message: ChannelMessage = {
          ts: ws.nextTs(),
          channel,
          text: str("text") ?? "",
          ...(Array.isArray(body.blocks) ? { blocks: body.blocks as unknown[] } : {}),
          bot: true,
          ...(ephemeral ? { user, ephemeral: true } : { user: bot.userId }),
          updates: 0,
          ...(threadTs === undefined ? {} : { threadTs }),
        };
        ws.messages.push(message);
        if (ephemeral) return { ok: true, message_ts: message.ts };
        return { ok: true, channel, ts: message.ts, message: messageView(message, bot) };
      }
      case "chat.update":
      case "chat.delete": {
        const target = ws.message(str("ts") ?? "", str("channel"));
        if (target === undefined || target.ephemeral === true) return { ok: false, error: "message_not_found" };
        if (!target.bot) return { ok: false, error: name === "chat.update" ? "cant_update_message" : "cant_delete_message" };
        if (name === "chat.delete") {
          ws.messages.splice(ws.messages.indexOf(target), 1);
          return { ok: true, channel: target.channel, ts: target.ts };
        }
        const invalid = messageContentError(body);
        if (invalid !== undefined) return invalid;
        target.text = str("text") ?? target.text;
        if (Array.isArray(body.blocks)) target.blocks = body.blocks as unknown[];
        target.updates += 1;
        return { ok: true, channel: target.channel, ts: target.ts, text: target.text, message: messageView(target, bot) };
      }
      case "views.open":
      case "views.push": {
        const triggerId = str("trigger_id");
        const trigger = triggerId === undefined ? undefined : this.triggers.get(triggerId);
        if (triggerId === undefined || trigger === undefined) return { ok: false, error: "invalid_trigger_id" };
        if (trigger.used) return { ok: false, error: "exchanged_trigger_id" };
        if (this.clock() - trigger.issuedAt > this.triggerTtlMs) return { ok: false, error: "expired_trigger_id" };
        // views.push stacks over an open modal, at most 3 deep (Slack: push_limit_reached).
        if (name === "views.push" && ws.modalDepth === 0) return { ok: false, error: "not_found" };
        if (name === "views.push" && ws.modalDepth >= 3) return { ok: false, error: "push_limit_reached" };
        const errors = checkView(body.view);
        if (errors.length > 0) return viewError(errors);
        trigger.used = true;
        this.viewSeq += 1;
        const open = { id: `V${String(this.viewSeq).padStart(10, "0")}`, triggerId, hash: randomBytes(6).toString("hex"), view: body.view as Record<string, unknown> };
        if (name === "views.push") ws.pushModal(open);
        else ws.openModal(open);
        return { ok: true, view: viewView(open, bot) };
      }
      case "views.update": {
        const open = str("view_id") !== undefined ? ws.views.get(str("view_id") as string) : [...ws.views.values()].find((v) => v.view.external_id === str("external_id"));
        if (open === undefined) return { ok: false, error: "not_found" };
        if (str("hash") !== undefined && str("hash") !== open.hash) return { ok: false, error: "hash_conflict" };
        const errors = checkView(body.view);
        if (errors.length > 0) return viewError(errors);
        Object.assign(open, { view: body.view, hash: randomBytes(6).toString("hex") });
        return { ok: true, view: viewView(open, bot) };
      }
      case "views.publish": {
        const user = str("user_id");
        if (user === undefined) return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: user_id"] } };
        const view = body.view as Record<string, unknown> | undefined;
        if (view?.type !== "home") return viewError(['must be "home" [json-pointer:/view/type]']);
        const errors = checkView(view);
        if (errors.length > 0) return viewError(errors);
        ws.homeViews.set(user, view);
        return { ok: true, view: { id: `VHOME${user}`, team_id: bot.teamId, type: "home", ...view, hash: randomBytes(6).toString("hex") } };
      }
      case "chat.getPermalink": {
        // Slack's answer for a message it holds (any member's, the bot's too); none: message_not_found.
        const [channel, ts] = [str("channel"), str("message_ts")];
        if (channel === undefined || ts === undefined) return { ok: false, error: "invalid_arguments" };
        if (ws.message(ts, channel) === undefined) return { ok: false, error: "message_not_found" };
        return { ok: true, channel, permalink: `${FAKE_WORKSPACE_URL}archives/${channel}/p${ts.replace(".", "")}` };
      }
      case "users.info":
        return usersInfo(ws, body, bot.scopes);
      case "users.list":
        return usersList(ws, body, bot.scopes, bot.teamId);
      case "files.info":
        return this.files.info(body, bot.scopes);
      default:
        return this.directory.method(name, body, bot.scopes, bot.teamId) ?? this.uploads.method(name, body, this.url, bot.userId) ?? { ok: false, error: "unknown_method" };
    }
  }

  private oauthAccess(body: Record<string, unknown>, auth: string | null): Answer {
    // Client credentials come as HTTP Basic (WebClient's default) or in the form.
    const basic = auth?.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString("utf8").split(":") : [];
    const id = (body.client_id as string | undefined) ?? basic[0];
    const secret = (body.client_secret as string | undefined) ?? basic[1];
    if (id !== this.client.id || secret !== this.client.secret) return { ok: false, error: "invalid_client_id" };
    const code = body.code as string | undefined;
    if (code === undefined || !this.oauthCodes.delete(code)) return { ok: false, error: "invalid_code" };
    const token = `xoxb-${randomBytes(12).toString("hex")}`;
    this.addBotToken(token);
    return {
      ok: true,
      app_id: "A0001",
      authed_user: { id: "UINSTALLER" },
      scope: "app_mentions:read,channels:history,groups:history,im:history,mpim:history,channels:read,groups:read,im:read,mpim:read,im:write,chat:write,users:read,usergroups:read,files:read,files:write",
      token_type: "bot",
      access_token: token,
      bot_user_id: this.team.botUserId,
      team: { id: this.team.teamId, name: "Fake" },
      enterprise: null,
      is_enterprise_install: false,
    };
  }
}

/** chat.* content rules: some text or blocks, blocks within Block Kit's limits, text within 40,000 characters. */
function messageContentError(body: Record<string, unknown>): Answer | undefined {
  const hasText = typeof body.text === "string" && body.text !== "";
  if (!hasText && body.blocks === undefined && body.attachments === undefined) return { ok: false, error: "no_text" };
  if (typeof body.text === "string" && body.text.length > 40_000) return { ok: false, error: "msg_too_long" };
  if (body.blocks === undefined) return undefined;
  if (typeof body.blocks === "string") return { ok: false, error: "invalid_blocks_format" };
  const errors = checkBlocks(body.blocks, "message");
  return errors.length === 0 ? undefined : { ok: false, error: "invalid_blocks", errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } };
}

function viewError(errors: string[]): Answer {
  return { ok: false, error: "invalid_arguments", response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } };
}

function messageView(m: ChannelMessage, bot: BotIdentity): Answer {
  return { type: "message", user: bot.userId, bot_id: bot.botId, text: m.text, ts: m.ts, ...(m.blocks === undefined ? {} : { blocks: m.blocks }), ...(m.threadTs === undefined ? {} : { thread_ts: m.threadTs }) };
}

function viewView(open: { id: string; hash: string; view: Record<string, unknown> }, bot: BotIdentity): Answer {
  return { id: open.id, team_id: bot.teamId, ...open.view, state: { values: {} }, hash: open.hash, app_id: "A0001", bot_id: bot.botId };
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  return new FakeSlack(options).start();
}
