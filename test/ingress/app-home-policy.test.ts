import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY } from "../../lib/core/domain/approval-policy";
import { PolicyEditorTexts } from "../../lib/core/messages/policy";
import { HomeActionIds } from "../../lib/ingress/home";
import { POLICY_ACTION_ID, POLICY_CALLBACK_ID, PolicyBlocks } from "../../lib/ingress/policy-modal";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { startTestTable, type TestTable } from "../support/dynamo";
import { signedInteraction, signedJson } from "../support/slack-signing";
import { homeBlockAction, homeOpened, install, startIngress } from "./ingress-harness";

/**
 * The approval policy edited in App Home over signed Slack requests: an admin opens the editor (Slack's user and
 * user-group selectors, the groups from usergroups.list), submits it, and the policy is saved conditionally and
 * audited; a member gets a refusal and changes nothing; a bad amount, a group Slack no longer has, and a save
 * that lost the race to another admin's are each told in the modal with nothing saved.
 */
let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;
let settings: TeamSettingsStore;
const T = "TPOLICY";

beforeAll(async () => {
  [table, slack] = await Promise.all([startTestTable(), startFakeSlack()]);
  h = await startIngress(table, slack);
  await install(h, T);
  settings = new TeamSettingsStore(table.doc, table.tableName);
  slack.workspace.addUser({ id: "UOWNER", teamId: T, isOwner: true });
  for (const id of ["UMEMBER", "UHR1", "UACC1"]) slack.workspace.addUser({ id, teamId: T });
  slack.directory.addUsergroup({ id: "SHRTEAM", handle: "hr-approvers", name: "人事承認者", users: ["UHR1"] });
  slack.directory.addUsergroup({ id: "SACCTEAM", handle: "accounting", name: "経理", users: ["UACC1"] });
  slack.directory.addUsergroup({ id: "SOLDTEAM", handle: "old-team", name: "旧チーム", users: [], disabled: true });
});
beforeEach(() => slack.reset());
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));

const home = async (userId: string) => {
  await h.send(signedJson(homeOpened(T, userId)));
  return JSON.stringify(slack.workspace.homeViews.get(userId));
};

/** The Home's [ポリシーを編集] click; resolves with the modal Slack shows afterwards. */
async function openEditor(userId: string) {
  await h.send(signedInteraction(homeBlockAction(T, userId, { block_id: "home_settings_policy", action_id: HomeActionIds.policyEdit, type: "button" }, "VHOME")));
  return slack.workspace.openView;
}

type Values = Record<string, Record<string, Record<string, unknown>>>;
const pick = (block: string, value: Record<string, unknown>): Values => ({ [block]: { [POLICY_ACTION_ID]: value } });
const options = (...values: string[]) => ({ type: "checkboxes", selected_options: values.map((value) => ({ text: { type: "plain_text", text: value }, value })) });

/** The editor's submission as Slack sends it: the view's private_metadata and the state of each input. */
async function submit(userId: string, privateMetadata: string, values: Values) {
  const view = { id: "VPOLICY", team_id: T, type: "modal", callback_id: POLICY_CALLBACK_ID, private_metadata: privateMetadata, blocks: [], state: { values }, hash: "h", title: { type: "plain_text", text: "承認のポリシー" }, app_id: "A0001", bot_id: "BBOT" };
  const res = await h.send(signedInteraction({ type: "view_submission", team: { id: T, domain: "x" }, user: { id: userId, username: "u", team_id: T }, api_app_id: "A0001", token: "t", trigger_id: slack.issueTriggerId(), view }));
  expect(res.statusCode).toBe(200);
  return res.body === undefined || res.body === "" ? undefined : (JSON.parse(res.body) as { response_action: string; errors?: Record<string, string>; view?: unknown });
}

const HR_BY_GROUP: Values = {
  ...pick(PolicyBlocks.self, options()),
  ...pick(PolicyBlocks.users("hr"), { type: "multi_users_select", selected_users: [] }),
  ...pick(PolicyBlocks.groups("hr"), { type: "multi_static_select", selected_options: [{ text: { type: "plain_text", text: "@hr-approvers（人事承認者）" }, value: "SHRTEAM" }] }),
  ...pick(PolicyBlocks.users("accounting"), { type: "multi_users_select", selected_users: ["UACC1"] }),
  ...pick(PolicyBlocks.two, options("warning")),
  ...pick(PolicyBlocks.above, { type: "number_input", value: "500000" }),
  ...pick(PolicyBlocks.reads, options("accounting")),
};

