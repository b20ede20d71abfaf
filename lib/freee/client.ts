import type { Logger } from "@aws-lambda-powertools/logger";
import { defaultSleep } from "../core/aws/transient-retry";
import { classifyFetchFailure } from "../core/errors/classify";
import { AuthError, FatalConfigError, FreeeThrottledError, RateLimitedError, UpstreamServerError } from "../core/errors/taxonomy";
import { createLogger } from "../core/observability/logger";
import type { FreeeConnection } from "../store/freee-connections";
import { classifyFreeeResponse, type FreeeAuthReason, type FreeeOutcome } from "./freee-response";
import { FreeeTokenManager, type FreeeTokenManagerOptions } from "./token-manager";
import type { FreeeFile, FreeeRequest, FreeeResult } from "./types";
import { ambiguousWrite, isWriteRequest, mayHaveBeenSent } from "./write-policy";

/**
 * The freee API client of one workspace, implementing the freee API rules (docs/architecture.md, the approved Process is the capability) as freee documents them (the response is
 * classified by lib/freee/freee-response.ts):
 *   401 `expired_access_token` → refresh the token once and retry (FreeeTokenManager: serialised per
 *         workspace, stored so it is never lost); any other 401 code (permission, company, plan, IP,
 *         re-authorization) → AuthError with that reason at once, no refresh spent;
 *   403 / 404 (and other 4xx) → no retry, a typed result the MCP server turns into error text for the agent;
 *   429 → wait until freee's reset time (`X-RateLimit-Reset` / `meta.reset`; invoice's minute or day window when
 *         that one ran out), at most 3 retries, and only while the wait fits in the cap and the Lambda's remaining
 *         time, else RateLimitedError with the wait;
 *   403 throttle (freee's 「過度のアクセス」, ten minutes) → the same rule; past it FreeeThrottledError with the time;
 *   5xx and network faults → exponential backoff, at most 3;
 *   then a taxonomy error (AuthError, RateLimitedError, UpstreamServerError, ConnectionFailedError).
 * Those retry rows are for reads: a write that may have reached freee is not sent again (lib/freee/write-policy.ts)
 * and ends as WriteOutcomeUnknownError for the caller to reconcile.
 * Tokens are never logged: only method, path, status and attempt numbers are.
 */
export interface FreeeClientOptions extends Pick<FreeeTokenManagerOptions, "store" | "pending" | "tokenEndpoint"> {
  teamId: string;
  apiBaseUrl: string;
  fetch?: typeof fetch;
  /** Injectable so tests do not wait. */
  sleep?: (ms: number) => Promise<void>;
  clock?: () => Date;
  logger?: Logger;
  maxRateLimitRetries?: number;
  maxServerRetries?: number;
  backoffBaseMs?: number;
  /** A rate-limit wait longer than this is not waited for inside a tool call: RateLimitedError at once. */
  maxRetryAfterSeconds?: number;
  /** Added to freee's reset time (clocks differ; reset times are whole seconds in accounting). */
  rateLimitMarginMs?: number;
  /**
   * The invocation's remaining time (Lambda `context.getRemainingTimeInMillis()`), undefined outside one. A
   * rate-limit wait that would not leave `deadlineReserveMs` for the retried call is not started.
   */
  remainingTimeMs?: () => number | undefined;
  /** Counts refreshed token pairs that could be neither stored nor parked (FreeeTokenManager). */
  tokenMetrics?: FreeeTokenManagerOptions["metrics"];
  deadlineReserveMs?: number;
  /** How long a refresh may hold the lease before another caller may take over. */
  refreshLeaseMs?: number;
  leasePollMs?: number;
  /** Refresh ahead of expiry by this much, so a token does not expire mid-call. */
  refreshSkewMs?: number;
  requestTimeoutMs?: number;
}

/** The retry budget of one tool call; the MCP Lambda's timeout is derived from it (infra/lambda-budgets.ts). */
export const FREEE_CLIENT_DEFAULTS = {
  maxRateLimitRetries: 3,
  maxServerRetries: 3,
  backoffBaseMs: 1000,
  maxRetryAfterSeconds: 60,
  rateLimitMarginMs: 250,
  deadlineReserveMs: 5_000,
  refreshSkewMs: 60_000,
  requestTimeoutMs: 15_000,
};

export class FreeeClient {
  private readonly o: FreeeClientOptions & typeof FREEE_CLIENT_DEFAULTS;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly clock: () => Date;
  private readonly tokens: FreeeTokenManager;

