/**
 * freee's answer to one API call, classified as freee documents it (sources in docs/freee.md). Pure: status,
 * headers and the parsed body in, a typed outcome out; the client (lib/freee/client.ts) decides what to do.
 *
 * - 401 carries a `code` (`{ "code": "expired_access_token", "message": "…" }`): only an expired or invalid
 *   access token is helped by a refresh; permission, company, plan, IP and re-authorization codes are not.
 * - HR may answer an expired token with 403 `accessDeniedError` (`{ error, message, code }`), so the code
 *   decides, not the status.
 * - 429: HR and accounting send `X-RateLimit-Reset` (an ISO time); accounting's body adds `meta.reset`.
 */
import type { FreeeApiAuthReason } from "../core/domain/freee-auth";

export type { FreeeApiAuthReason, FreeeAuthReason } from "../core/domain/freee-auth";

const API_AUTH_REASONS: ReadonlySet<string> = new Set<FreeeApiAuthReason>([
  "user_do_not_have_permission",
  "company_not_found",
  "freee_plan_limit",
  "source_ip_address_limit",
  "re_authorization_required",
  "not_available_plan_limited_app",
]);

/**
 * The codes a refresh helps. `invalid_access_token` was merged into `expired_access_token` (Dec 2024) but an
 * older deployment of freee may still send it.
 */
const TOKEN_CODES: ReadonlySet<string> = new Set(["expired_access_token", "invalid_access_token"]);

export type RateLimitSource = "x-ratelimit-reset" | "meta.reset" | "retry-after";

export type FreeeOutcome =
  | { kind: "ok"; status: number; data: unknown }
  /** The access token is expired / invalid: refresh once and retry. `code` is undefined for a codeless 401. */
  | { kind: "token_rejected"; status: number; code: string | undefined }
  /** freee refused the call for a reason no refresh fixes. */
  | { kind: "auth_refused"; status: number; reason: FreeeApiAuthReason; code: string | undefined; messages: string[] }
  /**
   * 429. `waitMs` is how long until freee resets the count (from the latest reset time it gave), undefined
   * when it gave none; `resetAt` is that time.
   */
  | { kind: "rate_limited"; status: number; waitMs: number | undefined; resetAt: string | undefined; source: RateLimitSource | undefined; limit: number | undefined; remaining: number | undefined }
  | { kind: "server_error"; status: number }
  /** Other 4xx: the agent reads freee's messages and decides (docs/architecture.md, error table). */
  | { kind: "refused"; status: number; refusal: "forbidden" | "not_found" | "rejected"; code: string | undefined; messages: string[] };

export function classifyFreeeResponse(status: number, headers: Headers, body: unknown, now: number): FreeeOutcome {
  if (status >= 200 && status < 300) return { kind: "ok", status, data: body };
  const code = errorCode(body);
  if (status === 401 || status === 403) {
    if (code !== undefined && TOKEN_CODES.has(code)) return { kind: "token_rejected", status, code };
  }
  if (status === 401) {
    // HR's documented 401 body (`unauthorizedError`) has no code: its message is the invalid-token one.
    if (code === undefined) return { kind: "token_rejected", status, code };
    const reason: FreeeApiAuthReason = API_AUTH_REASONS.has(code) ? (code as FreeeApiAuthReason) : "unrecognized";
    return { kind: "auth_refused", status, reason, code, messages: errorMessages(body) };
  }
  if (status === 429) return { kind: "rate_limited", status, ...rateLimitWait(headers, body, now) };
  if (status >= 500) return { kind: "server_error", status };
  const refusal = status === 403 ? "forbidden" : status === 404 ? "not_found" : "rejected";
  return { kind: "refused", status, refusal, code, messages: errorMessages(body) };
}

/**
 * The wait a 429 asks for: until the latest of `X-RateLimit-Reset` (header; an ISO time in both HR and
 * accounting), `meta.reset` (accounting body, ISO time) and `Retry-After` (not documented by freee, honoured
 * if sent). A reset time already past waits 0.
 */
export function rateLimitWait(
  headers: Headers,
  body: unknown,
  now: number,
): { waitMs: number | undefined; resetAt: string | undefined; source: RateLimitSource | undefined; limit: number | undefined; remaining: number | undefined } {
  const meta = isRecord(body) && isRecord(body.meta) ? body.meta : undefined;
  const candidates: { at: number; source: RateLimitSource }[] = [];
  const headerReset = parseTime(headers.get("x-ratelimit-reset"));
  if (headerReset !== undefined) candidates.push({ at: headerReset, source: "x-ratelimit-reset" });
  const bodyReset = parseTime(typeof meta?.reset === "string" ? meta.reset : null);
  if (bodyReset !== undefined) candidates.push({ at: bodyReset, source: "meta.reset" });
  const retryAfter = parseRetryAfterAt(headers.get("retry-after"), now);
  if (retryAfter !== undefined) candidates.push({ at: retryAfter, source: "retry-after" });
  const limit = intOf(headers.get("x-ratelimit-limit")) ?? intOf(meta?.limit);
  const remaining = intOf(headers.get("x-ratelimit-remaining")) ?? intOf(meta?.remaining);
  if (candidates.length === 0) return { waitMs: undefined, resetAt: undefined, source: undefined, limit, remaining };
  const latest = candidates.reduce((a, b) => (b.at > a.at ? b : a));
  return { waitMs: Math.max(0, latest.at - now), resetAt: new Date(latest.at).toISOString(), source: latest.source, limit, remaining };
}

/** The `code` of a freee error body: top level (`{ code, message }`), or in the first `errors[]` entry. */
export function errorCode(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.code === "string" && body.code !== "") return body.code.slice(0, 64);
  if (Array.isArray(body.errors)) {
    for (const e of body.errors) {
      if (isRecord(e) && typeof e.code === "string" && e.code !== "") return e.code.slice(0, 64);
    }
  }
  return undefined;
}

/** freee error bodies: `{ errors: [{ type, messages: [...] }] }`, or `{ message }` / `{ messages: "…" }`. */
export function errorMessages(body: unknown): string[] {
  if (!isRecord(body)) return typeof body === "string" && body !== "" ? [body.slice(0, 500)] : [];
  const out: string[] = [];
  if (Array.isArray(body.errors)) {
    for (const e of body.errors) {
      const messages = isRecord(e) ? e.messages : undefined;
      if (Array.isArray(messages)) out.push(...messages.filter((m): m is string => typeof m === "string"));
      else if (typeof messages === "string") out.push(messages);
    }
  }
  if (typeof body.message === "string") out.push(body.message);
  if (typeof body.messages === "string") out.push(body.messages);
  return out.map((m) => m.slice(0, 500)).slice(0, 10);
}

function parseTime(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const at = Date.parse(value.trim());
  return Number.isNaN(at) ? undefined : at;
}

/** Retry-After: seconds or an HTTP date. */
function parseRetryAfterAt(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return now + seconds * 1000;
  return parseTime(value);
}

function intOf(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
