import { randomUUID } from "node:crypto";
import type { Logger } from "@aws-lambda-powertools/logger";
import { defaultSleep, retryTransient } from "../core/aws/transient-retry";
import { DYNAMODB_CALL, worstCallMs } from "../core/config/client-budgets";
import { AuthError, RefreshedTokensLostError, TransientError } from "../core/errors/taxonomy";
import { createLogger } from "../core/observability/logger";
import { PipelineMetrics } from "../core/observability/metrics";
import type { FreeeConnection, FreeeConnectionStore, FreeeTokens } from "../store/freee-connections";
import type { FreeeAuthReason } from "./freee-response";
import type { PendingTokenStore } from "../store/pending-freee-tokens";
import type { FreeeTokenEndpoint } from "./token-endpoint";

/**
 * The tokens of one workspace: reading them, refreshing them once per version (serialised by a lease on the
 * connection item, because freee refresh tokens are single-use), and storing what freee returned so it is
 * never lost. Used by the API client (lib/freee/client.ts) and the scheduled refresh (token-refresher.ts).
 */
export interface FreeeTokenManagerOptions {
  teamId: string;
  store: Pick<
    FreeeConnectionStore,
    "get" | "getMeta" | "tryAcquireRefreshLease" | "storeRefreshedTokens" | "releaseRefreshLease" | "markReauthRequired"
  >;
  /** Where refreshed tokens wait when the connection item cannot take them. */
  pending: Pick<PendingTokenStore, "save" | "get" | "consume">;
  tokenEndpoint: Pick<FreeeTokenEndpoint, "refresh">;
  sleep?: (ms: number) => Promise<void>;
  clock?: () => Date;
  logger?: Logger;
  /** How long a refresh may hold the lease before another caller may take over. */
  refreshLeaseMs?: number;
  leasePollMs?: number;
  /** Attempts to write refreshed tokens into the connection item (the first included). */
  storeAttempts?: number;
  storeBackoffMs?: number;
  /** Attempts to park the pair once storing gave up and the first parking failed (a table-wide throttle). */
  parkAttempts?: number;
  /** The Lambda's remaining time; a retry starts only while its wait and two DynamoDB calls fit. */
  remainingTimeMs?: () => number | undefined;
  /** Where a pair neither stored nor parked is counted (alarmed: infra/constructs/observability.ts). */
  metrics?: Pick<PipelineMetrics, "freeeTokensLost">;
}

export const FREEE_TOKEN_DEFAULTS = { refreshLeaseMs: 15_000, leasePollMs: 250, storeAttempts: 5, storeBackoffMs: 100, parkAttempts: 6 };
const defaults = FREEE_TOKEN_DEFAULTS;

export class FreeeTokenManager {
  private readonly o: FreeeTokenManagerOptions & typeof defaults;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly clock: () => Date;
  private connection: FreeeConnection | undefined;

  constructor(options: FreeeTokenManagerOptions) {
    this.o = { ...defaults, ...stripUndefined(options) };
    this.log = options.logger ?? createLogger("freee-tokens");
    this.sleep = options.sleep ?? defaultSleep;
    this.clock = options.clock ?? (() => new Date());
  }

  get teamId(): string {
    return this.o.teamId;
  }

  /** The usable connection (read once, then kept): AuthError when there is none or it must be reconnected. */
  async current(): Promise<FreeeConnection> {
    if (this.connection === undefined) this.connection = this.usable(await this.o.store.get(this.o.teamId));
    return this.connection;
  }

