import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuditLog } from "../../lib/store/audit-log";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { createFreeeOAuth, loadOAuthSettings, type FreeeOAuth } from "../../lib/freee/oauth";
import { lazyFreeeOAuthFromEnv } from "../../wiring/freee-oauth";
import { signState, verifyState } from "../../lib/freee/signed-state";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { OneTimeUses } from "../../lib/store/freee-one-time-uses";
import { TeamSettingsStore } from "../../lib/ingress/actions";
import { AccessMessages, AdminMessages } from "../../lib/core/messages/ja";
import { createLogger } from "../../lib/core/observability/logger";
import { TaskStore } from "../../lib/store/task-store";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import type { FreeePort } from "../../lib/ingress/freee-port";
import { startTestTable, type TestTable } from "../support/dynamo";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { testAdmins } from "../support/admins";
import { makeStore } from "./helpers";

const SECRET = "freee-state-secret-for-tests";
const INGRESS = "https://ingress.example.test";

let table: TestTable;
let fake: FakeFreee;
let connections: FreeeConnectionStore;
let taskStore: TaskStore;
let now: Date;
let connectedHook: string[];
let team = 0;
let teamId: string;
let directory: ReturnType<typeof testAdmins>;

function oauth(extra: { secret?: string } = {}): FreeeOAuth {
  const logger = createLogger("freee-oauth-test");
  return createFreeeOAuth({
    connections,
    uses: new OneTimeUses(table.doc, table.tableName),
    tokenEndpoint: new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET }),
    audit: new AuditLog(taskStore, logger),
    admins: directory.admins,
    logger,
    apiBaseUrl: fake.url,
    oauthBaseUrl: fake.url,
    clientId: FAKE_CLIENT_ID,
    stateSecret: extra.secret ?? SECRET,
    redirectUri: `${INGRESS}/freee/callback`,
    publicBaseUrl: INGRESS,
    clock: () => now,
    onConnected: async (t, u) => {
      connectedHook.push(`${t}/${u}`);
    },
  });
}

beforeAll(async () => {
  table = await startTestTable();
  fake = await startFakeFreee();
  connections = makeStore(table);
  taskStore = new TaskStore(table.doc, table.tableName);
  directory = testAdmins(table);
});
afterAll(async () => {
  await fake.stop();
  await table.close();
});
beforeEach(() => {
  now = new Date();
  connectedHook = [];
  teamId = `TO${++team}`;
});

/** Follow the flow up to freee's authorize page: the redirect, its state, and the nonce cookie. */
async function startConnect(flow: FreeeOAuth, options: { companyId?: number } = {}) {
  const link = flow.buildConnectUrl(teamId, "UADMIN", options);
  const res = await flow.connect(new Request(link));
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  return { location, state: location.searchParams.get("state")!, cookie };
}

function callbackRequest(params: Record<string, string>, cookie?: string): Request {
  const url = new URL(`${INGRESS}/freee/callback`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return new Request(url, cookie === undefined ? {} : { headers: { cookie } });
}

async function expectFailurePage(res: Response, status = 400) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("text/html");
  expect(await res.text()).toContain(AdminMessages.freeeAuthFailed);
}

