import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminMessages, WebAdminMessages } from "../../lib/core/messages/ja";
import { PolicyEditorTexts } from "../../lib/core/messages/policy";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { MEMBER_LIST_LIMIT } from "../../lib/web-admin/people";
import { Browser, csrfOf, startAdmin, USERS, type AdminHarness } from "./harness";

/**
 * 設定 over HTTP (the web Lambda's router, DynamoDB Local behind a fault proxy, the fake Slack): the approval
 * policy's save refused three ways — a field that is not one (400), another admin's save first (409), the table
 * failing (503) — each answering the page with the form as it was posted; and the approver fields offering the
 * workspace's people by name (users.list, usergroups.list), or the id fields and why.
 */
let h: AdminHarness;
let admin1: Browser;
let settings: TeamSettingsStore;

beforeAll(async () => {
  h = await startAdmin();
  h.slack.workspace.addUser({ id: "UHANAKO", teamId: "T0001", displayName: "経理 花子", realName: "山田 花子" });
  h.slack.workspace.addUser({ id: "UTARO", teamId: "T0001", displayName: "", realName: "佐藤 太郎" });
  h.slack.workspace.addUser({ id: "UGONE", teamId: "T0001", displayName: "退職済み", deleted: true });
  h.slack.workspace.addUser({ id: "UBOTAPP", teamId: "T0001", displayName: "他のアプリ", isBot: true });
  h.slack.workspace.addUser({ id: "UOTHERTEAM", teamId: "T0002", displayName: "別ワークスペース 次郎" });
  h.slack.directory.addUsergroup({ id: "SACCT", handle: "accounting", name: "経理チーム", users: ["UHANAKO"] });
  admin1 = new Browser(h.url);
  await admin1.signIn(USERS.admin1.id);
  settings = new TeamSettingsStore(h.table.doc, h.table.tableName);
}, 60_000);
afterAll(async () => h?.close());

