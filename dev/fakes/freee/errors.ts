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

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets. */
  reset: Date;
  /** Window length in seconds (accounting's `meta.period`). */
  periodSeconds: number;
}

/** freee prints reset times in JST with an offset (`2023-01-13T10:22:29+09:00`). */
export function jstIso(date: Date): string {
  const jst = new Date(date.getTime() + 9 * 3600_000);
  return `${jst.toISOString().slice(0, 19)}+09:00`;
}

/** The X-RateLimit-* headers freee sends (accounting spells them in lower case; HTTP headers are case-blind). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    "x-ratelimit-limit": String(state.limit),
    "x-ratelimit-remaining": String(Math.max(0, state.remaining)),
    "x-ratelimit-reset": jstIso(state.reset),
  };
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