  /**
   * New tokens for those of `staleVersion`. One caller per workspace takes the lease and calls freee; the
   * others poll the item until the version moves on and use the tokens it stored. A lease left by a crashed
   * caller expires after `refreshLeaseMs`, and the next caller takes over.
   */
  async refresh(staleVersion: number): Promise<FreeeConnection> {
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
      // Give up only while another caller's lease is live: an expired one is taken on the next turn.
      const now = this.clock().getTime();
      if (now > deadline && (meta.refreshLeaseUntil ?? 0) >= now) {
        throw new TransientError("freee token refresh by another caller did not finish in time", { details: { teamId: this.o.teamId } });
      }
      await this.sleep(this.o.leasePollMs);
    }
  }

  /**
   * freee said the grant itself needs the user again (`re_authorization_required`): mark the connection so App
   * Home offers the reconnect, unless its tokens changed meanwhile.
   */
  async markReauthRequired(version: number, reason: FreeeAuthReason): Promise<void> {
    const marked = await this.o.store.markReauthRequired(this.o.teamId, version, reason);
    this.connection = undefined;
    if (marked) this.log.warn("freee connection marked for reconnect", { teamId: this.o.teamId, reason });
  }

  private usable(conn: FreeeConnection | undefined): FreeeConnection {
    if (conn === undefined) {
      throw new AuthError("freee is not connected for this workspace", { service: "freee", details: { teamId: this.o.teamId, reason: "not_connected" satisfies FreeeAuthReason } });
    }
    if (conn.status !== "active") {
      throw new AuthError("the freee connection must be renewed", {
        service: "freee",
        details: { teamId: this.o.teamId, reason: "reauth_required" satisfies FreeeAuthReason, ...(conn.reauthReason === undefined ? {} : { markedFor: conn.reauthReason }) },
      });
    }
    return conn;
  }

  private async refreshHoldingLease(staleVersion: number, owner: string): Promise<FreeeConnection> {
    const held = await this.o.store.get(this.o.teamId);
    if (held === undefined || held.status !== "active" || held.version !== staleVersion) {
      // Moved on between taking the lease and reading: give the lease back and use what is there.
      await this.o.store.releaseRefreshLease(this.o.teamId, owner);
      return this.usable(held);
    }
    // An earlier refresh of this very version got tokens from freee but could not store them: those are the
    // live ones (our stored refresh token is spent), so promote them instead of calling freee.
    const parked = await this.o.pending.get(this.o.teamId);
    if (parked !== undefined && parked.fromVersion === staleVersion) {
      this.log.warn("freee: storing tokens an earlier refresh obtained but could not store", { teamId: this.o.teamId, parkedAt: parked.savedAt });
      return this.persist(staleVersion, parked.tokens, true);
    }
    let tokens;
    try {
      tokens = await this.o.tokenEndpoint.refresh(held.refreshToken);
    } catch (err) {
      if (err instanceof AuthError && err.details.reason === "refresh_rejected") {
        // The refresh token is spent or revoked. If another caller stored new tokens meanwhile, use those;
        // otherwise the workspace must reconnect.
        const marked = await this.o.store.markReauthRequired(this.o.teamId, staleVersion, "refresh_rejected");
        if (!marked) return this.usable(await this.o.store.get(this.o.teamId));
        this.log.warn("freee refresh token refused; the workspace must reconnect freee", { teamId: this.o.teamId });
        throw err;
      }
      // Not a verdict on the refresh token (app misconfigured, freee down, an undocumented refusal): the
      // workspace stays connected, and the lease goes back so the next caller may try.
      await this.o.store.releaseRefreshLease(this.o.teamId, owner);
      throw err;
    }
    return this.persist(staleVersion, tokens, false);
  }

  /**
   * Write tokens freee just issued into the connection item, retrying transient failures. After the first
   * failure they are also parked encrypted (PendingTokenStore), so a caller that gives up — or a Lambda that
   * dies — leaves them for the next refresh. The lease is kept on failure: it expires, and its next holder
   * promotes the parked pair. When a table-wide throttle refuses both writes, parking is retried on its own for
   * as long as the invocation allows; a pair neither stored nor parked is counted (FreeeTokensLost, alarmed)
   * and thrown as RefreshedTokensLostError, never dropped quietly.
   */
  private async persist(fromVersion: number, tokens: FreeeTokens, fromParked: boolean): Promise<FreeeConnection> {
    let parked = fromParked;
    const stored = await retryTransient((attempt) => this.o.store.storeRefreshedTokens(this.o.teamId, fromVersion, tokens).then((c) => ({ c, attempt })), {
      ...this.retryPolicy(this.o.storeAttempts),
      onFailure: async (err, attempt) => {
        this.log.warn("freee refreshed tokens not stored yet", { teamId: this.o.teamId, attempt, error_type: err instanceof Error ? err.name : "Error" });
        if (!parked) parked = await this.park(fromVersion, tokens, 1);
      },
    });
    if (stored.ok) {
      if (parked) await this.dropParked(fromVersion);
      this.log.info("freee access token refreshed", { teamId: this.o.teamId, version: fromVersion + 1, attempt: stored.value.attempt });
      return stored.value.c ?? this.usable(await this.o.store.get(this.o.teamId));
    }
    const lastError = stored.error;
    if (!parked) parked = await this.park(fromVersion, tokens, this.o.parkAttempts);
    if (!parked) {
      // The only copy of a single-use refresh token is in this Lambda's memory: once it ends, the workspace
      // must reconnect freee. An operator must hear of it at once.
      this.lost();
      this.log.error("freee refreshed tokens LOST: neither stored nor parked; the workspace must reconnect freee", { teamId: this.o.teamId, error: lastError instanceof Error ? lastError : String(lastError) });
      throw new RefreshedTokensLostError("freee refreshed tokens could be neither stored nor parked", { cause: lastError, details: { teamId: this.o.teamId, parked: false } });
    }
    this.log.error("freee refreshed tokens could not be stored", { teamId: this.o.teamId, parked, error: lastError instanceof Error ? lastError : String(lastError) });
    throw new TransientError("freee refreshed tokens could not be stored in the connection item", {
      cause: lastError,
      details: { teamId: this.o.teamId, parked },
    });
  }

  private retryPolicy(attempts: number) {
    return {
      attempts,
      backoffMs: this.o.storeBackoffMs,
      reserveMs: this.o.storeBackoffMs * 2 + 2 * worstCallMs(DYNAMODB_CALL),
      sleep: this.sleep,
      remainingTimeMs: this.o.remainingTimeMs ?? (() => undefined),
    };
  }

  private async park(fromVersion: number, tokens: FreeeTokens, attempts: number): Promise<boolean> {
    const saved = await retryTransient(() => this.o.pending.save(this.o.teamId, fromVersion, tokens), this.retryPolicy(attempts));
    if (!saved.ok) {
      this.log.error("freee refreshed tokens could not be parked either", { teamId: this.o.teamId, attempts: saved.attempts, error: saved.error instanceof Error ? saved.error : String(saved.error) });
    }
    return saved.ok;
  }

  private lost(): void {
    try {
      (this.o.metrics ?? new PipelineMetrics()).freeeTokensLost();
    } catch (err) {
      this.log.error("could not count lost freee tokens", { teamId: this.o.teamId, error: err instanceof Error ? err : String(err) });
    }
  }

  /** The connection holds the pair now; a parked copy left behind would only be ignored (its version passed). */
  private async dropParked(fromVersion: number): Promise<void> {
    try {
      await this.o.pending.consume(this.o.teamId, fromVersion);
    } catch (err) {
      this.log.warn("parked freee tokens not removed (harmless: their version has passed)", { teamId: this.o.teamId, error: err instanceof Error ? err : String(err) });
    }
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
