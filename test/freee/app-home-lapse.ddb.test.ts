import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { AuditLog } from "../../lib/store/audit-log";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { createFreeeOAuth, type FreeeOAuth } from "../../lib/freee/oauth";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { OneTimeUses } from "../../lib/store/freee-one-time-uses";
import { FreeeAuthMessages } from "../../lib/core/messages/ja";
import { createLogger } from "../../lib/core/observability/logger";
import { buildHomeView } from "../../lib/ingress/home";
import { loadHomeState, type HomeDeps } from "../../lib/ingress/home-service";
import { TaskStore } from "../../lib/store/task-store";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { startTestTable, type TestTable } from "../support/dynamo";
import { testAdmins } from "../support/admins";
import { makeStore } from "./helpers";

/**
 * App Home warns an admin when the freee connection will lapse: from the refresh token's
 * recorded issue time in the connection item, through the freee module's status, to the Home view.
 */

const DAY = 86_400_000;
let table: TestTable;
let fake: FakeFreee;
let connections: FreeeConnectionStore;
let tasks: TaskStore;
let flow: FreeeOAuth;
let team = 0;
let teamId: string;

beforeAll(async () => {
  table = await startTestTable();
  fake = await startFakeFreee();
  connections = makeStore(table);
  tasks = new TaskStore(table.doc, table.tableName);
  const logger = createLogger("home-lapse-test");
  flow = createFreeeOAuth({
    connections,
    uses: new OneTimeUses(table.doc, table.tableName),
    tokenEndpoint: new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET }),
    audit: new AuditLog(tasks, logger),
    admins: testAdmins(table).admins,
    logger,
    apiBaseUrl: fake.url,
    oauthBaseUrl: fake.url,
    clientId: FAKE_CLIENT_ID,
    stateSecret: "freee-state-secret-for-tests",
    redirectUri: "https://ingress.example.test/freee/callback",
    publicBaseUrl: "https://ingress.example.test",
  });
});
afterAll(async () => {
  await fake.stop();
  await table.close();
});
beforeEach(() => {
  teamId = `TH${++team}`;
});

async function connectedDaysAgo(ageDays: number | undefined) {
  const pair = fake.issueTokens();
  const issued = ageDays === undefined ? undefined : new Date(Date.now() - ageDays * DAY).toISOString();
  await connections.save({
    teamId,
    tokens: { ...pair, accessTokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString(), ...(issued === undefined ? {} : { refreshTokenIssuedAt: issued }) },
    companyId: 101,
    companyName: "テスト株式会社",
    connectedBy: "UADMIN",
  });
}

async function homeFor(userId: string): Promise<string> {
  const deps: HomeDeps = {
    store: tasks,
    settings: new TeamSettingsStore(table.doc, table.tableName),
    admins: testAdmins(table).admins,
    freee: { getConnectionStatus: flow.getConnectionStatus, buildConnectUrl: flow.buildConnectUrl },
    audit: new AuditLog(tasks, createLogger("t")),
    log: createLogger("t"),
  };
  return JSON.stringify(buildHomeView(await loadHomeState(deps, { teamId, userId })));
}

describe("App Home: a freee connection that will lapse", () => {
  it("refresh token issued 80 days ago (the daily refresh has been failing): the admin is told the days left and the date", async () => {
    await connectedDaysAgo(80);
    const view = await homeFor("UADMIN");
    expect(view).toContain("接続済み");
    expect(view).toMatch(/freee との接続はあと (9|10) 日（\d{4}-\d{2}-\d{2}）で期限切れになります/);
    // Not for a non-admin: the view stays as it was.
    expect(await homeFor("UMEMBER")).not.toContain("期限切れになります");
  });

  it("a fresh connection (the daily refresh renews at 60 days): no warning", async () => {
    await connectedDaysAgo(59);
    expect(await homeFor("UADMIN")).not.toContain("期限切れ");
  });

  it("the save stamps the issue time when freee's grant is stored right away: no warning after a connect", async () => {
    await connectedDaysAgo(undefined);
    expect((await connections.getMeta(teamId))!.refreshTokenIssuedAt).toBeDefined();
    expect(await homeFor("UADMIN")).not.toContain("期限");
  });

  it("a connection stored before the issue time was recorded (not in the refresh's list): the admin is asked to reconnect", async () => {
    await connectedDaysAgo(1);
    await table.doc.send(new UpdateCommand({ TableName: table.tableName, Key: { pk: `TEAM#${teamId}`, sk: "FREEE" }, UpdateExpression: "REMOVE refreshTokenIssuedAt, gsi1pk, gsi1sk" }));
    expect(await homeFor("UADMIN")).toContain("freee との接続の有効期限を確認できません");
  });

  it("a connection marked for reconnect shows why", async () => {
    await connectedDaysAgo(10);
    await connections.markReauthRequired(teamId, 1, "re_authorization_required");
    const view = await homeFor("UMEMBER");
    expect(view).toContain("再接続が必要です");
    expect(view).toContain(FreeeAuthMessages.re_authorization_required);
  });
});