const page = async () => (await (await admin1.get("/admin/settings")).text());
/** The policy form's fields as the page draws them, ready to post. */
const policyForm = (body: string) => ({ _csrf: csrfOf(body), seen: /name="seen" value="([^"]*)"/.exec(body)![1]!, approvers_hr: "", approvers_accounting: "", approvers_invoices: "" });
const inputValue = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1];
const selected = (body: string, name: string) => {
  const select = new RegExp(`<select multiple="" id="${name}" name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(body)?.[1] ?? "";
  return [...select.matchAll(/<option value="([^"]+)" selected="">/g)].map((m) => m[1]);
};

describe("設定: a refused policy save keeps what was typed", () => {
  it("a field that is not one: 400 naming it, every typed value still in the form, nothing saved", async () => {
    const before = (await settings.get("T0001")).approvalPolicy;
    const res = await admin1.post("/admin/settings/policy", { ...policyForm(await page()), approvers_accounting: "UHANAKO\nnot-an-id", twoOnWarning: "1", twoAboveYen: "300000", readsRun_hr: "1" });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain(`role="alert">${AdminMessages.settingsSaveFailed}。「${WebAdminMessages.approversLabel("会計")}」: ${WebAdminMessages.badApproverId("not-an-id")}`);
    expect(body).toMatch(/<select multiple="" id="approvers_accounting" name="approvers_accounting"[^>]*aria-invalid="true"/);
    expect(selected(body, "approvers_accounting")).toEqual(["UHANAKO", "not-an-id"]);
    expect(inputValue(body, "twoAboveYen")).toBe("300000");
    expect(body).toMatch(/name="twoOnWarning" value="1" checked=""/);
    expect(body).toMatch(/name="readsRun_hr" value="1" checked=""/);

    // A user group Slack no longer lists (deleted since the page was drawn): refused like App Home's editor does.
    const gone = await admin1.post("/admin/settings/policy", { ...policyForm(await page()), approvers_hr: "SACCT\nSDELETED" });
    expect(gone.status).toBe(400);
    const goneBody = await gone.text();
    expect(goneBody).toContain(PolicyEditorTexts.unknownUsergroup(["SDELETED"]));
    expect(selected(goneBody, "approvers_hr")).toEqual(["SACCT", "SDELETED"]);

    const yen = await admin1.post("/admin/settings/policy", { ...policyForm(await page()), twoAboveYen: "30万" });
    expect(yen.status).toBe(400);
    const yenBody = await yen.text();
    expect(yenBody).toContain(`「${WebAdminMessages.aboveYenLabel}」`);
    expect(inputValue(yenBody, "twoAboveYen")).toBe("30万");
    expect((await settings.get("T0001")).approvalPolicy).toEqual(before);
  });

  it("another admin saved since the page was opened: 409 saying so, the typed form kept beside what is stored", async () => {
    const opened = await page();
    // The other admin saves from their own page first.
    const other = await admin1.post("/admin/settings/policy", { ...policyForm(opened), approvers_hr: "UTARO" });
    expect(other.status).toBe(303);
    const stored = (await settings.get("T0001")).approvalPolicy;
    const res = await admin1.post("/admin/settings/policy", { ...policyForm(opened), approvers_hr: "UHANAKO\nSACCT", twoAboveYen: "120000" });
    expect(res.status).toBe(409);
    const body = await res.text();
    expect(body).toContain(`role="alert">${AdminMessages.settingsSaveFailed}。${WebAdminMessages.policyConflict}</div>`);
    expect(selected(body, "approvers_hr")).toEqual(["UHANAKO", "SACCT"]);
    expect(inputValue(body, "twoAboveYen")).toBe("120000");
    // What is stored now, by name, beside the form; the form now carries that version.
    expect(body).toContain('<section id="policy-stored">');
    expect(body).toContain("人事労務の承認者: 佐藤 太郎");
    expect(inputValue(body, "seen")).toBe(stored.updatedAt);
    expect((await settings.get("T0001")).approvalPolicy).toEqual(stored);
    const refusal = (await h.store.listAuditByTeam("T0001")).find((e) => e.action === "settings.change_refused");
    expect(refusal?.details).toMatchObject({ setting: "approval_policy", reason: "stale_version", via: "web_admin" });
    // Saved again from that page, knowingly: it replaces the other admin's.
    const again = await admin1.post("/admin/settings/policy", { ...policyForm(body), approvers_hr: "UHANAKO\nSACCT" });
    expect(again.status).toBe(303);
    expect((await settings.get("T0001")).approvalPolicy.approvers.hr).toEqual({ userIds: ["UHANAKO"], usergroupIds: ["SACCT"] });
  });

  it("the table refusing the save: 503, the typed form kept, the failure on the audit log", async () => {
    const before = (await settings.get("T0001")).approvalPolicy;
    h.db.arm({ when: (r) => r.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem", kind: "auth" });
    const res = await admin1.post("/admin/settings/policy", { ...policyForm(await page()), approvers_invoices: "UTARO", twoAboveYen: "777" });
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(body).toContain(`role="alert">${AdminMessages.settingsSaveFailed}。${WebAdminMessages.saveUnavailable}</div>`);
    expect(selected(body, "approvers_invoices")).toEqual(["UTARO"]);
    expect(inputValue(body, "twoAboveYen")).toBe("777");
    expect((await settings.get("T0001")).approvalPolicy).toEqual(before);
    const failure = (await h.store.listAuditByTeam("T0001")).find((e) => e.action === "error.admin" && (e.details as { setting?: string }).setting === "approval_policy");
    expect(failure?.errorType).toBeDefined();
  });
});

describe("設定: approvers chosen by name", () => {
  it("offers the workspace's human members and user groups by display name, the chosen ones selected", async () => {
    await settings.save("T0001", ["UHANAKO", "UGONE"], "test");
    const body = await page();
    expect(body).not.toContain('id="people-fallback"');
    expect(body).toContain('<option value="UHANAKO" selected="">経理 花子</option>');
    // No display name: the real name.
    expect(body).toContain('<option value="UTARO">佐藤 太郎</option>');
    expect(body).toContain('<option value="SACCT" selected="">@accounting（経理チーム）</option>');
    // Not offered: a bot, Slackbot, another workspace's member; a deactivated one chosen before stays, marked.
    for (const absent of ['value="UBOTAPP"', 'value="USLACKBOT"', 'value="UOTHERTEAM"']) expect(body).not.toContain(absent);
    expect(selected(body, "approvers")).toEqual(["UHANAKO", "UGONE"]);
    expect(body).toContain(WebAdminMessages.unlistedId("UGONE"));
    // The admin list takes members only: no user group there.
    expect(/<select multiple="" id="approvers"[^>]*>([\s\S]*?)<\/select>/.exec(body)![1]).not.toContain("SACCT");
    // The choice posts as the select does (one value per chosen option), saved and audited.
    const res = await admin1.post("/admin/settings/approvers", { _csrf: csrfOf(body), approvers: "UHANAKO" });
    expect(res.status).toBe(303);
    expect((await settings.get("T0001")).adminUserIds).toEqual(["UHANAKO"]);
    expect((await h.store.listAuditByTeam("T0001")).some((e) => e.action === "settings.approvers_saved" && (e.details as { after?: string[] }).after?.join() === "UHANAKO")).toBe(true);
  });

  it("Slack failing: the id fields, the page says why, the failure audited", async () => {
    h.slack.failNext("users.list", { error: "internal_error" });
    const body = await page();
    expect(body).toContain(`<p class="notice" id="people-fallback">${WebAdminMessages.peopleUnavailable}</p>`);
    expect(inputValue(body, "approvers")).toBe("UHANAKO");
    expect(body).not.toContain("<select multiple");
    expect((await h.store.listAuditByTeam("T0001")).some((e) => e.action === "error.admin" && (e.details as { setting?: string }).setting === "people")).toBe(true);
    expect(await page()).toContain("<select multiple");
  });

  it(`more than ${MEMBER_LIST_LIMIT} members: read page by page, then the id fields and why`, async () => {
    for (let i = 0; i < MEMBER_LIST_LIMIT; i++) h.slack.workspace.addUser({ id: `UMANY${String(i).padStart(4, "0")}`, teamId: "T0001", displayName: `社員 ${i}` });
    const calls = h.slack.callsTo("users.list").length;
    const body = await page();
    expect(body).toContain(WebAdminMessages.peopleTooMany(MEMBER_LIST_LIMIT));
    expect(inputValue(body, "approvers")).toBe("UHANAKO");
    // 500 + the harness's and this file's members, 200 a page: the third page passes the limit.
    expect(h.slack.callsTo("users.list").slice(calls).map((c) => c.body.cursor ?? "")).toHaveLength(3);
  });
});
