import type { FreeeApi } from "../../../lib/freee/openapi/validator";

/**
 * freee's error bodies, per API, as the vendored schemas name them (accounting: badRequestError,
 * unauthorizedError, forbiddenError, badRequestNotFoundError, tooManyRequestsError, internalServerError;
 * HR and invoice: error/badRequest, unauthorizedError, forbiddenError, notfoundError, internalServerError) and
 * freee's developer guide lists the 401 codes (`expired_access_token`, which since 2024-12 also covers an
 * invalid token, and `company_not_found`).
 */

export type Unauthorized = "expired_access_token" | "company_not_found" | "user_do_not_have_permission";

const UNAUTHORIZED_MESSAGES: Record<Unauthorized, string> = {
  expired_access_token: "アクセスする権限がありません",
  company_not_found: "存在しないかすでに削除された事業所です。",
  user_do_not_have_permission: "このAPIにアクセスしたい場合、事業所の管理者にご確認ください。",
};

export function badRequestBody(api: FreeeApi, messages: string[]): unknown {
  if (api === "accounting") {
    return { status_code: 400, errors: [{ type: "status", messages: ["不正なリクエストです。"] }, { type: "validation", messages }] };
  }
  return { status_code: 400, errors: [{ type: "bad_request", messages }] };
}

export function unauthorizedBody(code: Unauthorized): unknown {
  return { message: UNAUTHORIZED_MESSAGES[code], code };
}

export function forbiddenBody(api: FreeeApi, message = "アクセス権限がありません。"): unknown {
  if (api === "accounting") return { message };
  return { status_code: 403, errors: [{ type: "forbidden", messages: [message] }] };
}

export function notFoundBody(api: FreeeApi, message = "存在しないか既に削除されたレコードです。"): unknown {
  return { status_code: 404, errors: [{ type: api === "accounting" ? "status" : "not_found", messages: [message] }] };
}

export function serverErrorBody(status: number): unknown {
  const message = status === 503 ? "このAPIは現在ご利用いただけません。" : "エラーが発生しました。";
  return { status_code: status, errors: [{ type: status === 503 ? "error" : "status", messages: [message] }] };
}

/** freee's count windows: the hour (every API), and invoice's minute and day. */
export type RateWindow = "hour" | "minute" | "day";

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets. */
  reset: Date;
  /** Window length in seconds (accounting's `meta.period`). */
  periodSeconds: number;
  /** Invoice's shorter and longer windows, reported beside the hour's (invoice.openapi.yml info.description). */
  others?: { window: Exclude<RateWindow, "hour">; limit: number; remaining: number; reset: Date }[];
}

/** freee prints reset times in JST with an offset (`2023-01-13T10:22:29+09:00`). */
export function jstIso(date: Date): string {
  const jst = new Date(date.getTime() + 9 * 3600_000);
  return `${jst.toISOString().slice(0, 19)}+09:00`;
}

/** Invoice prints its reset times in UTC with microseconds (`2018-01-01T12:00:00.000000Z`). */
export function invoiceIso(date: Date): string {
  return `${date.toISOString().slice(0, 19)}.000000Z`;
}

/**
 * The X-RateLimit-* headers freee sends (accounting spells them in lower case; HTTP headers are case-blind). Invoice
 * adds `X-Ratelimit-*-Minute` and `X-RateLimit-*-Day`, spelt as its schema spells them.
 */
export function rateLimitHeaders(state: RateLimitState, api?: FreeeApi): Record<string, string> {
  const time = api === "invoice" ? invoiceIso : jstIso;
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(state.limit),
    "x-ratelimit-remaining": String(Math.max(0, state.remaining)),
    "x-ratelimit-reset": time(state.reset),
  };
  for (const o of state.others ?? []) {
    const [prefix, suffix] = o.window === "minute" ? ["X-Ratelimit", "Minute"] : ["X-RateLimit", "Day"];
    headers[`${prefix}-Limit-${suffix}`] = String(o.limit);
    headers[`${prefix}-Remaining-${suffix}`] = String(Math.max(0, o.remaining));
    headers[`${prefix}-Reset-${suffix}`] = time(o.reset);
  }
  return headers;
}

/**
 * freee's throttle (「一定期間に過度のアクセスを検知した場合、APIアクセスをコントロール…403」, every schema's
 * info.description). The schemas give it no body: this is the API's own 403 body shape carrying the schema's words,
 * which is what lib/freee/freee-response.ts recognises it by.
 */
export const THROTTLE_MESSAGE = "一定期間に過度のアクセスを検知したため、APIアクセスを制限しています。制限がかかってから10分程度が過ぎると再度使用することができます。";

export function throttledBody(api: FreeeApi): unknown {
  return forbiddenBody(api, THROTTLE_MESSAGE);
}

export function tooManyRequestsBody(api: FreeeApi, state: RateLimitState): unknown {
  if (api === "accounting") {
    return { status_code: 429, meta: { limit: state.limit, period: state.periodSeconds, remaining: 0, reset: jstIso(state.reset) } };
  }
  return { status_code: 429, errors: [{ type: "too_many_requests", messages: ["リクエスト回数の上限を超えました。"] }] };
}

/** The body freee answers with for a status, when a test scripts only the status. */
export function defaultErrorBody(api: FreeeApi, status: number, rate?: RateLimitState): unknown {
  if (status === 400) return badRequestBody(api, ["リクエストの形式が不正です。"]);
  if (status === 401) return unauthorizedBody("expired_access_token");
  if (status === 403) return forbiddenBody(api);
  if (status === 404) return notFoundBody(api);
  if (status === 429) return tooManyRequestsBody(api, rate ?? { limit: 10, remaining: 0, reset: new Date(Date.now() + 1000), periodSeconds: 1 });
  return serverErrorBody(status);
}
