import { randomUUID } from "node:crypto";
import type { Logger } from "@aws-lambda-powertools/logger";
import { parseRetryAfter } from "../errors/classify";
import {
  AuthError,
  ConnectionFailedError,
  RateLimitedError,
  TransientError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from "../errors/taxonomy";
import { createLogger } from "../observability/logger";
import type { FreeeConnection, FreeeConnectionStore } from "./connection-store";
import type { FreeeTokenEndpoint } from "./token-endpoint";
import type { FreeeRequest, FreeeResult } from "./types";
import { ambiguousWrite, isWriteRequest, mayHaveBeenSent } from "./write-policy";

/**
 * The freee API client of one workspace, implementing seed §7.1 row by row:
 *   401 → refresh the token once and retry (the refresh serialised per workspace by a lease on the
 *         connection item: freee refresh tokens are single-use, so two refreshes at once would lock us out);
 *   403 / 404 (and other 4xx) → no retry, a typed result the MCP server turns into error text for the agent;
 *   429 → wait Retry-After, at most 3 retries; 5xx and network faults → exponential backoff, at most 3;
 *   then a taxonomy error (AuthError, RateLimitedError, UpstreamServerError, ConnectionFailedError).
 * Those retry rows are for reads: a write that may have reached freee is not sent again (lib/freee/write-policy.ts)
 * and ends as WriteOutcomeUnknownError for the caller to reconcile.
 * Tokens are never logged: only method, path, status and attempt numbers are.
 */
export interface FreeeClientOptions {
  teamId: string;
  store: FreeeConnectionStore;
  tokenEndpoint: Pick<FreeeTokenEndpoint, "refresh">;
  apiBaseUrl: string;
  fetch?: typeof fetch;
  /** Injectable so tests do not wait. */
  sleep?: (ms: number) => Promise<void>;
  clock?: () => Date;
  logger?: Logger;
  maxRateLimitRetries?: number;
  maxServerRetries?: number;
  backoffBaseMs?: number;
  /** A Retry-After longer than this is not waited for inside a tool call: RateLimitedError at once. */
  maxRetryAfterSeconds?: number;
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
  refreshLeaseMs: 15_000,
  leasePollMs: 250,
  refreshSkewMs: 60_000,
  requestTimeoutMs: 15_000,
};

export class FreeeClient {
  private readonly o: FreeeClientOptions & typeof FREEE_CLIENT_DEFAULTS;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly clock: () => Date;
  private connection: FreeeConnection | undefined;

  constructor(options: FreeeClientOptions) {
    this.o = { ...FREEE_CLIENT_DEFAULTS, ...stripUndefined(options) };
    this.log = options.logger ?? createLogger("freee-client");
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.clock = options.clock ?? (() => new Date());
  }

  get teamId(): string {
    return this.o.teamId;
  }

  /** The company the workspace connected (the default `company_id` of every tool). */
  async companyId(): Promise<number> {
    return (await this.current()).companyId;
  }

  async request(req: FreeeRequest): Promise<FreeeResult> {
    let conn = await this.current();
    if (Date.parse(conn.accessTokenExpiresAt) - this.o.refreshSkewMs <= this.clock().getTime()) {
      conn = await this.refresh(conn.version);
    }
    let refreshed = false;
    let rateLimitRetries = 0;
    let serverRetries = 0;
    for (;;) {
      let res: Response;
      try {
        res = await this.send(req, conn.accessToken);
      } catch (err) {
        const failure = networkFailure(err, req);
        if (isWriteRequest(req) && mayHaveBeenSent(err)) throw ambiguousWrite(req, failure);
        if (serverRetries >= this.o.maxServerRetries) throw failure;
        serverRetries++;
        await this.backoff(req, "network", serverRetries, undefined);
        continue;
      }
      const status = res.status;
      if (status === 401) {
        await drain(res);
        if (refreshed) {
          throw new AuthError(`freee ${req.method} ${req.path}: unauthorized (401) after a token refresh`, {
            details: { status, path: req.path, teamId: this.o.teamId },
          });
        }
        refreshed = true;
        this.log.info("freee 401: refreshing the access token once", { path: req.path, teamId: this.o.teamId });
        conn = await this.refresh(conn.version);
        continue;
      }
      if (status === 429) {
        const retryAfter = parseRetryAfter(res.headers.get("retry-after") ?? undefined, this.clock().getTime());
        await drain(res);
        const tooLong = retryAfter !== undefined && retryAfter > this.o.maxRetryAfterSeconds;
        if (rateLimitRetries >= this.o.maxRateLimitRetries || tooLong) {
          throw new RateLimitedError(`freee ${req.method} ${req.path}: rate limited (429) after ${rateLimitRetries} retries`, {
            details: { status, path: req.path, retries: rateLimitRetries },
            ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
          });
        }
        rateLimitRetries++;
        await this.backoff(req, "rate_limited", rateLimitRetries, retryAfter);
        continue;
      }
      if (status >= 500) {
        await drain(res);
        if (isWriteRequest(req)) throw ambiguousWrite(req, new UpstreamServerError(`freee ${req.method} ${req.path}: server error (${status})`, { details: { status } }), status);
        if (serverRetries >= this.o.maxServerRetries) {
          throw new UpstreamServerError(`freee ${req.method} ${req.path}: server error (${status}) after ${serverRetries} retries`, {
            details: { status, path: req.path, retries: serverRetries },
          });
        }
        serverRetries++;
        await this.backoff(req, `server_${status}`, serverRetries, undefined);
        continue;
      }
      const body = await readBody(res);
      if (res.ok) return { ok: true, status, data: body };
      const kind = status === 403 ? "forbidden" : status === 404 ? "not_found" : "rejected";
      this.log.info("freee request refused", { method: req.method, path: req.path, status, teamId: this.o.teamId });
      return { ok: false, status, kind, messages: errorMessages(body) };
    }
  }

  private async current(): Promise<FreeeConnection> {
    if (this.connection === undefined) this.connection = this.usable(await this.o.store.get(this.o.teamId));
    return this.connection;
  }

  private usable(conn: FreeeConnection | undefined): FreeeConnection {
    if (conn === undefined) {
      throw new AuthError("freee is not connected for this workspace", { details: { teamId: this.o.teamId, reason: "not_connected" } });
    }
    if (conn.status !== "active") {
      throw new AuthError("the freee connection must be renewed (refresh token refused)", {
        details: { teamId: this.o.teamId, reason: "reauth_required" },
      });
    }
    return conn;
  }

  /**
   * New tokens for those of `staleVersion`. One caller per workspace takes the lease and calls freee; the
   * others poll the item until the version moves on and use the tokens it stored. A lease left by a crashed
   * caller expires after `refreshLeaseMs`, and the next caller takes over.
   */
  private async refresh(staleVersion: number): Promise<FreeeConnection> {
    const owner = randomUUID();
    const deadline = this.clock().getTime() + this.o.refreshLeaseMs * 2;
    for (;;) {
      if (await this.o.store.tryAcquireRefreshLease(this.o.teamId, staleVersion, owner, this.o.refreshLeaseMs)) {
        this.connection = await this.refreshHoldingLease(staleVersion, owner);
        return this.connection;
      }
      const meta = await this.o.store.getMeta(this.o.teamId);
      if (meta === undefined || meta.version !== staleVersion || meta.status !== "active") {
        this.connection = this.usable(await this.o.store.get(this.o.teamId));
        return this.connection;
      }
      if (this.clock().getTime() > deadline) {
        throw new TransientError("freee token refresh by another caller did not finish in time", {
          details: { teamId: this.o.teamId },
        });
      }
      await this.sleep(this.o.leasePollMs);
    }
  }

  private async refreshHoldingLease(staleVersion: number, owner: string): Promise<FreeeConnection> {
    const held = await this.o.store.get(this.o.teamId);
    if (held === undefined || held.status !== "active" || held.version !== staleVersion) {
      // Moved on between taking the lease and reading: give the lease back and use what is there.
      await this.o.store.releaseRefreshLease(this.o.teamId, owner);
      return this.usable(held);
    }
    let tokens;
    try {
      tokens = await this.o.tokenEndpoint.refresh(held.refreshToken);
    } catch (err) {
      if (err instanceof AuthError) {
        // The refresh token is spent or revoked. If another caller stored new tokens meanwhile, use those;
        // otherwise the workspace must reconnect.
        const marked = await this.o.store.markReauthRequired(this.o.teamId, staleVersion, "refresh_rejected");
        if (!marked) return this.usable(await this.o.store.get(this.o.teamId));
        this.log.warn("freee refresh token refused; the workspace must reconnect freee", { teamId: this.o.teamId });
        throw err;
      }
      await this.o.store.releaseRefreshLease(this.o.teamId, owner);
      throw err;
    }
    const stored = await this.o.store.storeRefreshedTokens(this.o.teamId, staleVersion, tokens);
    this.log.info("freee access token refreshed", { teamId: this.o.teamId, version: staleVersion + 1 });
    return stored ?? this.usable(await this.o.store.get(this.o.teamId));
  }

  private async send(req: FreeeRequest, accessToken: string): Promise<Response> {
    const url = new URL(this.o.apiBaseUrl + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, accept: "application/json" };
    if (req.body !== undefined) headers["content-type"] = "application/json";
    return (this.o.fetch ?? fetch)(url, {
      method: req.method,
      headers,
      ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      signal: AbortSignal.timeout(this.o.requestTimeoutMs),
    });
  }

  private async backoff(req: FreeeRequest, why: string, attempt: number, retryAfterSeconds: number | undefined): Promise<void> {
    const ms = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : this.o.backoffBaseMs * 2 ** (attempt - 1);
    this.log.warn("freee request retried", { method: req.method, path: req.path, why, attempt, waitMs: ms, teamId: this.o.teamId });
    await this.sleep(ms);
  }
}

function networkFailure(err: unknown, req: FreeeRequest): Error {
  if (err instanceof Error && err.name === "TimeoutError") {
    return new UpstreamTimeoutError(`freee ${req.method} ${req.path}: timed out`, { cause: err });
  }
  return new ConnectionFailedError(`freee ${req.method} ${req.path}: connection failed`, { cause: err });
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

async function drain(res: Response): Promise<void> {
  await res.body?.cancel();
}

/** freee error bodies: `{ errors: [{ type, messages: [...] }] }`, or `{ message }`. */
function errorMessages(body: unknown): string[] {
  if (body === null || typeof body !== "object") return typeof body === "string" && body !== "" ? [body.slice(0, 500)] : [];
  const out: string[] = [];
  const errors = (body as { errors?: unknown }).errors;
  if (Array.isArray(errors)) {
    for (const e of errors) {
      const messages = (e as { messages?: unknown }).messages;
      if (Array.isArray(messages)) out.push(...messages.filter((m): m is string => typeof m === "string"));
      else if (typeof messages === "string") out.push(messages);
    }
  }
  const message = (body as { message?: unknown }).message;
  if (typeof message === "string") out.push(message);
  return out.map((m) => m.slice(0, 500)).slice(0, 10);
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
