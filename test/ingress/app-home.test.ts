import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { DEFAULT_APPROVAL_POLICY } from "../../lib/core/domain/approval-policy";
import { AuditLog } from "../../lib/store/audit-log";
import { createLogger } from "../../lib/core/observability/logger";
import { HomeActionIds, buildHomeView } from "../../lib/ingress/home";
import { loadHomeState, saveAdminsFromHome, type HomeDeps } from "../../lib/ingress/home-service";
import { createWebClient } from "../../lib/slack-api/web-client";
import { ThrottledError } from "../../lib/core/errors/taxonomy";
import { AdminMessages } from "../../lib/core/messages/ja";
import type { TestTable } from "../support/dynamo";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { signedInteraction, signedJson } from "../support/slack-signing";
import { testAdmins } from "../support/admins";
import { homeBlockAction, homeOpened, install, messageEvent, startIngress, startIngressOnFakes, unlinkedThread } from "./ingress-harness";

let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;
const freee = {
  getConnectionStatus: async () => ({ status: "not_connected" as const }),
  buildConnectUrl: (teamId: string) => `https://ingress.example/freee/connect?team=${teamId}`,
};

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes({}, freee));
  await install(h, "T1");
  // The members users.info knows (UADMIN is on ADMIN_USER_IDS: never looked up).
  for (const id of ["UREQ", "USTRANGER"]) slack.workspace.addUser({ id, teamId: "T1" });
});
// Slack refused nothing the test did not script: a call the real Slack would refuse fails the test.
// Tasks seeded without their request in the fake's workspace are shown unlinked (ingress-harness: unlinkedThread).
afterEach(() => expect(slack.takeRefused().filter((r) => !unlinkedThread(r))).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => slack.reset());

const lastView = () => JSON.stringify(slack.callsTo("views.publish").at(-1)?.body.view);

