import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "../../lib/core/errors/taxonomy";
import { AdminMessages, HomeTexts, WebAdminMessages } from "../../lib/core/messages/ja";
import { PolicyMessages } from "../../lib/core/messages/policy";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { DEFAULT_APPROVAL_POLICY } from "../../lib/core/domain/approval-policy";
import { UTF8_BOM } from "../../lib/web-admin/csv";
import { audit, Browser, csrfOf, seedTask, startAdmin, USERS, type AdminHarness } from "./harness";

/**
 * Every route of the web admin over HTTP, per role, with two installed workspaces in one table: what each role
 * sees, that no id changed in a URL or a form reaches the other workspace, and the §9.2 rows by their faults.
 */
let h: AdminHarness;
let admin1: Browser;
let member1: Browser;
let admin2: Browser;
const ids = { member1Task: "", admin1Task: "", team2Task: "" };
const MONTH = "2026-11";

beforeAll(async () => {
  h = await startAdmin();
  h.slack.directory.addUsergroup({ id: "SHRTEAM", handle: "hr", name: "人事チーム", users: [USERS.approver1.id] });
  ids.member1Task = (await seedTask(h, "T0001", USERS.member1.id, "11月分の交通費を登録してください", "2026-11-05T01:00:00.000Z")).taskId;
  ids.admin1Task = (await seedTask(h, "T0001", USERS.admin1.id, "=HYPERLINK(\"http://evil\") 請求書を作成", "2026-11-06T02:00:00.000Z")).taskId;
  ids.team2Task = (await seedTask(h, "T0002", USERS.member2.id, "ワークスペース2の秘密の給与変更", "2026-11-07T03:00:00.000Z")).taskId;
  await audit(h, { teamId: "T0001", taskId: ids.member1Task, action: "execution.completed", subject: "execution#1", actor: "system", at: "2026-11-05T01:10:00.000Z", layer: "L4" });
  await audit(h, { teamId: "T0001", taskId: ids.admin1Task, action: "error.L3", subject: "process#1", actor: "system", at: "2026-11-06T02:05:00.000Z", layer: "L3", errorType: "UpstreamTimeoutError" });
  // What a dependency said, as it said it: it starts like a spreadsheet formula.
  await audit(h, { teamId: "T0001", taskId: ids.admin1Task, action: "error.L1", subject: "task#1", actor: "system", at: "2026-11-06T02:01:00.000Z", layer: "L1", errorType: "MalformedOutputError", errorMessage: "=1+2" });
  // A click Slack could not judge (the approvers' user group unknown): the message the clicker saw rides the entry.
  await audit(h, { teamId: "T0001", taskId: ids.admin1Task, action: "error.ingress", subject: "process#1#membership", actor: USERS.approver1.id, at: "2026-11-06T02:03:00.000Z", layer: "ingress", errorType: "RateLimitedError", details: { userMessage: PolicyMessages.membershipUnknown } });
  await audit(h, { teamId: "T0002", taskId: ids.team2Task, action: "error.L4", subject: "execution#1", actor: "system", at: "2026-11-07T03:05:00.000Z", layer: "L4", errorType: "AuthError" });
  // The Slack app's token revoked while a card was drawn: an AuthError that says it is Slack's (its details).
  const slackAuth = new AuthError("chat.update: Slack token rejected (token_revoked)", { service: "slack", details: { slackError: "token_revoked" } });
  await audit(h, { teamId: "T0002", taskId: ids.team2Task, action: "error.slack", subject: "card#task", actor: "system", at: "2026-11-07T03:06:00.000Z", layer: "slack", errorType: slackAuth.name, details: slackAuth.details });
  [admin1, member1, admin2] = [new Browser(h.url), new Browser(h.url), new Browser(h.url)];
  await admin1.signIn(USERS.admin1.id);
  await member1.signIn(USERS.member1.id);
  await admin2.signIn(USERS.admin2.id);
}, 60_000);
afterAll(async () => h?.close());

const text = async (b: Browser, path: string) => {
  const res = await b.get(path);
  return { status: res.status, body: await res.text(), res };
};

