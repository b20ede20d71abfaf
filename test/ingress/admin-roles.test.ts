import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AdminDirectory, TeamSettingsStore } from "../../lib/ingress/actions";
import { createLogger } from "../../lib/core/observability/logger";
import { StaticBotTokenResolver } from "../../lib/slack-api/bot-token";
import { usersInfoRoles } from "../../lib/ingress/user-roles";
import { createWebClient } from "../../lib/slack-api/web-client";
import { UpstreamServerError } from "../../lib/core/errors/taxonomy";
import { FAKE_SLACK_BOT_TOKEN, startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { startTestTable, type TestTable } from "../support/dynamo";

/** Issue 15 item 6: admins are ADMIN_USER_IDS + the workspace's list + Slack's is_admin / is_owner (users.info, cached). */

let table: TestTable;
let slack: FakeSlack;
let now = 1_800_000_000_000;
const T = "T0001";

beforeAll(async () => {
  [table, slack] = await Promise.all([startTestTable(), startFakeSlack()]);
  slack.workspace.addUser({ id: "UOWNER", teamId: T, isOwner: true });
  slack.workspace.addUser({ id: "USLACKADMIN", teamId: T, isAdmin: true });
  slack.workspace.addUser({ id: "UMEMBER", teamId: T });
  slack.workspace.addUser({ id: "UGONE", teamId: T, isAdmin: true, deleted: true });
  slack.workspace.addUser({ id: "UGUESTADMIN", teamId: "TOTHERORG", isAdmin: true });
});
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => {
  slack.reset();
  now += 3_600_000;
});

function directory(options: { token?: string; ttlMs?: number } = {}) {
  const tokens = new StaticBotTokenResolver({ botToken: options.token ?? FAKE_SLACK_BOT_TOKEN });
  return new AdminDirectory({
    adminUserIds: ["UDEPLOY"],
    settings: new TeamSettingsStore(table.doc, table.tableName),
    lookup: usersInfoRoles(tokens, (token) => createWebClient(token, { SLACK_API_URL: slack.url }), createLogger("t")),
    ...(options.ttlMs === undefined ? {} : { cacheTtlMs: options.ttlMs }),
    clock: () => now,
  });
}
const usersInfoCalls = () => slack.callsTo("users.info").map((c) => c.body.user);

describe("who is an admin", () => {
  it("Slack's owners and admins of the workspace are; members, deactivated admins, unknown ids and other organisations' admins are not", async () => {
    const admins = directory();
    const verdicts = Object.fromEntries(
      await Promise.all(["UOWNER", "USLACKADMIN", "UMEMBER", "UGONE", "UNOBODY", "UGUESTADMIN"].map(async (u) => [u, await admins.isAdmin({ teamId: T, userId: u })] as const)),
    );
    expect(verdicts).toEqual({ UOWNER: true, USLACKADMIN: true, UMEMBER: false, UGONE: false, UNOBODY: false, UGUESTADMIN: false });
    // user_not_found is Slack's answer, not a failure: nothing else was refused.
    expect(slack.refused().map((c) => c.error)).toEqual(["user_not_found"]);
  });

  it("ADMIN_USER_IDS costs no call; the settings list is read before Slack is asked", async () => {
    const admins = directory();
    expect(await admins.isAdmin({ teamId: T, userId: "UDEPLOY" })).toBe(true);
    await new TeamSettingsStore(table.doc, table.tableName).save(T, ["UMEMBER"], "UDEPLOY");
    expect(await admins.isAdmin({ teamId: T, userId: "UMEMBER" })).toBe(true);
    expect(usersInfoCalls()).toEqual([]);
    await new TeamSettingsStore(table.doc, table.tableName).save(T, [], "UDEPLOY");
  });

  it("a users.info answer is kept 60 s per warm instance, then asked again (a demoted admin loses the right within a minute)", async () => {
    const admins = directory();
    expect(await admins.isAdmin({ teamId: T, userId: "USLACKADMIN" })).toBe(true);
    slack.workspace.users.get("USLACKADMIN")!.isAdmin = false;
    now += 59_000;
    expect(await admins.isAdmin({ teamId: T, userId: "USLACKADMIN" })).toBe(true);
    expect(usersInfoCalls()).toEqual(["USLACKADMIN"]);
    now += 2_000;
    expect(await admins.isAdmin({ teamId: T, userId: "USLACKADMIN" })).toBe(false);
    expect(usersInfoCalls()).toEqual(["USLACKADMIN", "USLACKADMIN"]);
    slack.workspace.users.get("USLACKADMIN")!.isAdmin = true;
  });

  it("an installation without users:read: only the configured admins count (no failure); Slack down: the error is thrown, not kept", async () => {
    slack.addBotToken("xoxb-before-users-read", { scopes: ["chat:write"] });
    expect(await directory({ token: "xoxb-before-users-read" }).isAdmin({ teamId: T, userId: "UOWNER" })).toBe(false);
    const admins = directory();
    slack.failNext("users.info", { status: 503, times: 2 });
    await expect(admins.isAdmin({ teamId: T, userId: "UOWNER" })).rejects.toBeInstanceOf(UpstreamServerError);
    expect(await admins.isAdmin({ teamId: T, userId: "UOWNER" })).toBe(true);
  });
});