describe("/freee/connect", () => {
  it("redirects to freee's authorize page with a valid state bound to the workspace and user", async () => {
    const flow = oauth();
    const link = new URL(flow.buildConnectUrl(teamId, "UADMIN"));
    expect(link.origin + link.pathname).toBe(`${INGRESS}/freee/connect`);
    expect(link.searchParams.get("team")).toBe(teamId);
    expect(link.searchParams.get("user")).toBe("UADMIN");

    const { location, state, cookie } = await startConnect(flow);
    expect(location.origin + location.pathname).toBe(`${fake.url}/public_api/authorize`);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      response_type: "code",
      client_id: FAKE_CLIENT_ID,
      redirect_uri: `${INGRESS}/freee/callback`,
      prompt: "select_company",
    });
    const claims = verifyState("freee_state", state, SECRET, now);
    expect(claims).toMatchObject({ t: teamId, u: "UADMIN" });
    expect(claims.exp).toBe(Math.floor(now.getTime() / 1000) + 600);
    expect(cookie).toBe(`freee_oauth_nonce=${claims.n}`);
  });

  it("a tampered link (other team, other user, bad signature) shows the failure page", async () => {
    const flow = oauth();
    const link = new URL(flow.buildConnectUrl(teamId, "UADMIN"));
    const otherTeam = new URL(link);
    otherTeam.searchParams.set("team", "TEVIL");
    await expectFailurePage(await flow.connect(new Request(otherTeam)));
    const otherUser = new URL(link);
    otherUser.searchParams.set("user", "UEVIL");
    await expectFailurePage(await flow.connect(new Request(otherUser)));
    const badSig = new URL(link);
    badSig.searchParams.set("sig", link.searchParams.get("sig")!.slice(0, -2) + "xx");
    await expectFailurePage(await flow.connect(new Request(badSig)));
    await expectFailurePage(await oauth({ secret: "another-secret" }).connect(new Request(link)));
  });

  it("an expired link shows the failure page", async () => {
    const flow = oauth();
    const link = flow.buildConnectUrl(teamId, "UADMIN");
    now = new Date(now.getTime() + 25 * 60 * 60 * 1000);
    await expectFailurePage(await flow.connect(new Request(link)));
  });

  it("a state token cannot be replayed as a connect signature (purpose bound)", async () => {
    const flow = oauth();
    const stateAsSig = signState("freee_state", { t: teamId, u: "UADMIN", exp: Math.floor(now.getTime() / 1000) + 60 }, SECRET);
    await expectFailurePage(await flow.connect(new Request(`${INGRESS}/freee/connect?team=${teamId}&user=UADMIN&sig=${stateAsSig}`)));
  });
});

