import type { Logger } from "@aws-lambda-powertools/logger";
import { AuditLog } from "../store/audit-log";
import { DYNAMODB_CALL, worstCallMs } from "../core/config/client-budgets";
import { AuthError, FatalConfigError, TransientError } from "../core/errors/taxonomy";
import { FreeeConnectionStore } from "../store/freee-connections";
import { PendingTokenStore } from "../store/pending-freee-tokens";
import { FreeeTokenEndpoint, TOKEN_ENDPOINT_TIMEOUT_MS } from "./token-endpoint";
import { FREEE_TOKEN_DEFAULTS, FreeeTokenManager } from "./token-manager";

/**
 * The scheduled refresh (EventBridge, daily): freee refresh tokens lapse 90 days after issue, and an idle
 * workspace never refreshes on its own. Every active connection whose refresh token is older than
 * `refreshAfterDays` (default 60) is refreshed through the same lease-and-store protocol the API client uses
 * (FreeeTokenManager), so it cannot race a live tool call. Each outcome is audited under the workspace.
 */
export interface TokenRefresherDeps {
  connections: Pick<FreeeConnectionStore, "listIssuedBefore" | "get" | "getMeta" | "tryAcquireRefreshLease" | "storeRefreshedTokens" | "releaseRefreshLease" | "markReauthRequired">;
  pending: PendingTokenStore;
  tokenEndpoint: Pick<FreeeTokenEndpoint, "refresh">;
  audit: Pick<AuditLog, "record" | "recordError">;
  logger: Logger;
  refreshAfterDays: number;
  clock?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

export interface RefreshRunSummary {
  due: number;
  refreshed: string[];
  /** freee refused the refresh token: the workspace must reconnect (App Home says so). */
  reconnectRequired: string[];
  /** A transient failure: the next run tries again (the token is still well inside its 90 days). */
  failed: string[];
  /** Left for the next run because the invocation was running out of time. */
  deferred: string[];
}

/**
 * The longest one workspace's refresh may take: waiting out another holder's lease (2 × lease), the token
 * request, the lease / read / parked-pair reads, every store attempt (each may park once) with its backoff, the parking retried on its own and the audit
 * write. A refresh is only started while this much of the invocation is left, so the function's own timeout
 * (infra/stack.ts) never cuts one in half — a cut after freee answered would cost the new refresh token.
 */
export const ONE_REFRESH_WORST_MS =
  FREEE_TOKEN_DEFAULTS.refreshLeaseMs * 2 +
  TOKEN_ENDPOINT_TIMEOUT_MS +
  (4 + FREEE_TOKEN_DEFAULTS.storeAttempts * 2 + FREEE_TOKEN_DEFAULTS.parkAttempts + 1) * worstCallMs(DYNAMODB_CALL) +
  FREEE_TOKEN_DEFAULTS.storeBackoffMs * (2 ** (FREEE_TOKEN_DEFAULTS.storeAttempts - 1) - 1 + 2 ** (FREEE_TOKEN_DEFAULTS.parkAttempts - 1) - 1);

export async function refreshAgingTokens(deps: TokenRefresherDeps, remainingTimeMs: () => number | undefined): Promise<RefreshRunSummary> {
  const now = (deps.clock ?? (() => new Date()))();
  const cutoff = new Date(now.getTime() - deps.refreshAfterDays * 86_400_000).toISOString();
  const due = (await deps.connections.listIssuedBefore(cutoff)).filter((c) => c.status === "active");
  const summary: RefreshRunSummary = { due: due.length, refreshed: [], reconnectRequired: [], failed: [], deferred: [] };
  for (const [i, conn] of due.entries()) {
    const left = remainingTimeMs();
    if (left !== undefined && left < ONE_REFRESH_WORST_MS) {
      summary.deferred.push(...due.slice(i).map((c) => c.teamId));
      break;
    }
    const subject = `refresh#v${conn.version}`;
    const manager = new FreeeTokenManager({
      teamId: conn.teamId,
      store: deps.connections,
      pending: deps.pending,
      tokenEndpoint: deps.tokenEndpoint,
      logger: deps.logger,
      remainingTimeMs,
      ...(deps.clock === undefined ? {} : { clock: deps.clock }),
      ...(deps.sleep === undefined ? {} : { sleep: deps.sleep }),
    });
    try {
      const fresh = await manager.refresh(conn.version);
      summary.refreshed.push(conn.teamId);
      await deps.audit.record({
        teamId: conn.teamId,
        action: "freee.token_refreshed",
        subject,
        actor: "scheduler",
        layer: "freee",
        details: { fromVersion: conn.version, version: fresh.version, previousIssuedAt: conn.refreshTokenIssuedAt, issuedAt: fresh.refreshTokenIssuedAt },
      });
    } catch (err) {
      // The app's own credentials are wrong: every workspace would fail the same way. Stop, loudly.
      if (err instanceof FatalConfigError) throw err;
      // Only a refused refresh token (now marked for reconnect) is the workspace's problem; anything else is retried.
      const reconnect = err instanceof AuthError && (err.details.reason === "refresh_rejected" || err.details.reason === "reauth_required");
      (reconnect ? summary.reconnectRequired : summary.failed).push(conn.teamId);
      await deps.audit.recordError({ teamId: conn.teamId, subject, actor: "scheduler", layer: "freee", error: err, details: { step: "scheduled_refresh", fromVersion: conn.version } });
    }
  }
  deps.logger.info("freee scheduled refresh", { ...summary, cutoff });
  if (summary.failed.length > 0) {
    // Surfaces as the function's error (alarmed); EventBridge's retry refreshes only what is still due.
    throw new TransientError(`freee scheduled refresh: ${summary.failed.length} of ${summary.due} workspaces failed`, { details: { ...summary } });
  }
  return summary;
}
