import type { ProxiedRequest } from "./fault-proxy";

/** The dependencies of the matrix: each sits behind its own fault proxy. */
export const DEPENDENCIES = ["DynamoDB", "Slack", "Anthropic Messages", "Managed Agents", "freee", "Step Functions"] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

/** throttle / 5xx: the service's own error reply; timeout: no reply in time; lost: the effect, no reply; auth: credentials refused. */
export const FAULT_KINDS = ["throttle", "5xx", "timeout", "lost", "auth"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/**
 * What each service answers for a fault, as its documentation and SDK expect it: DynamoDB's and Step Functions'
 * AWS JSON error types (`__type`), Slack's `{ ok: false, error }` and its 429 with Retry-After, Anthropic's
 * `{ type: "error", error: { type } }`, freee's `status_code` / `errors` body with its X-RateLimit headers.
 */
export function faultReply(dependency: Dependency, kind: Exclude<FaultKind, "timeout" | "lost">, request: ProxiedRequest): Reply {
  switch (dependency) {
    case "DynamoDB":
      return kind === "throttle"
        ? awsJson(400, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "The level of configured provisioned throughput for the table was exceeded.")
        : kind === "5xx"
          ? awsJson(500, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error")
          : awsJson(400, "com.amazon.coral.service#UnrecognizedClientException", "The security token included in the request is invalid.");
    case "Step Functions":
      return kind === "throttle"
        ? awsJson(400, "ThrottlingException", "Rate exceeded")
        : kind === "5xx"
          ? awsJson(500, "ServiceUnavailable", "Service unavailable")
          : awsJson(400, "AccessDeniedException", "User is not authorized to perform this action");
    case "Slack":
      return kind === "throttle"
        ? { status: 429, headers: { "retry-after": "1" }, body: { ok: false, error: "ratelimited" } }
        : kind === "5xx"
          ? { status: 503, body: "Service Unavailable" }
          : { status: 200, body: { ok: false, error: "invalid_auth" } };
    case "Anthropic Messages":
    case "Managed Agents":
      return kind === "throttle"
        ? anthropic(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", { "retry-after": "1" })
        : kind === "5xx"
          ? anthropic(529, "overloaded_error", "Overloaded")
          : anthropic(401, "authentication_error", "invalid x-api-key");
    case "freee": {
      if (kind === "throttle") {
        // freee names the reset as an ISO time (the X-RateLimit-Reset header and accounting's meta.reset), a second ahead.
        const reset = new Date(Date.now() + 1000).toISOString();
        return {
          status: 429,
          headers: { "x-ratelimit-limit": "10000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset },
          body: { status_code: 429, errors: [{ type: "status", messages: ["リクエスト数が上限を超えました。"] }], ...(request.path.startsWith("/api/") ? { meta: { limit: 10000, remaining: 0, reset } } : {}) },
        };
      }
      return kind === "5xx"
        ? { status: 503, body: { status_code: 503, errors: [{ type: "status", messages: ["ただいまメンテナンス中です。"] }] } }
        : { status: 401, body: { status_code: 401, errors: [{ type: "status", messages: ["アクセストークンの有効期限が切れています。"] }], code: "expired_access_token" } };
    }
  }
}

function awsJson(status: number, type: string, message: string): Reply {
  return { status, headers: { "content-type": "application/x-amz-json-1.0", "x-amzn-errortype": type.split("#").at(-1)! }, body: { __type: type, message } };
}

function anthropic(status: number, type: string, message: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "request-id": `req_chaos_${Date.now()}`, ...headers }, body: { type: "error", error: { type, message } } };
}