describe("/freee/callback", () => {
  it("exchanges the code, stores the tokens encrypted with the first company, audits, and shows the success page", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow);
    expect(await flow.getConnectionStatus(teamId)).toEqual({ status: "not_connected" });
    const code = fake.issueCode();
    const res = await flow.callback(callbackRequest({ code, state }, cookie));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("freee と接続しました");
    expect(html).toContain("テスト株式会社");

    const exchange = fake.tokenRequests("authorization_code").at(-1)!;
    expect(exchange.form).toMatchObject({ code, redirect_uri: `${INGRESS}/freee/callback`, client_id: FAKE_CLIENT_ID, client_secret: FAKE_CLIENT_SECRET });
    const stored = await connections.get(teamId);
    expect(stored).toMatchObject({ companyId: 101, companyName: "テスト株式会社", connectedBy: "UADMIN", status: "active", version: 1 });
    expect(fake.acceptsAccessToken(stored!.accessToken)).toBe(true);
    expect(fake.acceptsRefreshToken(stored!.refreshToken)).toBe(true);
    expect(fake.apiRequests("/api/1/companies").at(-1)!.authorization).toBe(`Bearer ${stored!.accessToken}`);

    // The refresh token freee just issued lapses 90 days from now (the daily refresh renews it before).
    const status = await flow.getConnectionStatus(teamId);
    expect(status).toEqual({ status: "connected", companyId: 101, companyName: "テスト株式会社", refreshTokenExpiresAt: expect.any(String) });
    expect(Math.abs(Date.parse(status.refreshTokenExpiresAt!) - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);
    const audit = await taskStore.listAuditByTeam(teamId);
    expect(audit.map((a) => a.action)).toContain("freee.connected");
    expect(JSON.stringify(audit)).not.toContain(stored!.accessToken);
    expect(connectedHook).toEqual([`${teamId}/UADMIN`]);
  });

  it("stores the company named on the connect link", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow, { companyId: 202 });
    expect((await flow.callback(callbackRequest({ code: fake.issueCode(), state }, cookie))).status).toBe(200);
    expect((await connections.getMeta(teamId))!.companyId).toBe(202);
  });

  it("a tampered state shows the failure page and stores nothing", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow);
    const [payload, mac] = state.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), t: "TEVIL" })).toString("base64url");
    await expectFailurePage(await flow.callback(callbackRequest({ code: fake.issueCode(), state: `${forged}.${mac}` }, cookie)));
    expect(await connections.getMeta("TEVIL")).toBeUndefined();
    expect(await connections.getMeta(teamId)).toBeUndefined();
  });

  it("an expired state shows the failure page", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow);
    now = new Date(now.getTime() + 11 * 60 * 1000);
    await expectFailurePage(await flow.callback(callbackRequest({ code: fake.issueCode(), state }, cookie)));
    expect(await connections.getMeta(teamId)).toBeUndefined();
  });

  it("a state used from another browser (no nonce cookie) shows the failure page", async () => {
    const flow = oauth();
    const { state } = await startConnect(flow);
    await expectFailurePage(await flow.callback(callbackRequest({ code: fake.issueCode(), state })));
    await expectFailurePage(await flow.callback(callbackRequest({ code: fake.issueCode(), state }, "freee_oauth_nonce=other")));
  });

  it("a refused code or a denied authorization shows the failure page and is audited for the workspace", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow);
    await expectFailurePage(await flow.callback(callbackRequest({ code: "never-issued", state }, cookie)));
    const denied = await startConnect(flow);
    await expectFailurePage(await flow.callback(callbackRequest({ error: "access_denied", state: denied.state }, denied.cookie)));
    const audit = await taskStore.listAuditByTeam(teamId);
    const failures = audit.filter((a) => a.action === "freee.connect_failed");
    expect(failures).toHaveLength(2);
    expect(failures.map((f) => f.details.reason).sort()).toEqual(["authorize_error", "code_rejected"]);
    expect(failures.map((f) => f.details.errorType)).toEqual(["AuthError", "AuthError"]);
    expect(await connections.getMeta(teamId)).toBeUndefined();
  });

  it("freee down while listing companies → failure page (502), nothing stored", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow);
    fake.fail({ path: "/api/1/companies" }, { status: 503 });
    await expectFailurePage(await flow.callback(callbackRequest({ code: fake.issueCode(), state }, cookie)), 502);
    expect(await connections.getMeta(teamId)).toBeUndefined();
  });

  it("App Home status shows reauth_required after freee refused the refresh token", async () => {
    const flow = oauth();
    const { state, cookie } = await startConnect(flow);
    await flow.callback(callbackRequest({ code: fake.issueCode(), state }, cookie));
    await connections.markReauthRequired(teamId, 1, "refresh_rejected");
    expect((await flow.getConnectionStatus(teamId)).status).toBe("reauth_required");
  });
});

describe("wiring", () => {
  it("the connect flow is what the Slack side's FreeePort expects (routes, connect URL, status)", () => {
    const port: FreeePort = oauth();
    expect(typeof port.connect).toBe("function");
    expect(typeof port.callback).toBe("function");
    expect(typeof port.buildConnectUrl).toBe("function");
    expect(typeof port.getConnectionStatus).toBe("function");
    // The web Lambda's: its pages, and the status and connect link of the App Home it republishes after a connect.
    const fromEnv: FreeePort = lazyFreeeOAuthFromEnv({}, { admins: directory.admins });
    expect(Object.keys(fromEnv).sort()).toEqual(["buildConnectUrl", "callback", "connect", "getConnectionStatus"]);
  });
});

describe("settings", () => {
  it("derive the redirect URI from PUBLIC_BASE_URL, and fail loudly without a base", async () => {
    const s = await loadOAuthSettings({ PUBLIC_BASE_URL: "https://abc.lambda-url.on.aws/", FREEE_STATE_SECRET: "x" });
    expect(s).toMatchObject({ redirectUri: "https://abc.lambda-url.on.aws/freee/callback", publicBaseUrl: "https://abc.lambda-url.on.aws" });
    await expect(loadOAuthSettings({ FREEE_STATE_SECRET: "x" })).rejects.toBeInstanceOf(FatalConfigError);
    await expect(loadOAuthSettings({ PUBLIC_BASE_URL: "https://a" })).rejects.toBeInstanceOf(FatalConfigError);
  });
});

