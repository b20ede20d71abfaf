/**
 * freee's answer to one API call, classified as freee documents it (sources in docs/freee.md). Pure: status,
 * headers and the parsed body in, a typed outcome out; the client (lib/freee/client.ts) decides what to do.
 *
 * - 401 carries a `code` (`{ "code": "expired_access_token", "message": "…" }`): only an expired or invalid
 *   access token is helped by a refresh; permission, company, plan, IP and re-authorization codes are not.
 * - HR may answer an expired token with 403 `accessDeniedError` (`{ error, message, code }`), so the code
 *   decides, not the status.
 * - 429: HR and accounting send `X-RateLimit-Reset` (an ISO time); accounting's body adds `meta.reset`; invoice
 *   adds a minute window (`X-Ratelimit-Remaining-Minute` / `-Reset-Minute`) and a day window (`-Day`).
 * - 403 is also freee's throttle: 「一定期間に過度のアクセスを検知した場合…403…10分程度が過ぎると再度使用することが
 *   できる」 (every schema's info.description). The schemas give it no body, so it is told from a permission 403 by its
 *   wording (THROTTLE_WORDING) and by carrying no permission code; it waits the ten minutes freee names.
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

export type RateLimitSource = "x-ratelimit-reset" | "x-ratelimit-reset-minute" | "x-ratelimit-reset-day" | "meta.reset" | "retry-after" | "freee-403-throttle";

/** How long freee's 403 throttle lasts: 「制限がかかってから10分程度」. Counted from the answer (its start is not sent). */
export const FREEE_THROTTLE_MS = 10 * 60_000;

/**
 * The words freee's throttle is described with (過度のアクセス, アクセスをコントロール, アクセス制限), and the usual English
 * of a gateway's throttle. A permission 403 says アクセス権限 / 権限がありません, which none of these match.
 */
const THROTTLE_WORDING = /過度のアクセス|アクセスをコントロール|アクセス(?:を)?制限|アクセスが集中|too many requests|rate ?limit|throttl/i;

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
  | ({ kind: "rate_limited"; status: number } & RateLimitWait)
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
  if (status === 403 && isThrottle(code, body)) return { kind: "rate_limited", status, ...throttleWait(headers, body, now) };
  if (status >= 500) return { kind: "server_error", status };
  const refusal = status === 403 ? "forbidden" : status === 404 ? "not_found" : "rejected";
  return { kind: "refused", status, refusal, code, messages: errorMessages(body) };
}

export interface RateLimitWait {
  /** How long until freee resets the count that ran out, undefined when it named no time. */
  waitMs: number | undefined;
  resetAt: string | undefined;
  source: RateLimitSource | undefined;
  limit: number | undefined;
  remaining: number | undefined;
}

/** A 403 that is freee's throttle: no permission or token code, and the throttle's wording. */
function isThrottle(code: string | undefined, body: unknown): boolean {
  if (code !== undefined && (API_AUTH_REASONS.has(code) || TOKEN_CODES.has(code))) return false;
  return errorMessages(body).some((m) => THROTTLE_WORDING.test(m));
}

/** The throttle's wait: ten minutes from now, or a later reset freee named (a header of the 429 kind). */
function throttleWait(headers: Headers, body: unknown, now: number): RateLimitWait {
  const named = rateLimitWait(headers, body, now);
  if (named.waitMs !== undefined && named.waitMs > FREEE_THROTTLE_MS) return named;
  return { ...named, waitMs: FREEE_THROTTLE_MS, resetAt: new Date(now + FREEE_THROTTLE_MS).toISOString(), source: "freee-403-throttle" };
}

/** freee's count windows, shortest first, with the reset and remaining headers of each (invoice names all three). */
const WINDOWS: { source: RateLimitSource; reset: string; remaining: string; limit: string }[] = [
  { source: "x-ratelimit-reset-minute", reset: "x-ratelimit-reset-minute", remaining: "x-ratelimit-remaining-minute", limit: "x-ratelimit-limit-minute" },
  { source: "x-ratelimit-reset", reset: "x-ratelimit-reset", remaining: "x-ratelimit-remaining", limit: "x-ratelimit-limit" },
  { source: "x-ratelimit-reset-day", reset: "x-ratelimit-reset-day", remaining: "x-ratelimit-remaining-day", limit: "x-ratelimit-limit-day" },
];

/**
 * The wait a 429 asks for. When a window says it ran out (its `Remaining` is 0), the wait is until the latest reset
 * among the spent windows: a spent minute waits for the minute (invoice: 30 a minute), not for the hour; a spent day
 * for the day. When no window says which ran out, the latest of every reset freee named: `X-RateLimit-Reset*`
 * (headers; ISO times), `meta.reset` (accounting body, ISO time) and `Retry-After` (not documented by freee, honoured
 * if sent). A reset time already past waits 0. Headers are read case-blind (freee spells them both ways).
 */
export function rateLimitWait(headers: Headers, body: unknown, now: number): RateLimitWait {
  const meta = isRecord(body) && isRecord(body.meta) ? body.meta : undefined;
  const candidates: { at: number; source: RateLimitSource; spent: boolean; limit: number | undefined; remaining: number | undefined }[] = [];
  for (const w of WINDOWS) {
    const at = parseTime(headers.get(w.reset));
    const remaining = intOf(headers.get(w.remaining)) ?? (w.source === "x-ratelimit-reset" ? intOf(meta?.remaining) : undefined);
    const limit = intOf(headers.get(w.limit)) ?? (w.source === "x-ratelimit-reset" ? intOf(meta?.limit) : undefined);
    if (at !== undefined) candidates.push({ at, source: w.source, spent: remaining !== undefined && remaining <= 0, limit, remaining });
  }
  const bodyReset = parseTime(typeof meta?.reset === "string" ? meta.reset : null);
  if (bodyReset !== undefined) candidates.push({ at: bodyReset, source: "meta.reset", spent: intOf(meta?.remaining) === 0, limit: intOf(meta?.limit), remaining: intOf(meta?.remaining) });
  const retryAfter = parseRetryAfterAt(headers.get("retry-after"), now);
  // Retry-After names the wait itself: it counts as spent, so a spent window never shortens it.
  if (retryAfter !== undefined) candidates.push({ at: retryAfter, source: "retry-after", spent: true, limit: undefined, remaining: undefined });
  const hourLimit = intOf(headers.get("x-ratelimit-limit")) ?? intOf(meta?.limit);
  const hourRemaining = intOf(headers.get("x-ratelimit-remaining")) ?? intOf(meta?.remaining);
  if (candidates.length === 0) return { waitMs: undefined, resetAt: undefined, source: undefined, limit: hourLimit, remaining: hourRemaining };
  const spent = candidates.filter((c) => c.spent);
  const latest = (spent.length > 0 ? spent : candidates).reduce((a, b) => (b.at > a.at ? b : a));
  return {
    waitMs: Math.max(0, latest.at - now),
    resetAt: new Date(latest.at).toISOString(),
    source: latest.source,
    limit: latest.limit ?? hourLimit,
    remaining: latest.remaining ?? hourRemaining,
  };
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
