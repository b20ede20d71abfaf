/**
 * The error taxonomy (docs/architecture.md, error table). Step Functions matches `ErrorEquals` against the name a Lambda throws: the
 * names ARE the contract with the state machines. So every class spells its name as a string literal (as
 * Powertools does), never `constructor.name` / `new.target.name`, which the minifier renames (infra/bundling.ts
 * does not keep names); test/bundle/ proves the names on the shipped bundles.
 * Every class carries `cause` (translate with `new X(message, { cause })`, never swallow it) and a `kind`.
 */

import { redactString } from "../redaction/redact-text";

export type ErrorKind = "transient" | "auth" | "business" | "fatal" | "timeout" | "user";

export interface AppErrorOptions {
  cause?: unknown;
  /** Structured, non-secret facts for the audit log (status codes, stop reasons, validation issues). */
  details?: Record<string, unknown>;
}

export abstract class AppError extends Error {
  abstract readonly kind: ErrorKind;
  abstract override readonly name: string;
  readonly details: Record<string, unknown>;

  constructor(message: string, options: AppErrorOptions = {}) {
    // A message may quote what a dependency said; it reaches logs, audit entries and Step Functions `Cause`.
    super(redactString(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details ?? {};
  }
}

// ---------------------------------------------------------------- transient (Step Functions retries these)

export class TransientError extends AppError {
  override readonly name: string = "TransientError";
  readonly kind = "transient" as const;
}
/**
 * freee issued a new single-use token pair that could be neither stored nor parked (a table-wide throttle
 * outlasting every retry): the workspace must reconnect freee once this Lambda ends. Counted as FreeeTokensLost.
 */
export class RefreshedTokensLostError extends TransientError {
  override readonly name: string = "RefreshedTokensLostError";
}
/** 429 from Anthropic, freee or Slack. `retryAfterSeconds` when the server said so. */
export class RateLimitedError extends TransientError {
  override readonly name: string = "RateLimitedError";
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, options: AppErrorOptions & { retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
/**
 * freee's 403 throttle (「一定期間に過度のアクセスを検知した場合…10分程度」): a rate limit no retry inside the next minutes
 * helps, so the state machines catch it without a retry and the user is told when to run again.
 */
export class FreeeThrottledError extends RateLimitedError {
  override readonly name: string = "FreeeThrottledError";
}
/** 5xx, including Anthropic's 529 overloaded. */
export class UpstreamServerError extends TransientError {
  override readonly name: string = "UpstreamServerError";
}
/** The request timed out (Anthropic APIConnectionTimeoutError): its own retry row, max 2. */
export class UpstreamTimeoutError extends TransientError {
  override readonly name: string = "UpstreamTimeoutError";
}
/** Network failure before any response. */
export class ConnectionFailedError extends TransientError {
  override readonly name: string = "ConnectionFailedError";
}
/** DynamoDB throttling / capacity. */
export class ThrottledError extends TransientError {
  override readonly name: string = "ThrottledError";
}

// ---------------------------------------------------------------- silent failures (docs/architecture.md, error table)

/** A "200 OK" reply that does not meet its contract. Catching the base catches all three. */
export abstract class SilentFailureError extends AppError {
  override readonly name: string = "SilentFailureError";
  readonly kind = "business" as const;
}
/** 200 OK with no text, or only whitespace. */
export class EmptyResponseError extends SilentFailureError {
  override readonly name: string = "EmptyResponseError";
}
/** Cut off by a stop reason (`max_tokens`, context window), or an expected field is missing. */
export class TruncatedResponseError extends SilentFailureError {
  override readonly name: string = "TruncatedResponseError";
}
/** The model refused (`stop_reason: refusal`); `stopDetails` is kept as the provider sent it. */
export class RefusedResponseError extends SilentFailureError {
  override readonly name: string = "RefusedResponseError";
  readonly stopDetails: unknown;
  constructor(message: string, options: AppErrorOptions & { stopDetails?: unknown } = {}) {
    super(message, options);
    this.stopDetails = options.stopDetails ?? null;
  }
}

/**
 * L4's completion contract (docs/architecture.md, error table): the session ended its turn, but an approved write step has no recorded
 * successful tool call, or the agent's final message is empty, cut off or refused. A rerun does only the steps
 * not done.
 */
export class IncompleteRunError extends SilentFailureError {
  override readonly name: string = "IncompleteRunError";
}

/**
 * An incomplete run whose steps freee refused, told apart so the ledger counts each cause on its own (a rerun still
 * does only the steps not done): freee answered 403 (a permission the connected user or the app lacks), 404 (what
 * the step names does not exist), or its rate limit (429) outlasted the MCP server's retries.
 */
export class FreeeForbiddenError extends IncompleteRunError {
  override readonly name: string = "FreeeForbiddenError";
}
export class FreeeNotFoundError extends IncompleteRunError {
  override readonly name: string = "FreeeNotFoundError";
}
export class FreeeRateLimitedError extends IncompleteRunError {
  override readonly name: string = "FreeeRateLimitedError";
}

// ---------------------------------------------------------------- business

/** JSON does not parse, schema violation, missing keys, unknown tool, empty steps. */
export class MalformedOutputError extends AppError {
  override readonly name: string = "MalformedOutputError";
  readonly kind = "business" as const;
}
/** Anthropic 400: the request itself is wrong; retrying cannot help. */
export class BadRequestError extends AppError {
  override readonly name: string = "BadRequestError";
  readonly kind = "business" as const;
}
/**
 * A conditional write found another state than expected (double click, redelivery, retried Lambda) or a
 * transition the state model forbids. A refused conditional write means "it exists already"
 * (docs/architecture.md, data model), seen from the caller, and the caller decides whether "already done" is success.
 */
export class StateConflictError extends AppError {
  override readonly name: string = "StateConflictError";
  readonly kind = "business" as const;
  /**
   * The record as the refused write found it, when the store had it (a status change's refusal carries the item):
   * the caller can act on it without reading it again. Not enumerable, so no logger or audit entry copies a whole
   * record (a request's text, a version's task token) out of an error.
   */
  declare readonly current: unknown;
  constructor(message: string, options: AppErrorOptions & { current?: unknown } = {}) {
    super(message, options);
    Object.defineProperty(this, "current", { value: options.current, enumerable: false, writable: false });
  }
}
/** A record the caller relies on does not exist (unknown task id in a button, deleted execution). */
export class RecordNotFoundError extends AppError {
  override readonly name: string = "RecordNotFoundError";
  readonly kind = "business" as const;
}

/**
 * A freee write (POST / PUT / PATCH / DELETE) may have reached freee (timeout, reset after send, 5xx) and reading
 * back could not settle whether it took effect. Never retried blindly: the user checks freee before a rerun,
 * and a rerun reconciles again before it writes.
 */
export class WriteOutcomeUnknownError extends AppError {
  override readonly name: string = "WriteOutcomeUnknownError";
  readonly kind = "business" as const;
}

export type AgentFailureReason =
  | "session_error"
  | "requires_action"
  | "retries_exhausted"
  | "budget_reached"
  | "terminated"
  | "mcp_unreachable"
  | "model_overloaded";
/**
 * The Managed Agents session ended in failure (docs/architecture.md, the approved Process is the capability): a terminal `session.error`, `requires_action`,
 * `retries_exhausted`, `budget_reached` or `session.status_terminated`. Retrying the poll cannot help; a rerun can.
 */
export class AgentRunFailedError extends AppError {
  override readonly name: string = "AgentRunFailedError";
  readonly kind = "business" as const;
  readonly reason: AgentFailureReason;
  constructor(message: string, options: AppErrorOptions & { reason: AgentFailureReason }) {
    super(message, options);
    this.reason = options.reason;
  }
}

// ---------------------------------------------------------------- auth

/**
 * Whose credential an AuthError is about: freee's connection (its API, OAuth, the freee MCP server's bearer) or
 * the Slack app's (its bot token, installation, file access, sign-in). Kept in `details` too, so the audit entry
 * carries it and App Home, the web admin and the report name the two apart.
 */
export type AuthService = "freee" | "slack";

/** freee 401 after one refresh; Slack token invalid or revoked. */
export class AuthError extends AppError {
  override readonly name: string = "AuthError";
  readonly kind = "auth" as const;
  readonly service: AuthService;
  constructor(message: string, options: AppErrorOptions & { service: AuthService }) {
    const { service, ...rest } = options;
    super(message, { ...rest, details: { ...rest.details, service } });
    this.service = service;
  }
}
/**
 * The workspace's freee connection now acts on another company than the one the approved plan was previewed
 * against (an admin reconnected and chose another company). Nothing the run or a rerun does can fix it: the plan
 * must be previewed again, so it is never retried.
 */
export class FreeeCompanyChangedError extends AppError {
  override readonly name: string = "FreeeCompanyChangedError";
  readonly kind = "auth" as const;
}

// ---------------------------------------------------------------- fatal

/** Missing setting, Anthropic AuthenticationError, table missing: fail at cold start, loudly. */
export class FatalConfigError extends AppError {
  override readonly name: string = "FatalConfigError";
  readonly kind = "fatal" as const;
}

// ---------------------------------------------------------------- timeout

/** L4 polling passed its limit (360 s by default). */
export class RunTimeoutError extends AppError {
  override readonly name: string = "RunTimeoutError";
  readonly kind = "timeout" as const;
}

// ---------------------------------------------------------------- user

export type LimitName = "regenerations" | "reruns";
/** 6th rejection (5 regenerations used) or 4th run (3 reruns used). */
export class LimitReachedError extends AppError {
  override readonly name: string = "LimitReachedError";
  readonly kind = "user" as const;
  readonly limit: LimitName;
  constructor(message: string, options: AppErrorOptions & { limit: LimitName }) {
    super(message, options);
    this.limit = options.limit;
  }
}

/** Every name a state machine may match, grouped as the Retry blocks use them. */
export const ErrorNames = {
  transient: [
    "TransientError",
    "RateLimitedError",
    "UpstreamServerError",
    "ConnectionFailedError",
    "ThrottledError",
    "RefreshedTokensLostError",
  ],
  timeout: ["UpstreamTimeoutError"],
  silentRetryOnce: ["EmptyResponseError", "TruncatedResponseError"],
  malformed: ["MalformedOutputError"],
  noRetry: [
    "RefusedResponseError",
    "BadRequestError",
    "AuthError",
    "FreeeCompanyChangedError",
    "FreeeThrottledError",
    "FatalConfigError",
    "StateConflictError",
    "IllegalTransitionError",
    "RecordNotFoundError",
    "AgentRunFailedError",
    "IncompleteRunError",
    "FreeeForbiddenError",
    "FreeeNotFoundError",
    "FreeeRateLimitedError",
    "WriteOutcomeUnknownError",
  ],
} as const;

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** A status change the state model forbids (a bug in the caller, not a race): never retried. */
export class IllegalTransitionError extends StateConflictError {
  override readonly name: string = "IllegalTransitionError";
}