describe("admins only: checked at /freee/connect and again in the callback", () => {
  const settings = () => new TeamSettingsStore(table.doc, table.tableName);
  async function expectAdminOnlyPage(res: Response) {
    expect(res.status).toBe(403);
    expect(res.headers.get("location")).toBeNull();
    const html = await res.text();
    expect(html).toContain(AccessMessages.freeeAdminOnly);
    expect(html).not.toContain(AdminMessages.freeeAuthFailed);
  }
  const refusals = async () => (await taskStore.listAuditByTeam(teamId)).filter((a) => a.action === "freee.connect_refused");

  it("a member's link (signed, but the user is no admin) is refused at the start: no redirect to freee, audited", async () => {
    const flow = oauth();
    directory.roles.set("UMEMBER", { teamId, isWorkspaceAdmin: false });
    await expectAdminOnlyPage(await flow.connect(new Request(flow.buildConnectUrl(teamId, "UMEMBER"))));
    const [refusal] = await refusals();
    expect(refusal).toMatchObject({ actor: "UMEMBER", layer: "admin", details: { step: "connect", reason: "not_admin", errorType: "AuthError" } });
  });

  it("an admin's link used after they stopped being one (removed from the settings list) is refused", async () => {
    const flow = oauth();
    await settings().save(teamId, ["UTEAMADMIN"], "UADMIN");
    const link = flow.buildConnectUrl(teamId, "UTEAMADMIN");
    await settings().save(teamId, [], "UADMIN");
    await expectAdminOnlyPage(await flow.connect(new Request(link)));
    expect(await refusals()).toHaveLength(1);
  });

  it("demoted between the start and the callback: the callback refuses before exchanging the code; nothing saved; audited", async () => {
    const flow = oauth();
    await settings().save(teamId, ["UTEAMADMIN"], "UADMIN");
    const link = flow.buildConnectUrl(teamId, "UTEAMADMIN");
    const started = await flow.connect(new Request(link));
    expect(started.status).toBe(302);
    const state = new URL(started.headers.get("location")!).searchParams.get("state")!;
    const cookie = started.headers.get("set-cookie")!.split(";")[0]!;
    await settings().save(teamId, [], "UADMIN");
    const exchanges = fake.tokenRequests("authorization_code").length;
    await expectAdminOnlyPage(await flow.callback(callbackRequest({ code: fake.issueCode(), state }, cookie)));
    expect(fake.tokenRequests("authorization_code")).toHaveLength(exchanges);
    expect(await connections.getMeta(teamId)).toBeUndefined();
    expect(await refusals()).toEqual([expect.objectContaining({ actor: "UTEAMADMIN", details: expect.objectContaining({ step: "callback", reason: "not_admin" }) })]);
  });

  it("a Slack admin of the workspace (users.info is_admin) connects; a Slack admin of another organisation does not", async () => {
    const flow = oauth();
    directory.roles.set("USLACKADMIN", { teamId, isWorkspaceAdmin: true });
    directory.roles.set("UOTHERORG", { teamId: "TOTHERORG", isWorkspaceAdmin: true });
    const { state, cookie } = await (async () => {
      const res = await flow.connect(new Request(flow.buildConnectUrl(teamId, "USLACKADMIN")));
      expect(res.status).toBe(302);
      return { state: new URL(res.headers.get("location")!).searchParams.get("state")!, cookie: res.headers.get("set-cookie")!.split(";")[0]! };
    })();
    expect((await flow.callback(callbackRequest({ code: fake.issueCode(), state }, cookie))).status).toBe(200);
    expect((await connections.getMeta(teamId))!.connectedBy).toBe("USLACKADMIN");
    await expectAdminOnlyPage(await flow.connect(new Request(flow.buildConnectUrl(teamId, "UOTHERORG"))));
  });
});
