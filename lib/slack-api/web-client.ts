import { ErrorCode, LogLevel, WebClient, type WebAPICallError } from "@slack/web-api";
import { SLACK_CALL } from "../core/config/client-budgets";
import { optionalEnv, type Env } from "../core/config/env";
import { AuthError, RateLimitedError, UpstreamServerError, ConnectionFailedError, AppError } from "../core/errors/taxonomy";

/**
 * Slack Web API client. `SLACK_API_URL` points it at the recording server in tests / local dev. Retries are few:
 * the state machines own the retry policy (docs/architecture.md, shape on AWS), and the ingress has a 3 s budget.
 */
export function createWebClient(token: string | undefined, env: Env = process.env): WebClient {
  const slackApiUrl = optionalEnv("SLACK_API_URL", env);
  return new WebClient(token, {
    ...(slackApiUrl === undefined ? {} : { slackApiUrl: slackApiUrl.endsWith("/") ? slackApiUrl : `${slackApiUrl}/` }),
    retryConfig: { retries: SLACK_CALL.attempts - 1, factor: 1, minTimeout: 100, maxTimeout: SLACK_CALL.backoffMs },
    rejectRateLimitedCalls: true,
    timeout: SLACK_CALL.timeoutMs,
    logLevel: LogLevel.ERROR,
  });
}

const AUTH_ERRORS = new Set([
  "invalid_auth",
  "not_authed",
  "token_revoked",
  "token_expired",
  "account_inactive",
  "no_permission",
  "missing_scope",
]);

/** The Slack API error code (`channel_not_found`…) of a Web API error, when there is one. */
export function slackErrorCode(err: unknown): string | undefined {
  const e = err as Partial<WebAPICallError> & { data?: { error?: unknown } };
  if (e?.code === ErrorCode.PlatformError && typeof e.data?.error === "string") return e.data.error;
  return undefined;
}

/**
 * Translate a Slack Web API error into the taxonomy: invalid / revoked tokens → AuthError, rate limited →
 * RateLimitedError, HTTP 5xx → UpstreamServerError, network → ConnectionFailedError. Anything else (docs/architecture.md, error table
 * slack_api_error) is returned as is for the caller to log; callers treat it as best effort.
 */
export function classifySlackError(err: unknown, where: string): Error {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; retryAfter?: number; statusCode?: number };
  const code = slackErrorCode(err);
  if (code !== undefined && AUTH_ERRORS.has(code)) {
    return new AuthError(`${where}: Slack token rejected (${code})`, { service: "slack", cause: err, details: { slackError: code } });
  }
  if (e?.code === ErrorCode.RateLimitedError) {
    return new RateLimitedError(`${where}: Slack rate limited`, { cause: err, retryAfterSeconds: e.retryAfter });
  }
  if (e?.code === ErrorCode.HTTPError && typeof e.statusCode === "number" && e.statusCode >= 500) {
    return new UpstreamServerError(`${where}: Slack HTTP ${e.statusCode}`, { cause: err, details: { status: e.statusCode } });
  }
  if (e?.code === ErrorCode.RequestError) {
    return new ConnectionFailedError(`${where}: Slack unreachable`, { cause: err });
  }
  return err instanceof Error ? err : new Error(`${where}: ${String(err)}`, { cause: err });
}