describe("App Home: the approval policy", () => {
  it("the Home shows the policy to everyone; only an admin gets [ポリシーを編集]", async () => {
    const admin = await home("UOWNER");
    expect(admin).toContain(HomeActionIds.policyEdit);
    expect(admin).toContain("人事労務の書き込みの承認者: 管理者");
    expect(admin).toContain("2 人の承認: 注意事項のある書き込み・1,000,000円を超える書き込み");
    const member = await home("UMEMBER");
    expect(member).not.toContain(HomeActionIds.policyEdit);
    expect(member).toContain("依頼者本人による書き込みの承認: 不可");
  });

  it("an admin's editor: Slack's member selectors and the enabled user groups of usergroups.list, the policy preset", async () => {
    const modal = await openEditor("UOWNER");
    // The loading modal went up first (the trigger_id's 3 s), then was replaced by the editor.
    expect(slack.callsTo("views.open")).toHaveLength(1);
    expect(slack.callsTo("usergroups.list")).toHaveLength(1);
    const view = modal!.view as { callback_id: string; private_metadata: string; blocks: { block_id?: string; element?: Record<string, unknown> }[] };
    expect(view.callback_id).toBe(POLICY_CALLBACK_ID);
    expect(JSON.parse(view.private_metadata)).toEqual({ seen: null });
    const element = (block: string) => view.blocks.find((b) => b.block_id === block)?.element;
    for (const d of ["hr", "accounting", "invoices"] as const) {
      expect(element(PolicyBlocks.users(d))).toMatchObject({ type: "multi_users_select" });
      const groups = element(PolicyBlocks.groups(d)) as { type: string; options: { value: string }[] };
      expect(groups.type).toBe("multi_static_select");
      expect(groups.options.map((o) => o.value)).toEqual(["SACCTEAM", "SHRTEAM"]);
    }
    expect(element(PolicyBlocks.above)).toMatchObject({ type: "number_input", is_decimal_allowed: false, initial_value: "1000000" });
    expect(element(PolicyBlocks.reads)).toMatchObject({ initial_options: [{ value: "accounting" }, { value: "invoices" }] });
    expect(element(PolicyBlocks.self)).not.toHaveProperty("initial_options");
  });

  it("an admin's save: stored as submitted, audited with before and after, the Home says so and shows it", async () => {
    expect(await submit("UOWNER", JSON.stringify({ seen: null }), HR_BY_GROUP)).toBeUndefined();
    const saved = (await settings.get(T)).approvalPolicy;
    expect(saved).toMatchObject({
      selfApproveWrites: false,
      approvers: { hr: { userIds: [], usergroupIds: ["SHRTEAM"] }, accounting: { userIds: ["UACC1"], usergroupIds: [] }, invoices: { userIds: [], usergroupIds: [] } },
      twoApprovers: { onWarning: true, aboveYen: 500_000 },
      readsRunOnPromptApproval: { hr: false, accounting: true, invoices: false },
      updatedBy: "UOWNER",
    });
    const audit = (await h.store.listAuditByTeam(T)).filter((a) => a.action === "settings.approval_policy_saved");
    expect(audit).toEqual([expect.objectContaining({ actor: "UOWNER", layer: "admin", details: expect.objectContaining({ via: "app_home", before: DEFAULT_APPROVAL_POLICY, after: saved }) })]);
    const published = JSON.stringify(slack.workspace.homeViews.get("UOWNER"));
    expect(published).toContain(PolicyEditorTexts.saved);
    expect(published).toContain("人事労務の書き込みの承認者: <!subteam^SHRTEAM>");
    expect(published).toContain("会計の書き込みの承認者: <@UACC1>");

    // Opened again, the editor shows what was saved and is conditioned on it.
    const view = (await openEditor("UOWNER"))!.view as { private_metadata: string; blocks: { block_id?: string; element?: Record<string, unknown> }[] };
    expect(JSON.parse(view.private_metadata)).toEqual({ seen: saved.updatedAt });
    expect(view.blocks.find((b) => b.block_id === PolicyBlocks.groups("hr"))?.element).toMatchObject({ initial_options: [{ value: "SHRTEAM" }] });
    expect(view.blocks.find((b) => b.block_id === PolicyBlocks.users("accounting"))?.element).toMatchObject({ initial_users: ["UACC1"] });
  });

  it("a bad amount or a user group Slack does not list (disabled, or never there) is sent back to fix; nothing saved", async () => {
    const seen = JSON.stringify({ seen: (await settings.get(T)).approvalPolicy.updatedAt });
    const before = await settings.get(T);
    const amount = await submit("UOWNER", seen, { ...HR_BY_GROUP, ...pick(PolicyBlocks.above, { type: "number_input", value: "12.5" }) });
    expect(amount).toEqual({ response_action: "errors", errors: { [PolicyBlocks.above]: PolicyEditorTexts.badAmount } });
    const group = await submit("UOWNER", seen, { ...HR_BY_GROUP, ...pick(PolicyBlocks.groups("invoices"), { type: "multi_static_select", selected_options: [{ value: "SOLDTEAM" }, { value: "SFORGED" }] }) });
    expect(group).toEqual({ response_action: "errors", errors: { [PolicyBlocks.groups("invoices")]: PolicyEditorTexts.unknownUsergroup(["SOLDTEAM", "SFORGED"]) } });
    expect(await settings.get(T)).toEqual(before);
  });

  it("an editor opened before another admin saved: its save is refused in the modal, the other admin's policy stays", async () => {
    const stale = JSON.stringify({ seen: (await settings.get(T)).approvalPolicy.updatedAt });
    // Another admin saves in between.
    expect(await submit("UOWNER", stale, { ...HR_BY_GROUP, ...pick(PolicyBlocks.above, { type: "number_input", value: "800000" }) })).toBeUndefined();
    const theirs = await settings.get(T);
    const answer = await submit("UOWNER", stale, { ...HR_BY_GROUP, ...pick(PolicyBlocks.self, options("1")) });
    expect(answer).toMatchObject({ response_action: "update" });
    expect(JSON.stringify(answer?.view)).toContain(PolicyEditorTexts.conflict);
    expect(await settings.get(T)).toEqual(theirs);
    expect(theirs.approvalPolicy).toMatchObject({ selfApproveWrites: false, twoApprovers: { aboveYen: 800_000 } });
  });

  it("a member: the editor never opens (a refusal instead) and a crafted submission saves nothing; both are audited", async () => {
    const modal = await openEditor("UMEMBER");
    expect(JSON.stringify(modal?.view)).toContain(PolicyEditorTexts.refused);
    expect(JSON.stringify(modal?.view)).not.toContain(PolicyBlocks.users("hr"));
    expect(slack.callsTo("usergroups.list")).toHaveLength(0);
    const before = await settings.get(T);
    const answer = await submit("UMEMBER", JSON.stringify({ seen: before.approvalPolicy.updatedAt }), { ...HR_BY_GROUP, ...pick(PolicyBlocks.self, options("1")) });
    expect(JSON.stringify(answer?.view)).toContain(PolicyEditorTexts.refused);
    expect(await settings.get(T)).toEqual(before);
    const refused = (await h.store.listAuditByTeam(T)).filter((a) => a.action === "settings.change_refused");
    expect(refused.map((a) => [a.actor, a.details?.step])).toEqual([["UMEMBER", "open"], ["UMEMBER", "save"]]);
  });

  it("Slack refuses usergroups.list: the editor says it could not open, audited as error.admin; the free plan: members only", async () => {
    slack.failNext("usergroups.list", { error: "missing_scope" });
    expect(JSON.stringify((await openEditor("UOWNER"))?.view)).toContain(PolicyEditorTexts.loadFailed);
    expect((await h.store.listAuditByTeam(T)).some((a) => a.action === "error.admin" && a.actor === "UOWNER")).toBe(true);

    slack.directory.usergroupsUnavailable = true;
    try {
      const view = JSON.stringify((await openEditor("UOWNER"))?.view);
      expect(view).toContain(PolicyEditorTexts.usergroupsUnavailable);
      expect(view).not.toContain("multi_static_select");
      expect(view).toContain("multi_users_select");
      // The HR group saved earlier is said to be gone, not silently kept.
      expect(view).toContain(PolicyEditorTexts.unknownUsergroup(["SHRTEAM"]));
      expect(slack.takeRefused().map((c) => [c.method, c.error])).toEqual([["usergroups.list", "plan_upgrade_required"]]);
    } finally {
      slack.directory.usergroupsUnavailable = false;
    }
  });
});
