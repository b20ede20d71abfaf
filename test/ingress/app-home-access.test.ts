import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TeamSettingsStore } from "../../lib/ingress/actions";
import { freeeHomePortFromEnv } from "../../wiring/freee-home";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { AccessMessages, HomeTexts } from "../../lib/core/messages/ja";
import { HomeActionIds } from "../../lib/ingress/home";
import { Keys } from "../../lib/store/table";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { startTestTable, type TestTable } from "../support/dynamo";
import { signedInteraction, signedJson } from "../support/slack-signing";
import { homeBlockAction, homeOpened, install, startIngress, TEST_TOKEN_KEY, unlinkedThread } from "./ingress-harness";

/** Issue 15 items 1 and 2 in App Home, over HTTP: who sees which tasks, who gets the freee connect / disconnect buttons. */

let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;
let connections: FreeeConnectionStore;
const T = "TACL";

beforeAll(async () => {
  [table, slack] = await Promise.all([startTestTable(), startFakeSlack()]);
  const freee = freeeHomePortFromEnv({ ...table.env, FREEE_CONNECT_BASE_URL: "https://web.example.test", FREEE_STATE_SECRET: "freee-state-secret-0123456789" }, table.doc);
  h = await startIngress(table, slack, {}, freee);
  await install(h, T);
  connections = new FreeeConnectionStore(table.doc, table.tableName, new LocalTokenCipher(TEST_TOKEN_KEY));
  slack.workspace.addUser({ id: "UOWNER", teamId: T, isOwner: true });
  for (const id of ["UREQ", "UMEMBER", "UOTHER"]) slack.workspace.addUser({ id, teamId: T });
  // A member's own request, another member's request in a channel, and another member's request in a DM.
  const mk = (requesterId: string, channelId: string, requestText: string, ts: string) =>
    h.store.createTask({ thread: { teamId: T, channelId, messageTs: ts }, requesterId, requestText, pipelineExecutionName: `p-${ts}` });
  await mk("UMEMBER", "C1", "自分の経費精算", "1712000000.000001");
  await mk("UOTHER", "C1", "備品の購入申請", "1712000000.000002");
  await mk("UOTHER", "DOTHER", "懲戒による減給の手続き", "1712000000.000003");
});
// Tasks seeded without their request in the fake's workspace are shown unlinked (ingress-harness: unlinkedThread).
afterEach(() => expect(slack.takeRefused().filter((r) => !unlinkedThread(r))).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => slack.reset());

const openHome = async (userId: string) => {
  await h.send(signedJson(homeOpened(T, userId)));
  return JSON.stringify(slack.workspace.homeViews.get(userId));
};
const homeAction = (userId: string, action: Record<string, unknown>) => h.send(signedInteraction(homeBlockAction(T, userId, action)));
async function connect() {
  await connections.save({ teamId: T, tokens: { accessToken: "at-acl", refreshToken: "rt-acl", accessTokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString() }, companyId: 101, companyName: "テスト株式会社", connectedBy: "UOWNER" });
}

describe("recent tasks (item 2)", () => {
  it("a member sees only their own tasks — never another member's, in a channel or in a DM", async () => {
    const view = await openHome("UMEMBER");
    expect(view).toContain("あなたの最近のタスク");
    expect(view).toContain("自分の経費精算");
    expect(view).not.toContain("備品の購入申請");
    expect(view).not.toContain("懲戒による減給");
  });

  it("the requester of the DM request sees it; an admin (Slack owner) sees the workspace's, DMs included", async () => {
    expect(await openHome("UOTHER")).toContain("懲戒による減給");
    const admin = await openHome("UOWNER");
    expect(admin).toContain("最近のタスク（ワークスペース全体）");
    for (const text of ["自分の経費精算", "備品の購入申請", "懲戒による減給"]) expect(admin).toContain(text);
  });
});

describe("freee connect and disconnect (item 1): admins only", () => {
  it("a member gets neither the connect button nor a signed link; an admin gets both", async () => {
    const member = await openHome("UMEMBER");
    expect(member).not.toContain(HomeActionIds.freeeConnect);
    expect(member).not.toContain("/freee/connect");
    expect(member).toContain(HomeTexts.freeeAdminOnly);
    const admin = await openHome("UOWNER");
    expect(admin).toContain(HomeActionIds.freeeConnect);
    expect(admin).toContain("https://web.example.test/freee/connect?team=TACL&user=UOWNER");
  });

  it("a member's disconnect click changes nothing; an admin's removes the tokens, is audited, and the Home shows 未接続", async () => {
    await connect();
    expect(await openHome("UMEMBER")).not.toContain(HomeActionIds.freeeDisconnect);
    expect(await openHome("UOWNER")).toContain(HomeActionIds.freeeDisconnect);
    await homeAction("UMEMBER", { type: "button", action_id: HomeActionIds.freeeDisconnect });
    expect(JSON.stringify(slack.workspace.homeViews.get("UMEMBER"))).toContain(AccessMessages.adminOnlyChange);
    expect((await connections.get(T))?.accessToken).toBe("at-acl");

    await homeAction("UOWNER", { type: "button", action_id: HomeActionIds.freeeDisconnect });
    expect(await connections.get(T)).toBeUndefined();
    const home = JSON.stringify(slack.workspace.homeViews.get("UOWNER"));
    expect(home).toContain(HomeTexts.disconnected);
    expect(home).toContain("未接続");
    const audit = await h.store.listAuditByTeam(T);
    expect(audit.filter((a) => a.action === "freee.disconnected")).toEqual([expect.objectContaining({ actor: "UOWNER", layer: "admin" })]);
    // The item keeps no token at all (not only unreadable).
    const { Item } = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.freeeConnection(T) }));
    expect(Item).toMatchObject({ status: "disconnected", disconnectedBy: "UOWNER" });
    expect(Item?.tokens).toBeUndefined();
    // A reconnect makes it active again.
    await connect();
    expect((await connections.getMeta(T))?.status).toBe("active");
  });
});

describe("allowed external organisations (item 3's setting), edited where the admins list is", () => {
  const edit = (userId: string, value: string) => homeAction(userId, { type: "plain_text_input", action_id: HomeActionIds.externalTeams, value });

  it("an admin saves them (the admins list untouched); a malformed id or a member's edit changes nothing", async () => {
    const settings = new TeamSettingsStore(table.doc, table.tableName);
    await settings.save(T, ["UREQ"], "UOWNER");
    expect(await openHome("UOWNER")).toContain(HomeActionIds.externalTeams);
    expect(await openHome("UMEMBER")).not.toContain(HomeActionIds.externalTeams);
    await edit("UOWNER", "TPARTNER1, TPARTNER2");
    expect(await settings.get(T)).toMatchObject({ adminUserIds: ["UREQ"], allowedExternalTeamIds: ["TPARTNER1", "TPARTNER2"] });
    expect(JSON.stringify(slack.workspace.homeViews.get("UOWNER"))).toContain("TPARTNER1, TPARTNER2");
    await edit("UOWNER", "TPARTNER1, not-a-team");
    expect(JSON.stringify(slack.workspace.homeViews.get("UOWNER"))).toContain(AccessMessages.externalTeamsInvalid);
    await edit("UMEMBER", "TEVIL");
    expect((await settings.get(T)).allowedExternalTeamIds).toEqual(["TPARTNER1", "TPARTNER2"]);
    await settings.save(T, [], "UOWNER");
    await settings.saveAllowedExternalTeams(T, [], "UOWNER");
  });
});
