import { slackSignature } from "../../dev/local/slack-signature";

/**
 * Sign request bodies exactly as Slack does (through dev/local/slack-signature.ts, the one signer) with the
 * signing secret, sent as X-Slack-Signature with X-Slack-Request-Timestamp. Builds Function URL events
 * (API Gateway v2 shape: rawPath, lower-case headers, body, isBase64Encoded).
 */
export const TEST_SIGNING_SECRET = "test-signing-secret-0123456789abcdef";

export function signature(body: string, timestamp: number, secret = TEST_SIGNING_SECRET): string {
  return slackSignature(body, secret, timestamp);
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export interface SignedRequestOptions {
  timestamp?: number;
  secret?: string;
  base64?: boolean;
  /** Replace the computed signature (bad signature tests); null omits the header. */
  signature?: string | null;
  /** null omits the timestamp header. */
  timestampHeader?: string | null;
  path?: string;
  headers?: Record<string, string>;
}

export interface FunctionUrlEvent {
  version: "2.0";
  rawPath: string;
  rawQueryString: string;
  headers: Record<string, string>;
  body?: string;
  isBase64Encoded: boolean;
  requestContext: { http: { method: string; path: string; sourceIp: string }; requestId: string; timeEpoch: number };
}

function signed(body: string, contentType: string, options: SignedRequestOptions): FunctionUrlEvent {
  const ts = options.timestamp ?? nowSeconds();
  const headers: Record<string, string> = { "content-type": contentType, ...(options.headers ?? {}) };
  const sig = options.signature === undefined ? signature(body, ts, options.secret) : options.signature;
  if (sig !== null) headers["x-slack-signature"] = sig;
  const tsHeader = options.timestampHeader === undefined ? String(ts) : options.timestampHeader;
  if (tsHeader !== null) headers["x-slack-request-timestamp"] = tsHeader;
  const path = options.path ?? "/slack/events";
  return {
    version: "2.0",
    rawPath: path,
    rawQueryString: "",
    headers,
    body: options.base64 ? Buffer.from(body, "utf8").toString("base64") : body,
    isBase64Encoded: options.base64 === true,
    requestContext: { http: { method: "POST", path, sourceIp: "127.0.0.1" }, requestId: `req-${Math.random()}`, timeEpoch: Date.now() },
  };
}

/** An Events API delivery (JSON body). */
export function signedJson(payload: unknown, options: SignedRequestOptions = {}): FunctionUrlEvent {
  return signed(typeof payload === "string" ? payload : JSON.stringify(payload), "application/json", options);
}

/** An interactivity delivery (block_actions, view_submission): form-encoded `payload=<json>`. */
export function signedInteraction(payload: unknown, options: SignedRequestOptions = {}): FunctionUrlEvent {
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return signed(body, "application/x-www-form-urlencoded", options);
}

/** A plain GET (install / OAuth redirect / freee pages). */
export function getRequest(path: string, query = "", headers: Record<string, string> = {}): FunctionUrlEvent {
  return {
    version: "2.0",
    rawPath: path,
    rawQueryString: query,
    headers,
    isBase64Encoded: false,
    requestContext: { http: { method: "GET", path, sourceIp: "127.0.0.1" }, requestId: `req-${Math.random()}`, timeEpoch: Date.now() },
  };
}
