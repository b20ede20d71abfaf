import type { Context } from "aws-lambda";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLog } from "../../lib/store/audit-log";
import { TransientError } from "../../lib/core/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { ONE_REFRESH_WORST_MS, refreshAgingTokens, type TokenRefresherDeps } from "../../lib/freee/token-refresher";
import { createLogger } from "../../lib/core/observability/logger";
import { TaskStore } from "../../lib/store/task-store";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { startTestTable, type TestTable } from "../support/dynamo";
import { localKey, makeStore, pendingOf } from "./helpers";

/** freee refresh tokens lapse 90 days after issue: the daily refresh keeps idle workspaces alive. */

const DAY = 86_400_000;
let table: TestTable;
let fake: FakeFreee;
let key: string;
let store: FreeeConnectionStore;
let tasks: TaskStore;
let run = 0;

// A table of its own per test: the refresh lists every connection in the table.
beforeEach(async () => {
  table = await startTestTable();
  tasks = new TaskStore(table.doc, table.tableName);
  fake = await startFakeFreee();
  key = localKey();
  store = makeStore(table, key);
  run++;
});
afterEach(async () => {
  expect(fake.selfCheckFailures).toEqual([]);
  await fake.stop();
  await table.close();
});

/** A workspace connected `ageDays` ago (its refresh token issued then). */
async function connectedDaysAgo(name: string, ageDays: number) {
  const teamId = `TR${run}-${name}`;
  const pair = fake.issueTokens();
  await store.save({
    teamId,
    tokens: { ...pair, accessTokenExpiresAt: new Date(Date.now() - ageDays * DAY + 6 * 3_600_000).toISOString(), refreshTokenIssuedAt: new Date(Date.now() - ageDays * DAY).toISOString() },
    companyId: 101,
    connectedBy: "U1",
  });
  return teamId;
}

function deps(over: Partial<TokenRefresherDeps> = {}): TokenRefresherDeps {
  const logger = createLogger("refresh-test");
  return {
    connections: store,
    pending: pendingOf(store),
    tokenEndpoint: new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET }),
    audit: new AuditLog(tasks, logger),
    logger,
    refreshAfterDays: 60,
    sleep: async () => {},
    ...over,
  };
}

const mine = (teams: string[]) => teams.filter((t) => t.startsWith(`TR${run}-`)).sort();

describe("scheduled refresh", () => {
  it("refreshes exactly the active connections older than 60 days, records the new issue time, audits each", async () => {
    const idle = await connectedDaysAgo("idle", 70);
    const recent = await connectedDaysAgo("recent", 10);
    const marked = await connectedDaysAgo("marked", 75);
    await store.markReauthRequired(marked, 1, "refresh_rejected");

    const summary = await refreshAgingTokens(deps(), () => 300_000);
    expect(mine(summary.refreshed)).toEqual([idle]);
    // A connection already marked for reconnect is not touched (nothing to refresh, nothing to audit).
    expect(summary.due).toBe(1);
    expect(mine(summary.reconnectRequired)).toEqual([]);
    expect((await tasks.listAuditByTeam(marked)).filter((a) => a.action === "error.freee")).toEqual([]);
    expect(fake.refreshCalls).toBe(1);
    const after = (await store.getMeta(idle))!;
    expect(after.version).toBe(2);
    expect(Date.now() - Date.parse(after.refreshTokenIssuedAt!)).toBeLessThan(60_000);
    expect((await store.getMeta(recent))!.version).toBe(1);
    expect((await store.getMeta(marked))!.version).toBe(1);
    const audit = await tasks.listAuditByTeam(idle);
    expect(audit.find((a) => a.action === "freee.token_refreshed")!.details).toMatchObject({ fromVersion: 1, version: 2 });
    // Nothing is due any more: a second run the same day refreshes nothing.
    const again = await refreshAgingTokens(deps(), () => 300_000);
    expect(mine(again.refreshed)).toEqual([]);
  });

  it("a refresh token freee refused marks that workspace for reconnect and is audited; the others still refresh", async () => {
    const revoked = await connectedDaysAgo("revoked", 70);
    fake.revokeRefreshTokens();
    const fine = await connectedDaysAgo("fine", 80);
    const summary = await refreshAgingTokens(deps(), () => 300_000);
    expect(mine(summary.reconnectRequired)).toEqual([revoked]);
    expect(mine(summary.refreshed)).toEqual([fine]);
    expect(await store.getMeta(revoked)).toMatchObject({ status: "reauth_required", reauthReason: "refresh_rejected" });
    const audit = await tasks.listAuditByTeam(revoked);
    expect(audit.find((a) => a.action === "error.freee")).toMatchObject({ errorType: "AuthError" });
  });

  it("freee down → the run fails (TransientError, alarmed), the workspace stays connected and due, and the next run refreshes it", async () => {
    const team = await connectedDaysAgo("down", 70);
    fake.fail({ path: "/public_api/token" }, { status: 503, body: { error: "temporarily_unavailable" } });
    const err = await refreshAgingTokens(deps(), () => 300_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(mine((err as TransientError).details.failed as string[])).toEqual([team]);
    expect((await store.getMeta(team))!.status).toBe("active");
    expect(mine((await refreshAgingTokens(deps(), () => 300_000)).refreshed)).toEqual([team]);
  });

  it("with too little time left nothing is started: the work is deferred to the next run", async () => {
    const team = await connectedDaysAgo("late", 70);
    const summary = await refreshAgingTokens(deps(), () => ONE_REFRESH_WORST_MS - 1);
    expect(mine(summary.deferred)).toEqual([team]);
    expect(fake.refreshCalls).toBe(0);
  });

  it("the Lambda entry as deployed: wired from the environment, refreshes what is due", async () => {
    const team = await connectedDaysAgo("lambda", 61);
    Object.assign(process.env, table.env, {
      FREEE_TOKEN_LOCAL_KEY: key,
      FREEE_CLIENT_ID: FAKE_CLIENT_ID,
      FREEE_CLIENT_SECRET: FAKE_CLIENT_SECRET,
      FREEE_OAUTH_BASE_URL: fake.url,
      FREEE_API_BASE_URL: fake.url,
    });
    const { handler } = await import("../../lambdas/refresh-freee-tokens/handler");
    const summary = await handler({}, { getRemainingTimeInMillis: () => 300_000 } as unknown as Context);
    expect(summary.refreshed).toContain(team);
    expect((await store.getMeta(team))!.version).toBe(2);
  });
});