  constructor(options: FreeeClientOptions) {
    this.o = { ...FREEE_CLIENT_DEFAULTS, ...stripUndefined(options) };
    this.log = options.logger ?? createLogger("freee-client");
    this.sleep = options.sleep ?? defaultSleep;
    this.clock = options.clock ?? (() => new Date());
    this.tokens = new FreeeTokenManager({
      teamId: options.teamId,
      store: options.store,
      pending: options.pending,
      tokenEndpoint: options.tokenEndpoint,
      sleep: this.sleep,
      clock: this.clock,
      logger: this.log,
      ...(options.refreshLeaseMs === undefined ? {} : { refreshLeaseMs: options.refreshLeaseMs }),
      ...(options.leasePollMs === undefined ? {} : { leasePollMs: options.leasePollMs }),
      ...(options.remainingTimeMs === undefined ? {} : { remainingTimeMs: options.remainingTimeMs }),
      ...(options.tokenMetrics === undefined ? {} : { metrics: options.tokenMetrics }),
    });
  }

  get teamId(): string {
    return this.o.teamId;
  }

  /** The company the workspace connected (the default `company_id` of every tool). */
  async companyId(): Promise<number> {
    return (await this.tokens.current()).companyId;
  }

  /** The connected company with the display name stored at connect time: what a preview records and shows. */
  async company(): Promise<{ id: number; name?: string }> {
    const conn = await this.tokens.current();
    return { id: conn.companyId, ...(conn.companyName === undefined ? {} : { name: conn.companyName }) };
  }

  async request(req: FreeeRequest): Promise<FreeeResult> {
    if (req.upload !== undefined && req.file === undefined) {
      // Checked before anything leaves: a programming error, not a write that may have reached freee.
      throw new FatalConfigError(`freee ${req.method} ${req.path}: the upload's file (${req.upload.slackFileId}) was not fetched before sending`);
    }
    let conn = await this.tokens.current();
    if (Date.parse(conn.accessTokenExpiresAt) - this.o.refreshSkewMs <= this.clock().getTime()) {
      conn = await this.tokens.refresh(conn.version);
    }
    let refreshed = false;
    let rateLimitRetries = 0;
    let serverRetries = 0;
    for (;;) {
      let res: Response;
      try {
        res = await this.send(req, conn.accessToken);
      } catch (err) {
        const failure = classifyFetchFailure(err, `freee ${req.method} ${req.path}`);
        if (isWriteRequest(req) && mayHaveBeenSent(err)) throw ambiguousWrite(req, failure);
        if (serverRetries >= this.o.maxServerRetries) throw failure;
        serverRetries++;
        await this.backoff(req, "network", serverRetries, this.o.backoffBaseMs * 2 ** (serverRetries - 1));
        continue;
      }
      const outcome = classifyFreeeResponse(res.status, res.headers, await readBody(res), this.clock().getTime());
      const status = outcome.status;
      switch (outcome.kind) {
        case "ok":
          return { ok: true, status, data: outcome.data };
        case "token_rejected":
          if (refreshed) {
            throw new AuthError(`freee ${req.method} ${req.path}: access token refused (${status}) after a token refresh`, {
              service: "freee",
              details: { status, path: req.path, teamId: this.o.teamId, reason: "token_rejected_after_refresh" satisfies FreeeAuthReason, code: outcome.code },
            });
          }
          refreshed = true;
          this.log.info("freee access token refused: refreshing it once", { path: req.path, status, code: outcome.code, teamId: this.o.teamId });
          conn = await this.tokens.refresh(conn.version);
          continue;
        case "auth_refused":
          throw await this.authRefused(req, conn, outcome);
        case "rate_limited":
          await this.waitForRateLimit(req, outcome, rateLimitRetries);
          rateLimitRetries++;
          continue;
        case "server_error":
          // A write that may have landed is not sent again (lib/freee/write-policy.ts): the caller reconciles.
          if (isWriteRequest(req)) throw ambiguousWrite(req, new UpstreamServerError(`freee ${req.method} ${req.path}: server error (${status})`, { details: { status } }), status);
          if (serverRetries >= this.o.maxServerRetries) {
            throw new UpstreamServerError(`freee ${req.method} ${req.path}: server error (${status}) after ${serverRetries} retries`, {
              details: { status, path: req.path, retries: serverRetries },
            });
          }
          serverRetries++;
          await this.backoff(req, `server_${status}`, serverRetries, this.o.backoffBaseMs * 2 ** (serverRetries - 1));
          continue;
        case "refused":
          this.log.info("freee request refused", { method: req.method, path: req.path, status, code: outcome.code, teamId: this.o.teamId });
          return { ok: false, status, kind: outcome.refusal, messages: outcome.messages };
      }
    }
  }