describe("タスク", () => {
  it("an admin sees the workspace's tasks of the period, each linking to its Slack thread; none of the other workspace", async () => {
    const { status, body } = await text(admin1, `/admin/tasks?month=${MONTH}`);
    expect(status).toBe(200);
    expect(body).toContain(`/admin/tasks/${ids.member1Task}`);
    expect(body).toContain(`/admin/tasks/${ids.admin1Task}`);
    expect(body).not.toContain(ids.team2Task);
    expect(body).not.toContain("秘密の給与変更");
    expect(body).toContain("https://app.slack.com/client/T0001/C1/thread/C1-");
  });

  it("filters by requester, status and period", async () => {
    expect((await text(admin1, `/admin/tasks?month=${MONTH}&requester=${USERS.member1.id}`)).body).not.toContain(ids.admin1Task);
    expect((await text(admin1, `/admin/tasks?month=${MONTH}&status=failed`)).body).toContain("該当するタスクはありません");
    expect((await text(admin1, `/admin/tasks?since=2026-11-06&until=2026-11-30`)).body).not.toContain(ids.member1Task);
  });

  it("a member sees only their own tasks, whatever requester the URL names", async () => {
    const { body } = await text(member1, `/admin/tasks?month=${MONTH}&requester=${USERS.admin1.id}`);
    expect(body).toContain(ids.member1Task);
    expect(body).not.toContain(ids.admin1Task);
  });
});

describe("タスク詳細", () => {
  it("shows the request, the errors with their class and the message the user saw, and the audit trail", async () => {
    const { status, body } = await text(admin1, `/admin/tasks/${ids.admin1Task}`);
    expect(status).toBe(200);
    expect(body).toContain("請求書を作成");
    expect(body).toContain("接続先のタイムアウト（UpstreamTimeoutError）");
    expect(body).toContain("実行ステップの生成に失敗しました。もう一度お試しください。");
    expect(body).toContain("error.L3");
    expect(body).toContain(`<td>${PolicyMessages.membershipUnknown}</td>`);
  });

  it("an AuthError is named by whose credential failed: freee's connection, or the Slack app's", async () => {
    const { status, body } = await text(admin2, `/admin/tasks/${ids.team2Task}`);
    expect(status).toBe(200);
    // The L4 entry does not say (a state machine's catch keeps the name only): freee's, as every step's AuthError is.
    expect(body).toContain("freee 接続エラー（AuthError）");
    expect(body).toContain("Slack 接続エラー（AuthError）");
  });

  it("a task of another workspace, or a member's view of someone else's task, is 「ページが見つかりません」", async () => {
    for (const [who, id] of [[admin1, ids.team2Task], [member1, ids.admin1Task], [admin2, ids.member1Task], [admin1, "T0001-nosuchtask"]] as const) {
      const { status, body } = await text(who, `/admin/tasks/${id}`);
      expect(status).toBe(404);
      expect(body).toContain(AdminMessages.notFound);
      expect(body).not.toContain("秘密の給与変更");
      expect(body).not.toContain("請求書を作成");
    }
  });
});

