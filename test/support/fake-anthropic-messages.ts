import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted Anthropic Messages API on 127.0.0.1 (ephemeral port), to stand behind the SDK's `baseURL`.
 * Tests queue replies (a message, an HTTP error, a delay) and read back what each request carried.
 * Requests without a scripted reply get a 500 with a message that names the gap, so a missing script fails
 * loudly instead of hanging.
 *
 * Auth: SDK 1.14 sends `Authorization: Bearer <key>`; older clients send `x-api-key`. Both are accepted.
 * When `apiKey` is set, any other key gets a 401 `authentication_error`, as the real API answers.
 */

export interface ScriptedReply {
  status: number;
  headers?: Record<string, string>;
  /** JSON body; a string is sent as is (for non-JSON bodies). */
  body: unknown;
  /** Wait this long before answering (a slow upstream, for timeout tests). */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when the body was empty). */
  body: any;
  /** The API key the request presented, from `Authorization: Bearer` or `x-api-key`. */
  apiKey: string | undefined;
}

export interface FakeAnthropic {
  /** Put this in the SDK's `baseURL` (or `ANTHROPIC_BASE_URL`). */
  baseURL: string;
  requests: RecordedRequest[];
  /** Append replies to the queue; each request takes the next one. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Replies still waiting for a request. */
  pending(): number;
  close(): Promise<void>;
}

export interface FakeAnthropicOptions {
  /** The key the fake accepts; unset: any key. */
  apiKey?: string;
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((raw) => {
        const recorded: RecordedRequest = {
          method: req.method ?? "GET",
          path: req.url ?? "/",
          headers: req.headers,
          body: raw === "" ? undefined : JSON.parse(raw),
          apiKey: presentedKey(req.headers),
        };
        requests.push(recorded);
        if (options.apiKey !== undefined && recorded.apiKey !== options.apiKey) {
          send(res, errorReply(401, "authentication_error", "invalid x-api-key"));
          return;
        }
        const reply = queue.shift() ?? errorReply(500, "api_error", `fake-anthropic: no scripted reply for request #${requests.length}`);
        if (reply.delayMs === undefined || reply.delayMs <= 0) {
          send(res, reply);
          return;
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(res, reply);
        }, reply.delayMs);
        timers.add(timer);
      })
      .catch((err: unknown) => {
        send(res, errorReply(400, "invalid_request_error", `fake-anthropic: unreadable request: ${String(err)}`));
      });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    close: async () => {
      timers.forEach((t) => clearTimeout(t));
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

// ---------------------------------------------------------------- reply builders

let messageCounter = 0;

export interface MessageReplyOptions {
  /** Text blocks of the reply; `[]` for a reply with no content. */
  texts?: string[];
  stopReason?: string | null;
  stopDetails?: unknown;
  model?: string;
  usage?: Partial<{ input_tokens: number; output_tokens: number; cache_read_input_tokens: number | null; cache_creation_input_tokens: number | null }>;
  /** Remove fields from the message body (for "expected field missing" cases). */
  omit?: string[];
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A 200 Messages API reply with the given text (one text block) or options. */
export function messageReply(textOrOptions: string | MessageReplyOptions): ScriptedReply {
  const o: MessageReplyOptions = typeof textOrOptions === "string" ? { texts: [textOrOptions] } : textOrOptions;
  const body: Record<string, unknown> = {
    id: `msg_fake_${++messageCounter}`,
    type: "message",
    role: "assistant",
    model: o.model ?? "claude-fake",
    content: (o.texts ?? []).map((text) => ({ type: "text", text, citations: null })),
    stop_reason: o.stopReason === undefined ? "end_turn" : o.stopReason,
    stop_sequence: null,
    stop_details: o.stopDetails ?? null,
    usage: {
      input_tokens: 120,
      output_tokens: 45,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      ...o.usage,
    },
  };
  for (const key of o.omit ?? []) delete body[key];
  return { status: 200, body, headers: { "request-id": `req_fake_${messageCounter}`, ...o.headers }, delayMs: o.delayMs };
}

/** A JSON reply: the value serialised into one text block. */
export function jsonReply(value: unknown, options: Omit<MessageReplyOptions, "texts"> = {}): ScriptedReply {
  return messageReply({ ...options, texts: [JSON.stringify(value)] });
}

/** An error in the API's own shape: `{type: "error", error: {type, message}}`. */
export function errorReply(status: number, type: string, message: string, headers: Record<string, string> = {}): ScriptedReply {
  return {
    status,
    headers: { "request-id": `req_fake_err_${status}`, ...headers },
    body: { type: "error", error: { type, message } },
  };
}

// ---------------------------------------------------------------- internals

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === "string" && auth.startsWith("Bearer ")) return auth.slice("Bearer ".length);
  const key = headers["x-api-key"];
  return typeof key === "string" ? key : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, reply: ScriptedReply): void {
  // The client may have given up (timeout test); writing to a closed socket would throw.
  if (res.destroyed || res.writableEnded) return;
  const payload = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
  res.end(payload);
}