  /**
   * A 401 no refresh can fix. `re_authorization_required` means the grant itself must be renewed by a user,
   * so the connection is marked for reconnect (App Home offers it); the others are fixed in freee.
   */
  private async authRefused(req: FreeeRequest, conn: FreeeConnection, outcome: Extract<FreeeOutcome, { kind: "auth_refused" }>): Promise<AuthError> {
    this.log.warn("freee refused the call for a reason a token refresh cannot fix", { path: req.path, status: outcome.status, code: outcome.code, teamId: this.o.teamId });
    if (outcome.reason === "re_authorization_required") await this.tokens.markReauthRequired(conn.version, outcome.reason);
    return new AuthError(`freee ${req.method} ${req.path}: refused (${outcome.status} ${outcome.code ?? "no code"})`, {
      service: "freee",
      details: { status: outcome.status, path: req.path, teamId: this.o.teamId, reason: outcome.reason, code: outcome.code, messages: outcome.messages },
    });
  }

  /**
   * Wait until freee's reset time (plus a margin), or back off 1 s, 2 s, 4 s when it named none. Give up
   * with RateLimitedError, carrying the wait, after the retries or when the wait would outlast the cap or the
   * invocation: Step Functions (or the agent) tries again later, not this Lambda inside a spent window.
   */
  private async waitForRateLimit(req: FreeeRequest, outcome: Extract<FreeeOutcome, { kind: "rate_limited" }>, retriesSoFar: number): Promise<void> {
    const waitMs = outcome.waitMs !== undefined ? outcome.waitMs + this.o.rateLimitMarginMs : this.o.backoffBaseMs * 2 ** retriesSoFar;
    const remainingMs = this.o.remainingTimeMs?.();
    // The cap is on freee's own wait (a spent minute is at most 60 s away); the margin counts against the time left.
    const giveUp =
      retriesSoFar >= this.o.maxRateLimitRetries
        ? "retries"
        : (outcome.waitMs ?? waitMs) > this.o.maxRetryAfterSeconds * 1000
          ? "wait_over_cap"
          : remainingMs !== undefined && waitMs + this.o.deadlineReserveMs > remainingMs
            ? "wait_over_remaining_time"
            : undefined;
    if (giveUp !== undefined) {
      const throttled = outcome.source === "freee-403-throttle";
      const Limited = throttled ? FreeeThrottledError : RateLimitedError;
      const what = throttled ? "throttled by freee (403, excessive access)" : `rate limited (${outcome.status})`;
      throw new Limited(`freee ${req.method} ${req.path}: ${what}, not waiting (${giveUp}) after ${retriesSoFar} retries`, {
        retryAfterSeconds: Math.ceil(waitMs / 1000),
        details: {
          status: outcome.status,
          path: req.path,
          retries: retriesSoFar,
          giveUp,
          waitMs,
          ...(outcome.resetAt === undefined ? {} : { resetAt: outcome.resetAt, resetSource: outcome.source }),
          ...(outcome.limit === undefined ? {} : { limit: outcome.limit }),
          ...(outcome.remaining === undefined ? {} : { remaining: outcome.remaining }),
          ...(remainingMs === undefined ? {} : { remainingMs }),
        },
      });
    }
    await this.backoff(req, "rate_limited", retriesSoFar + 1, waitMs);
  }

  private async send(req: FreeeRequest, accessToken: string): Promise<Response> {
    const url = new URL(this.o.apiBaseUrl + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, accept: "application/json" };
    let body: string | FormData | undefined;
    if (req.upload !== undefined) body = multipartBody(req);
    else if (req.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(req.body);
    }
    // A FormData body sets its own multipart content type, boundary included.
    return (this.o.fetch ?? fetch)(url, {
      method: req.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(this.o.requestTimeoutMs),
    });
  }

  private async backoff(req: FreeeRequest, why: string, attempt: number, ms: number): Promise<void> {
    this.log.warn("freee request retried", { method: req.method, path: req.path, why, attempt, waitMs: ms, teamId: this.o.teamId });
    await this.sleep(ms);
  }
}

/** freee's file box takes a form: each body field as text, and the file under the field the tool names. */
function multipartBody(req: FreeeRequest): FormData {
  const upload = req.upload as NonNullable<FreeeRequest["upload"]>;
  const file = req.file as FreeeFile;
  const form = new FormData();
  for (const [key, value] of Object.entries(req.body ?? {})) {
    if (value !== undefined && value !== null) form.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  form.set(upload.field, new Blob([file.bytes], { type: file.type }), file.name);
  return form;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return text;
    throw err;
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