describe("監査ログ and ダッシュボード", () => {
  it("the CSV is the workspace's entries of the period: UTF-8 with BOM, formula-safe", async () => {
    const res = await admin1.get(`/admin/audit.csv?since=2026-11-01&until=2026-11-30`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toContain("attachment;");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    expect(csv.startsWith(UTF8_BOM)).toBe(true);
    const rows = csv.slice(1).trimEnd().split("\r\n");
    expect(rows[0]).toBe('"at","team_id","task_id","action","actor","layer","error_type","error_message","details"');
    expect(rows.filter((r) => r.includes('"T0002"'))).toEqual([]);
    expect(rows.some((r) => r.includes(ids.admin1Task) && r.includes('"error.L3"'))).toBe(true);
    // No cell starts like a formula.
    for (const row of rows) for (const cell of row.slice(1, -1).split('","')) expect(cell).not.toMatch(/^[=+\-@]/);
    expect(rows.some((r) => r.includes(`"'=1+2"`))).toBe(true);
  });

  it("the dashboard counts the workspace's ledger and draws it as SVG on the server", async () => {
    const { status, body } = await text(admin1, `/admin/dashboard?month=${MONTH}`);
    expect(status).toBe(200);
    expect(body).toContain("<svg");
    expect(/data-outcome="completed"><td>.*?<\/td><td class="num">(\d+)</.exec(body)?.[1]).toBe("1");
    expect(/data-outcome="failed"><td>.*?<\/td><td class="num">(\d+)</.exec(body)?.[1]).toBe("1");
    expect(/data-outcome="total"><th>.*?<\/th><td class="num">(\d+)</.exec(body)?.[1]).toBe("2");
    expect(body).toContain("L3 実行計画 / 接続先のタイムアウト（UpstreamTimeoutError）");
    expect(body).not.toContain("AuthError");
  });

  it("a member opens neither: 403", async () => {
    for (const path of ["/admin/dashboard", "/admin/audit", "/admin/audit.csv", "/admin/settings"]) expect((await member1.get(path)).status, path).toBe(403);
  });
});

describe("設定", () => {
  it("an admin saves who may approve: audited, and only in the admin's own workspace whatever the form says", async () => {
    const page = await text(admin1, "/admin/settings");
    // The list says what App Home says it grants: not "besides the requester" (a requester may not approve its own write).
    expect(page.body).toContain(HomeTexts.adminsRole);
    expect(page.body).not.toContain("依頼者に加えて");
    const csrf = csrfOf(page.body);
    const res = await admin1.post("/admin/settings/approvers", { _csrf: csrf, approvers: "UAPPROVER1, UMEMBER1", teamId: "T0002" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/settings?notice=saved");
    const settings = new TeamSettingsStore(h.table.doc, h.table.tableName);
    expect((await settings.get("T0001")).adminUserIds).toEqual(["UAPPROVER1", "UMEMBER1"]);
    expect((await settings.get("T0002")).adminUserIds).toEqual([]);
    const entry = (await h.store.listAuditByTeam("T0001")).find((e) => e.action === "settings.approvers_saved");
    expect(entry?.actor).toBe(USERS.admin1.id);
    expect(entry?.details).toMatchObject({ before: [], after: ["UAPPROVER1", "UMEMBER1"] });
    expect((await text(admin1, "/admin/settings?notice=saved")).body).toContain("設定を保存しました");
    await settings.save("T0001", [], "test");
  });

  it("a POST without this session's CSRF token changes nothing", async () => {
    const csrf2 = csrfOf((await text(admin2, "/admin/settings")).body);
    for (const token of ["", "forged", csrf2]) {
      const res = await admin1.post("/admin/settings/external-teams", { _csrf: token, externalTeams: "T0BAD" });
      expect(res.status).toBe(403);
    }
    expect((await new TeamSettingsStore(h.table.doc, h.table.tableName).get("T0001")).allowedExternalTeamIds).toEqual([]);
  });

  it("a failed save (a malformed id) is the toast 「設定の保存に失敗しました」 with the form keeping what was typed", async () => {
    const csrf = csrfOf((await text(admin1, "/admin/settings")).body);
    const res = await admin1.post("/admin/settings/external-teams", { _csrf: csrf, externalTeams: "TOK123, not-a-team" });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toMatch(new RegExp(`<div class="toast toast-error" role="alert">${AdminMessages.settingsSaveFailed}`));
    expect(body).toContain("TOK123, not-a-team</textarea>");
  });

  it("a save the database refuses is the same toast, the typed text kept, nothing changed", async () => {
    const csrf = csrfOf((await text(admin1, "/admin/settings")).body);
    h.db.arm({ when: (r) => r.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem", kind: "auth" });
    const res = await admin1.post("/admin/settings/external-teams", { _csrf: csrf, externalTeams: "T0PARTNER" });
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(body).toContain(`role="alert">${AdminMessages.settingsSaveFailed}。${WebAdminMessages.saveUnavailable}</div>`);
    expect(body).toContain("T0PARTNER</textarea>");
    expect((await new TeamSettingsStore(h.table.doc, h.table.tableName).get("T0001")).allowedExternalTeamIds).toEqual([]);
  });

  it("freee's OAuth failing after a connect started here returns to 設定 with 「freee の認証に失敗しました」", async () => {
    const connect = await admin1.get("/admin/settings/freee/connect");
    expect(connect.status).toBe(302);
    const link = new URL(connect.headers.get("location")!);
    expect(link.pathname).toBe("/freee/connect");
    // freee answers the authorize page with an error (the user refused, or freee failed): back to our callback.
    const back = await admin1.get(`/freee/callback?error=access_denied&state=whatever`);
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe("/admin/settings?notice=freee_auth_failed");
    const page = await admin1.follow(back);
    expect(await page.text()).toContain(`role="alert">${AdminMessages.freeeAuthFailed}</div>`);
    // Started from App Home (no return cookie), the callback keeps its own page.
    const plain = await new Browser(h.url).get(`/freee/callback?error=access_denied&state=whatever`);
    expect(plain.status).toBeGreaterThanOrEqual(400);
    expect(await plain.text()).toContain(AdminMessages.freeeAuthFailed);
  });
});

describe("設定: the approval policy", () => {
  it("an admin saves it from the form, audited; a form of an older version saves nothing (the toast)", async () => {
    const page = (await text(admin1, "/admin/settings")).body;
    const seen = /name="seen" value="([^"]*)"/.exec(page)![1]!;
    const form = { _csrf: csrfOf(page), seen, approvers_hr: "UAPPROVER1, SHRTEAM", approvers_accounting: "", approvers_invoices: "", twoOnWarning: "1", twoAboveYen: "500000", readsRun_accounting: "1" };
    const res = await admin1.post("/admin/settings/policy", form);
    expect(res.headers.get("location")).toBe("/admin/settings?notice=saved");
    const policy = (await new TeamSettingsStore(h.table.doc, h.table.tableName).get("T0001")).approvalPolicy;
    expect(policy.approvers.hr).toEqual({ userIds: ["UAPPROVER1"], usergroupIds: ["SHRTEAM"] });
    expect(policy.twoApprovers).toEqual({ onWarning: true, aboveYen: 500000 });
    expect(policy.selfApproveWrites).toBe(false);
    expect((await h.store.listAuditByTeam("T0001")).some((e) => e.action === "settings.approval_policy_saved" && e.actor === USERS.admin1.id)).toBe(true);
    // The same form again: its version is no longer the stored one — refused, the toast says so (409, the form kept).
    const stale = await admin1.post("/admin/settings/policy", { ...form, twoAboveYen: "1" });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain(`role="alert">${AdminMessages.settingsSaveFailed}。${WebAdminMessages.policyConflict}</div>`);
    expect((await new TeamSettingsStore(h.table.doc, h.table.tableName).get("T0001")).approvalPolicy.twoApprovers.aboveYen).toBe(500000);
    expect((await member1.post("/admin/settings/policy", { ...form, _csrf: csrfOf((await text(member1, "/admin/tasks")).body) })).status).toBe(403);
  });
});

describe("an approver (named by the approval policy)", () => {
  it("sees the workspace's tasks, trails, dashboard and audit log, and not 設定", async () => {
    const settings = new TeamSettingsStore(h.table.doc, h.table.tableName);
    const { updatedBy: _b, updatedAt: _a, ...policy } = DEFAULT_APPROVAL_POLICY;
    await settings.savePolicy("T0001", { ...policy, approvers: { ...policy.approvers, hr: { userIds: [USERS.approver1.id], usergroupIds: [] } } }, USERS.admin1.id, (await settings.get("T0001")).approvalPolicy.updatedAt);
    const approver = new Browser(h.url);
    const landed = await approver.signIn(USERS.approver1.id);
    expect(await landed.text()).toContain("承認者");
    const list = (await text(approver, `/admin/tasks?month=${MONTH}`)).body;
    expect(list).toContain(ids.member1Task);
    expect(list).toContain(ids.admin1Task);
    expect(list).not.toContain(ids.team2Task);
    expect((await approver.get(`/admin/tasks/${ids.member1Task}`)).status).toBe(200);
    expect((await approver.get(`/admin/tasks/${ids.team2Task}`)).status).toBe(404);
    expect((await approver.get("/admin/dashboard")).status).toBe(200);
    expect((await approver.get("/admin/audit.csv")).status).toBe(200);
    expect((await approver.get("/admin/settings")).status).toBe(403);
    // Not named by the policy: a member, whose view of others' tasks is 404.
    expect((await member1.get(`/admin/tasks/${ids.admin1Task}`)).status).toBe(404);
  });
});

describe("the database stopped", () => {
  it("every page is 503 「データベースに接続できません」, nothing of the page drawn", async () => {
    let stopped = true;
    h.db.arm({ when: () => stopped, kind: "5xx", times: Number.POSITIVE_INFINITY });
    try {
      for (const path of ["/admin/tasks", `/admin/tasks/${ids.admin1Task}`, "/admin/dashboard", "/admin/audit.csv", "/admin/settings"]) {
        const { status, body } = await text(admin1, path);
        expect(status, path).toBe(503);
        expect(body, path).toContain(`<h1>${AdminMessages.databaseUnreachable}</h1>`);
        expect(body, path).not.toContain("<table");
        expect(body, path).not.toContain("<nav");
      }
    } finally {
      stopped = false;
    }
    expect((await admin1.get("/admin/tasks")).status).toBe(200);
  });
});