describe("App Home", () => {
  it("an app_home_opened without a user publishes nothing (Slack refuses views.publish without user_id)", async () => {
    const { user: _user, ...event } = homeOpened("T1", "UADMIN").event;
    expect((await h.send(signedJson({ ...messageEvent("T1"), event }))).statusCode).toBe(200);
    expect(slack.callsTo("views.publish")).toHaveLength(0);
  });

  it("shows freee status with a connect button, settings, recent tasks (linked, JST, requester) and failed tasks by cause in Japanese", async () => {
    // The request as Slack holds it: Home links the task to its thread with Slack's permalink.
    const asked = slack.workspace.addUserMessage({ channel: "C1", user: "UREQ", text: "年末調整の準備" });
    const { record } = await h.store.createTask({ thread: { teamId: "T1", channelId: "C1", messageTs: asked.ts }, requesterId: "UREQ", requestText: "年末調整の準備", pipelineExecutionName: "x" });
    // A task whose request is gone from Slack: shown, not linked.
    await h.store.createTask({ thread: { teamId: "T1", channelId: "C1", messageTs: "1712000000.000777" }, requesterId: "UADMIN", requestText: "消えた依頼", pipelineExecutionName: "y" });
    const audit = new AuditLog(h.store, createLogger("t"));
    await audit.recordError({ teamId: "T1", taskId: record.taskId, subject: "prompt#1", actor: "system", layer: "L2", error: new ThrottledError("slow down") });
    const res = await h.send(signedJson(homeOpened("T1", "UADMIN")));
    expect(res.statusCode).toBe(200);
    const publish = slack.callsTo("views.publish");
    expect(publish).toHaveLength(1);
    expect(publish[0]!.body.user_id).toBe("UADMIN");
    const view = lastView();
    expect(view).toContain("freee 接続");
    expect(view).toContain("未接続");
    expect(view).toContain("https://ingress.example/freee/connect?team=T1");
    expect(view).toContain(HomeActionIds.admins); // admins get the editable list
    const jst = new Date(Date.parse(record.createdAt) + 9 * 3600_000).toISOString().slice(0, 16).replace("T", " ");
    expect(view).toContain(`• <https://fake.slack.invalid/archives/C1/p${asked.ts.replace(".", "")}|年末調整の準備> — 解析中 — 依頼者 <@UREQ> (${jst})`);
    expect(view).toContain("• 消えた依頼 — 解析中 — 依頼者 <@UADMIN>");
    expect(view).toContain("時刻は日本時間（JST）です。");
    expect(view).not.toContain(record.createdAt.slice(0, 16).replace("T", " "));
    // The same ledger as `npm run report`: the task counts as failed, its cause in Japanese, no class name.
    expect(view).toContain("直近 30 日のタスクの結果");
    expect(view).toContain("失敗: 1 件");
    expect(view).toContain("L2 実行方針: データベースの混雑 — 1 件");
    expect(view).not.toContain("ThrottledError");
  });

  it("non-admins see the settings read-only", async () => {
    await h.send(signedJson(homeOpened("T1", "UREQ")));
    const view = lastView();
    expect(view).not.toContain(HomeActionIds.admins);
    expect(view).toContain("設定の変更は管理者のみ行えます。");
  });

  it("an admin saves who may approve; a non-admin's change is refused", async () => {
    const change = (userId: string, selected: string[]) => homeBlockAction("T1", userId, { type: "multi_users_select", action_id: HomeActionIds.admins, block_id: "home_settings", selected_users: selected });
    expect((await h.send(signedInteraction(change("UADMIN", ["UAPPROVER"])))).statusCode).toBe(200);
    const settings = new TeamSettingsStore(table.doc, table.tableName);
    expect((await settings.get("T1")).adminUserIds).toEqual(["UAPPROVER"]);
    await h.send(signedInteraction(change("USTRANGER", ["USTRANGER"])));
    expect((await settings.get("T1")).adminUserIds).toEqual(["UAPPROVER"]);
  });

  it("DB unreachable → 「データベースに接続できません」", async () => {
    const deps: HomeDeps = {
      store: { listRecentTasks: async () => Promise.reject(new ThrottledError("down")), listRecentTasksBy: async () => [], listAuditByTeam: async () => [] },
      settings: new TeamSettingsStore(table.doc, table.tableName),
      admins: testAdmins(table).admins,
      freee: {},
      audit: new AuditLog(h.store, createLogger("t")),
      log: createLogger("t"),
    };
    const state = await loadHomeState(deps, { teamId: "T1", userId: "UADMIN" });
    expect(state).toEqual({ kind: "error", message: AdminMessages.databaseUnreachable });
    expect(JSON.stringify(buildHomeView(state))).toContain("データベースに接続できません");
  });

  it("save failure → 「設定の保存に失敗しました」 and the settings unchanged", async () => {
    class FailingSettings extends TeamSettingsStore {
      override async save(): Promise<never> {
        throw new ThrottledError("write refused");
      }
    }
    const deps: HomeDeps = { store: h.store, settings: new FailingSettings(table.doc, table.tableName), admins: testAdmins(table).admins, freee: {}, audit: new AuditLog(h.store, createLogger("t")), log: createLogger("t") };
    const outcome = await saveAdminsFromHome(createWebClient("xoxb-T1", { SLACK_API_URL: slack.url }), deps, { teamId: "T1", userId: "UADMIN" }, ["UNEW"]);
    expect(outcome).toBe("failed");
    expect(lastView()).toContain(AdminMessages.settingsSaveFailed);
  });

  it("freee status failing (settings missing) shows unknown, not a database error", async () => {
    const deps: HomeDeps = {
      store: h.store,
      settings: new TeamSettingsStore(table.doc, table.tableName),
      admins: testAdmins(table).admins,
      freee: { getConnectionStatus: async () => Promise.reject(new Error("missing setting PUBLIC_BASE_URL")) },
      audit: new AuditLog(h.store, createLogger("t")),
      log: createLogger("t"),
    };
    const state = await loadHomeState(deps, { teamId: "T1", userId: "UREQ" });
    expect(state.kind).toBe("ok");
    expect(state.kind === "ok" && state.data.freee.status).toBe("unknown");
  });

  it("freee module not wired → status shown as unknown, no connect button", () => {
    const view = JSON.stringify(
      buildHomeView({ kind: "ok", data: { viewerIsAdmin: false, freee: { status: "unknown" }, adminUserIds: [], approvalPolicy: DEFAULT_APPROVAL_POLICY, allowedExternalTeamIds: [], recentTasks: [], ledger: { byOutcome: { completed: 0, failed: 0, timed_out: 0, cancelled: 0, limit_reached: 0, expired: 0, not_a_request: 0, in_progress: 0 }, failuresByClass: [] } } }),
    );
    expect(view).toContain("確認できません");
    expect(view).not.toContain(HomeActionIds.freeeConnect);
  });
});
