/**
 * A local Slack Web API for `npm run dev` sandbox mode and the end-to-end suite: every call is recorded, and the
 * calls that change what a user sees (chat.postMessage / update / postEphemeral, views.open) are kept as a
 * channel with threads and an open modal, which the sandbox page renders. Mounted at `<base>/api/<method>`, so
 * `SLACK_API_URL=<base>/api/` points WebClient here.
 */

export interface RecordedCall {
  method: string;
  body: Record<string, unknown>;
  token: string | undefined;
  at: number;
}

export interface ChannelMessage {
  ts: string;
  channel: string;
  /** Set on replies (and equal to ts on nothing: parents have no threadTs). */
  threadTs?: string;
  text: string;
  blocks?: unknown[];
  /** Posted by the app (chat.postMessage) rather than typed by a user. */
  bot: boolean;
  user?: string;
  /** chat.postEphemeral: seen only by `user`. */
  ephemeral?: boolean;
  /** How many times chat.update rewrote it. */
  updates: number;
}

export interface OpenView {
  id: string;
  triggerId?: string;
  view: Record<string, unknown>;
}

export interface SlackRecorder {
  calls: RecordedCall[];
  messages: ChannelMessage[];
  /** The modal views.open showed last, until it is submitted or closed. */
  openView: OpenView | undefined;
  /** The App Home tab as last published, by user. */
  homeViews: Map<string, Record<string, unknown>>;
  callsTo(method: string): RecordedCall[];
  /** A message typed by a user (the sandbox composer, or a test): gets a fresh ts. */
  addUserMessage(input: { channel: string; user: string; text: string; threadTs?: string }): ChannelMessage;
  message(ts: string): ChannelMessage | undefined;
  /** The replies of a thread, oldest first (ephemerals included). */
  thread(ts: string): ChannelMessage[];
  closeView(id: string): void;
  /** Fetch-style handler for `<base>/api/<method>`. */
  handle(request: Request, method: string): Promise<Response>;
}

export const RECORDER_BOT = { teamId: "T0SANDBOX", userId: "USANDBOXBOT", botId: "BSANDBOX" } as const;

export function createSlackRecorder(options: { teamId?: string } = {}): SlackRecorder {
  const teamId = options.teamId ?? RECORDER_BOT.teamId;
  const calls: RecordedCall[] = [];
  const messages: ChannelMessage[] = [];
  const homeViews = new Map<string, Record<string, unknown>>();
  let seq = 0;
  let viewSeq = 0;
  const nextTs = () => {
    seq += 1;
    // Slack ts: seconds.micro; monotonic so that sorting by ts is chronological.
    return `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, "0")}`;
  };

  const recorder: SlackRecorder = {
    calls,
    messages,
    openView: undefined,
    homeViews,
    callsTo: (method) => calls.filter((c) => c.method === method),
    addUserMessage({ channel, user, text, threadTs }) {
      const message: ChannelMessage = { ts: nextTs(), channel, text, bot: false, user, updates: 0, ...(threadTs === undefined ? {} : { threadTs }) };
      messages.push(message);
      return message;
    },
    message: (ts) => messages.find((m) => m.ts === ts),
    thread: (ts) => messages.filter((m) => m.threadTs === ts && m.ts !== ts),
    closeView(id) {
      if (recorder.openView?.id === id) recorder.openView = undefined;
    },
    async handle(request, method) {
      const raw = await request.text();
      const body = parseBody(raw, request.headers.get("content-type"));
      const auth = request.headers.get("authorization");
      const token = auth?.startsWith("Bearer ") ? auth.slice(7) : typeof body.token === "string" ? body.token : undefined;
      calls.push({ method, body, token, at: Date.now() });
      if (token === undefined) return json({ ok: false, error: "not_authed" });
      const answer = answerFor(method, body);
      return json(answer.ok === false ? answer : { ok: true, ...answer });
    },
  };

  function answerFor(method: string, body: Record<string, unknown>): Record<string, unknown> {
    const str = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : undefined);
    switch (method) {
      case "chat.postMessage": {
        const channel = str("channel");
        if (channel === undefined) return { ok: false, error: "channel_not_found" };
        const threadTs = str("thread_ts");
        const message: ChannelMessage = {
          ts: nextTs(),
          channel,
          text: str("text") ?? "",
          ...(Array.isArray(body.blocks) ? { blocks: body.blocks as unknown[] } : {}),
          bot: true,
          updates: 0,
          ...(threadTs === undefined ? {} : { threadTs }),
        };
        messages.push(message);
        return { channel, ts: message.ts, message: { text: message.text, ts: message.ts } };
      }
      case "chat.update": {
        const target = messages.find((m) => m.ts === str("ts") && m.channel === str("channel"));
        if (target === undefined) return { ok: false, error: "message_not_found" };
        target.text = str("text") ?? target.text;
        if (Array.isArray(body.blocks)) target.blocks = body.blocks as unknown[];
        target.updates += 1;
        return { channel: target.channel, ts: target.ts, text: target.text };
      }
      case "chat.delete": {
        const index = messages.findIndex((m) => m.ts === str("ts") && m.channel === str("channel"));
        if (index < 0) return { ok: false, error: "message_not_found" };
        messages.splice(index, 1);
        return { channel: str("channel"), ts: str("ts") };
      }
      case "chat.postEphemeral": {
        const channel = str("channel");
        const user = str("user");
        if (channel === undefined || user === undefined) return { ok: false, error: "channel_not_found" };
        const threadTs = str("thread_ts");
        const message: ChannelMessage = {
          ts: nextTs(),
          channel,
          text: str("text") ?? "",
          ...(Array.isArray(body.blocks) ? { blocks: body.blocks as unknown[] } : {}),
          bot: true,
          user,
          ephemeral: true,
          updates: 0,
          ...(threadTs === undefined ? {} : { threadTs }),
        };
        messages.push(message);
        return { message_ts: message.ts };
      }
      case "views.open": {
        const view = body.view;
        if (typeof view !== "object" || view === null) return { ok: false, error: "invalid_arguments" };
        viewSeq += 1;
        const id = `VSANDBOX${String(viewSeq).padStart(4, "0")}`;
        recorder.openView = { id, view: view as Record<string, unknown>, ...(str("trigger_id") === undefined ? {} : { triggerId: str("trigger_id") }) };
        return { view: { id, ...(view as Record<string, unknown>) } };
      }
      case "views.publish": {
        const user = str("user_id");
        if (user !== undefined && typeof body.view === "object" && body.view !== null) homeViews.set(user, body.view as Record<string, unknown>);
        return { view: { id: `VHOME${user ?? ""}` } };
      }
      case "auth.test":
        return { url: "https://sandbox.slack.invalid/", team: "sandbox", user: "slack-mcp-agent", team_id: teamId, user_id: RECORDER_BOT.userId, bot_id: RECORDER_BOT.botId };
      default:
        return {};
    }
  }

  return recorder;
}

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json; charset=utf-8" } });
}

/** WebClient sends form-encoded bodies whose object values (blocks, view) are JSON strings: decode those too. */
export function parseBody(raw: string, contentType: string | null): Record<string, unknown> {
  if (raw === "") return {};
  if (contentType?.includes("application/json")) {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    out[key] = /^[[{]/.test(value) ? jsonOrString(value) : value;
  }
  return out;
}

function jsonOrString(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    if (err instanceof SyntaxError) return value; // a plain string that merely starts with a bracket
    throw err;
  }
}
