import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A recording Slack Web API on 127.0.0.1 (ephemeral port). Point `SLACK_API_URL` (or WebClient's slackApiUrl) at
 * `url`. Every call is recorded with its parsed body and bearer token; chat.postMessage returns a fresh ts.
 * Errors are scriptable per method: `failNext("chat.update", { error: "ratelimited", status: 429 })`.
 */
export interface RecordedCall {
  method: string;
  body: Record<string, unknown>;
  token: string | undefined;
  at: number;
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

export interface FakeSlack {
  url: string;
  calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  failNext(method: string, failure: ScriptedFailure): void;
  /** Replace the default answer of a method. */
  respond(method: string, answer: (call: RecordedCall) => Record<string, unknown>): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const failures = new Map<string, ScriptedFailure & { left: number }>();
  const answers = new Map<string, (call: RecordedCall) => Record<string, unknown>>();
  let tsCounter = 0;

  const defaults: Record<string, (call: RecordedCall) => Record<string, unknown>> = {
    "chat.postMessage": (c) => ({ channel: c.body.channel, ts: nextTs(), message: { text: c.body.text } }),
    "chat.update": (c) => ({ channel: c.body.channel, ts: c.body.ts, text: c.body.text }),
    "chat.postEphemeral": () => ({ message_ts: nextTs() }),
    "views.open": () => ({ view: { id: "V0001" } }),
    "views.publish": () => ({ view: { id: "V0002" } }),
    "views.update": () => ({ view: { id: "V0002" } }),
    "auth.test": () => ({ url: "https://example.slack.com/", team: "Example", user: "bot", team_id: "T0001", user_id: "UBOT", bot_id: "BBOT" }),
    "oauth.v2.access": () => ({
      app_id: "A0001",
      authed_user: { id: "UINSTALLER" },
      scope: "chat:write,app_mentions:read",
      token_type: "bot",
      access_token: "xoxb-fake-installed-token",
      bot_user_id: "UBOT",
      team: { id: "T0001", name: "Example" },
      enterprise: null,
      is_enterprise_install: false,
    }),
  };

  function nextTs(): string {
    tsCounter += 1;
    return `1800000000.${String(tsCounter).padStart(6, "0")}`;
  }

  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const method = (req.url ?? "/").replace(/^\/(api\/)?/, "").split("?")[0] ?? "";
      const body = parseBody(raw, req.headers["content-type"]);
      const auth = req.headers.authorization;
      const token = typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7) : (body.token as string | undefined);
      const call: RecordedCall = { method, body, token, at: Date.now() };
      calls.push(call);
      const failure = failures.get(method);
      if (failure !== undefined && failure.left > 0) {
        failure.left -= 1;
        const status = failure.status ?? 200;
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (status === 429) headers["retry-after"] = String(failure.retryAfterSeconds ?? 1);
        res.writeHead(status, headers);
        res.end(JSON.stringify({ ok: false, error: failure.error ?? (status === 429 ? "ratelimited" : "internal_error") }));
        return;
      }
      const answer = answers.get(method) ?? defaults[method];
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer === undefined ? { ok: true } : { ok: true, ...answer(call) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  return {
    url,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    failNext(method, failure) {
      failures.set(method, { ...failure, left: failure.times ?? 1 });
    },
    respond(method, answer) {
      answers.set(method, answer);
    },
    reset() {
      calls.length = 0;
      failures.clear();
      answers.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** WebClient sends form-encoded bodies whose object values (blocks, view) are JSON strings: decode those too. */
function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (raw === "") return {};
  if (contentType?.includes("application/json")) return JSON.parse(raw) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    out[key] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return out;
}

function tryJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    if (err instanceof SyntaxError) return value; // a plain string that merely starts with a bracket
    throw err;
  }
}
