import * as Anthropic from "@anthropic-ai/sdk/core/error";
import {
  AppError,
  AuthError,
  type AuthService,
  BadRequestError,
  ConnectionFailedError,
  FatalConfigError,
  RateLimitedError,
  RecordNotFoundError,
  StateConflictError,
  ThrottledError,
  TransientError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from "./taxonomy";

/**
 * Translates whatever a dependency threw into the taxonomy, keeping the original as `cause`.
 * AppErrors pass through unchanged; anything unknown becomes a TransientError only when it is clearly a
 * network fault, otherwise it is re-thrown as is (a bug should surface as a bug, not be retried).
 */
export function classifyError(err: unknown, where = "call"): AppError | Error {
  if (err instanceof AppError) return err;
  const anthropic = classifyAnthropicError(err, where);
  if (anthropic) return anthropic;
  const aws = classifyAwsError(err, where);
  if (aws) return aws;
  if (isNetworkError(err)) {
    return new ConnectionFailedError(`${where}: network error`, { cause: err });
  }
  return err instanceof Error ? err : new Error(`${where}: ${String(err)}`, { cause: err });
}

export function classifyAnthropicError(err: unknown, where = "anthropic"): AppError | undefined {
  // Order matters: the timeout error extends the connection error.
  if (err instanceof Anthropic.APIConnectionTimeoutError) {
    return new UpstreamTimeoutError(`${where}: request timed out`, { cause: err });
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return new ConnectionFailedError(`${where}: connection failed`, { cause: err });
  }
  if (err instanceof Anthropic.APIError) {
    const status = err.status;
    const requestId = (err as { requestID?: string | null }).requestID ?? undefined;
    const details = { status, requestId };
    if (err instanceof Anthropic.AuthenticationError) {
      return new FatalConfigError(`${where}: Anthropic API key rejected (401)`, { cause: err, details });
    }
    if (err instanceof Anthropic.PermissionDeniedError) {
      return new FatalConfigError(`${where}: Anthropic API key lacks permission (403)`, { cause: err, details });
    }
    if (err instanceof Anthropic.BadRequestError || err instanceof Anthropic.UnprocessableEntityError) {
      return new BadRequestError(`${where}: request rejected (${status})`, { cause: err, details });
    }
    if (err instanceof Anthropic.RateLimitError) {
      return new RateLimitedError(`${where}: rate limited (429)`, {
        cause: err,
        details,
        retryAfterSeconds: parseRetryAfter(err.headers?.get?.("retry-after") ?? undefined),
      });
    }
    if (err instanceof Anthropic.InternalServerError || (typeof status === "number" && status >= 500)) {
      return new UpstreamServerError(`${where}: server error (${status})`, { cause: err, details });
    }
    if (err instanceof Anthropic.NotFoundError) {
      return new BadRequestError(`${where}: not found (404)`, { cause: err, details });
    }
    if (typeof status === "number") return classifyHttpStatus(status, where, err);
  }
  return undefined;
}

const AWS_THROTTLING = new Set([
  "ThrottlingException",
  "Throttling",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "TooManyRequestsException",
  "LimitExceededException",
]);

export function classifyAwsError(err: unknown, where = "aws"): AppError | undefined {
  if (!(err instanceof Error)) return undefined;
  const name = err.name;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (AWS_THROTTLING.has(name)) return new ThrottledError(`${where}: throttled (${name})`, { cause: err });
  if (name === "ConditionalCheckFailedException") {
    return new StateConflictError(`${where}: condition failed`, { cause: err });
  }
  if (name === "ResourceNotFoundException") {
    return new FatalConfigError(`${where}: resource missing (${name})`, { cause: err });
  }
  if (name === "AccessDeniedException" || name === "UnrecognizedClientException") {
    return new FatalConfigError(`${where}: access denied (${name})`, { cause: err });
  }
  if (name === "TaskDoesNotExist" || name === "TaskTimedOut" || name === "InvalidToken") {
    return new StateConflictError(`${where}: task token no longer valid (${name})`, { cause: err });
  }
  // The SDK's own request timeout (requestHandler throwOnRequestTimeout): the timeout row, not a crash.
  if (name === "TimeoutError" || name === "RequestTimeout") {
    return new UpstreamTimeoutError(`${where}: request timed out (${name})`, { cause: err });
  }
  if (name === "ExecutionDoesNotExist") {
    return new RecordNotFoundError(`${where}: execution missing`, { cause: err });
  }
  if (name === "InternalServerError" || name === "ServiceUnavailable" || (status !== undefined && status >= 500)) {
    return new UpstreamServerError(`${where}: AWS server error (${name})`, { cause: err });
  }
  return undefined;
}

/**
 * A `fetch` that threw before any response, for the hand-written HTTP clients (freee's API and token endpoint,
 * Slack's file host): our own deadline (`AbortSignal.timeout` throws a TimeoutError) is the timeout row, anything
 * else never reached the service (DNS, refused, reset) and is the connection row. Both are retried by their callers.
 */
export function classifyFetchFailure(err: unknown, where: string): UpstreamTimeoutError | ConnectionFailedError {
  if (err instanceof Error && err.name === "TimeoutError") return new UpstreamTimeoutError(`${where}: timed out`, { cause: err });
  return new ConnectionFailedError(`${where}: connection failed`, { cause: err });
}

/** HTTP status → taxonomy, for the hand-written HTTP clients (freee, Slack); `service` is whose a 401 / 403 is. */
export function classifyHttpStatus(
  status: number,
  where: string,
  cause?: unknown,
  retryAfter?: string | null,
  service: AuthService = "freee", // only freee's clients reach a 401 or 403 here (Anthropic's are FatalConfigError above)
): AppError {
  const details = { status };
  if (status === 401) return new AuthError(`${where}: unauthorized (401)`, { service, cause, details });
  if (status === 429) {
    return new RateLimitedError(`${where}: rate limited (429)`, {
      cause,
      details,
      retryAfterSeconds: parseRetryAfter(retryAfter ?? undefined),
    });
  }
  if (status >= 500) return new UpstreamServerError(`${where}: server error (${status})`, { cause, details });
  if (status === 404) return new RecordNotFoundError(`${where}: not found (404)`, { cause, details });
  if (status === 408) return new UpstreamTimeoutError(`${where}: request timeout (408)`, { cause, details });
  if (status === 403) return new AuthError(`${where}: forbidden (403)`, { service, cause, details });
  return new BadRequestError(`${where}: rejected (${status})`, { cause, details });
}

/** Retry-After is seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_SOCKET"]);

function isNetworkError(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return err instanceof TypeError && err.message === "fetch failed";
}

