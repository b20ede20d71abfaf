import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminMessages, WebAdminMessages } from "../../lib/core/messages/ja";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { audit, seedTask, startAdmin, USERS, type AdminHarness } from "../web-admin/harness";
import { CHROMIUM, hasChromium } from "./browser-sandbox";

/**
 * The web admin in headless Chromium, against the web Lambda's router on 127.0.0.1 (DynamoDB Local behind a fault
 * proxy, the fake Slack's OpenID endpoints): sign in, open each page, change a setting, export the CSV, and reach
 * each failure row of the admin by its fault — the database stopped, a save refused, freee's OAuth answering an
 * error, an unknown page, no session. The dashboard's screenshot is written to .local/screenshots/.
 */
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const SHOTS = join(process.cwd(), ".local", "screenshots");
let h: AdminHarness;
let browser: Browser;
let page: Page;
let taskId: string;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await startAdmin();
  taskId = (await seedTask(h, "T0001", USERS.member1.id, "11月分の交通費を登録してください", "2026-11-05T01:00:00.000Z")).taskId;
  await audit(h, { teamId: "T0001", taskId, action: "error.L4", subject: "execution#1", actor: "system", at: "2026-11-05T01:10:00.000Z", layer: "L4", errorType: "AuthError" });
  const done = (await seedTask(h, "T0001", USERS.admin1.id, "請求書を作成", "2026-11-06T01:00:00.000Z")).taskId;
  await audit(h, { teamId: "T0001", taskId: done, action: "execution.completed", subject: "execution#1", actor: "system", at: "2026-11-06T01:10:00.000Z", layer: "L4" });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe.skipIf(!hasChromium)("the web admin in Chromium", () => {
  it("not signed in: /login, sign in with Slack, and back to the page asked for; the dashboard drawn", async () => {
    await page.goto(`${h.url}/admin/dashboard?month=2026-11`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.click("text=Slack でサインイン");
    // The fake Slack's consent page: pick the member.
    await page.click(`a:has-text("${USERS.admin1.id}")`);
    await page.waitForURL(/\/admin\/dashboard\?month=2026-11$/);
    expect(await page.locator("h1").innerText()).toBe("ダッシュボード");
    expect(await page.locator('#outcomes tr[data-outcome="completed"] td.num').innerText()).toBe("1");
    expect(await page.locator('#outcomes tr[data-outcome="failed"] td.num').innerText()).toBe("1");
    expect(await page.locator("svg rect[data-outcome]").count()).toBe(2);
    mkdirSync(SHOTS, { recursive: true });
    const shot = join(SHOTS, "web-admin-dashboard.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`dashboard screenshot: ${shot}`);
  }, 60_000);

  it("タスク → タスク詳細, with the error's class and the message the user saw", async () => {
    await page.goto(`${h.url}/admin/tasks?month=2026-11`);
    await page.click("text=11月分の交通費を登録してください");
    await page.waitForURL(new RegExp(`/admin/tasks/${taskId}$`));
    const body = await page.locator("main").innerText();
    expect(body).toContain("freee 接続エラー（AuthError）");
    expect(body).toContain("freee への接続に失敗しました。管理画面で接続状態を確認してください。");
  }, 30_000);

  it("監査ログ: the CSV downloads with its BOM", async () => {
    await page.goto(`${h.url}/admin/audit?month=2026-11`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=CSV をダウンロード")]);
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString("utf8")).toContain("error.L4");
  }, 30_000);

  it("設定: a save, a save the input fails, a save the database refuses, a save another admin's came before", async () => {
    await page.goto(`${h.url}/admin/settings`);
    // The admin list offers the workspace's members by name (users.list); two picked, as a person would.
    await page.selectOption("#approvers", [USERS.approver1.id, USERS.member1.id]);
    await page.click('form[action="/admin/settings/approvers"] button[type=submit]');
    expect(await page.locator(".toast").innerText()).toBe("設定を保存しました");
    expect(await page.$$eval("#approvers option:checked", (os) => os.map((o) => (o as unknown as { value: string }).value))).toEqual([USERS.approver1.id, USERS.member1.id]);

    await page.fill("#externalTeams", "not-a-team");
    await page.click('form[action="/admin/settings/external-teams"] button[type=submit]');
    expect(await page.locator(".toast[role=alert]").innerText()).toContain(AdminMessages.settingsSaveFailed);
    expect(await page.inputValue("#externalTeams")).toBe("not-a-team");

    h.db.arm({ when: (r) => r.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem", kind: "auth" });
    await page.fill("#externalTeams", "T0PARTNER");
    await page.click('form[action="/admin/settings/external-teams"] button[type=submit]');
    expect(await page.locator(".toast[role=alert]").innerText()).toContain(AdminMessages.settingsSaveFailed);
    expect(await page.inputValue("#externalTeams")).toBe("T0PARTNER");

    // The policy form opened, then another admin saves theirs: this save is refused, the typed amount kept.
    await page.goto(`${h.url}/admin/settings`);
    const store = new TeamSettingsStore(h.table.doc, h.table.tableName);
    const { updatedAt, updatedBy: _by, ...policy } = (await store.get("T0001")).approvalPolicy;
    await store.savePolicy("T0001", { ...policy, selfApproveWrites: true }, USERS.admin2.id, updatedAt);
    await page.fill("#twoAboveYen", "250000");
    await page.selectOption("#approvers_hr", [USERS.approver1.id]);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/admin/settings/policy")), page.click('form[action="/admin/settings/policy"] button[type=submit]')]);
    expect(answer.status()).toBe(409);
    expect(await page.locator(".toast[role=alert]").innerText()).toBe(`${AdminMessages.settingsSaveFailed}。${WebAdminMessages.policyConflict}`);
    expect(await page.inputValue("#twoAboveYen")).toBe("250000");
    expect(await page.$$eval("#approvers_hr option:checked", (os) => os.map((o) => (o as unknown as { value: string }).value))).toEqual([USERS.approver1.id]);
    expect(await page.locator("#policy-stored").innerText()).toContain("依頼者本人による承認: 可");
    expect((await store.get("T0001")).approvalPolicy.twoApprovers.aboveYen).not.toBe(250000);
  }, 30_000);

  it("freee's OAuth answering an error: back on 設定 with 「freee の認証に失敗しました」", async () => {
    await page.goto(`${h.url}/admin/settings`);
    // The connect link leaves for freee's authorize page (nothing listens there in this test): freee's answer is
    // the error redirect to our callback, as freee sends it when its OAuth fails.
    await page.click("text=freee に接続").catch(() => undefined);
    await page.goto(`${h.url}/freee/callback?error=access_denied&state=none`);
    expect(new URL(page.url()).pathname).toBe("/admin/settings");
    expect(await page.locator(".toast[role=alert]").innerText()).toBe(AdminMessages.freeeAuthFailed);
  }, 30_000);

  it("an unknown page: 404 「ページが見つかりません」", async () => {
    const res = await page.goto(`${h.url}/admin/no-such-page`);
    expect(res?.status()).toBe(404);
    expect(await page.locator("h1").innerText()).toBe(AdminMessages.notFound);
  });

  it("the database stopped: 503 「データベースに接続できません」, nothing else of the page", async () => {
    let stopped = true;
    h.db.arm({ when: () => stopped, kind: "5xx", times: Number.POSITIVE_INFINITY });
    try {
      const res = await page.goto(`${h.url}/admin/tasks`);
      expect(res?.status()).toBe(503);
      expect(await page.locator("h1").innerText()).toBe(AdminMessages.databaseUnreachable);
      expect(await page.locator("table, nav").count()).toBe(0);
    } finally {
      stopped = false;
    }
  }, 30_000);

  it("signed out: back to /login", async () => {
    await page.goto(`${h.url}/admin/tasks`);
    await page.click("text=サインアウト");
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.goto(`${h.url}/admin/tasks`);
    expect(new URL(page.url()).pathname).toBe("/login");
  }, 30_000);
});
