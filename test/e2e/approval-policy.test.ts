import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SANDBOX_CHANNELS, SANDBOX_COMPANY, SANDBOX_HR_APPROVERS, SANDBOX_MEMBERS, SANDBOX_USER_ID } from "../../dev/local/sandbox-fakes";
import { DEFAULT_APPROVAL_POLICY, READS_AFTER_PROMPT_RULE, type ApprovalRule } from "../../lib/core/domain/approval-policy";
import { SLACK_CALL } from "../../lib/core/config/client-budgets";
import { PolicyMessages } from "../../lib/core/messages/policy";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { buildLedger } from "../../lib/store/ledger";
import { SandboxPage, type PageMessage } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * Separation of duties through the sandbox's signed Slack deliveries (the page's API acting as each member): the
 * workspace runs on the default approval policy — the requester may not approve their own writes, the admins
 * approve, a plan above 1,000,000円 needs two different approvers — and each refusal changes nothing, is told to
 * the clicker alone, audited and counted.
 */
let page: SandboxPage;
let settings: TeamSettingsStore;
const TEAM = "T0SANDBOX";
beforeAll(async () => {
  page = await SandboxPage.start({ LOCAL_APPROVAL_POLICY: "default" });
  settings = new TeamSettingsStore(createDocumentClient(page.stack.env), page.stack.env.TABLE_NAME!);
}, 180_000);
afterAll(async () => page?.close());
// 山田さん's pay as seeded (280,000円) before each test: the change table's warnings (a change of 20% or more, a
// decrease) depend on it, and each completed test wrote a new one.
let seededPay: string;
beforeAll(() => void (seededPay = JSON.stringify(yamada().payRules)));
beforeEach(() => void (yamada().payRules = JSON.parse(seededPay)));
function yamada() {
  return page.stack.freee!.company(SANDBOX_COMPANY.id).employees.find((e) => e.id === 1)!;
}

const { approver, secondApprover, member } = SANDBOX_MEMBERS;

/** Send the request as the sandbox's user and approve its 実行方針 (a requester's own): the Process card waits. */
async function planWaiting(text: string, channel?: string): Promise<string> {
  const ts = await page.send(text, undefined, channel);
  expect((await page.approve(ts, "prompt")).status).toBe(200);
  // A public channel's HR card offers the private review only; others [承認].
  await waitFor("the Process card's buttons", async () => {
    const card = (await page.thread(ts)).find((m) => m.text.startsWith("実行ステップ") && m.text.endsWith("承認待ち"));
    return card !== undefined && /approve_version|review_full_plan/.test(JSON.stringify(card.blocks));
  });
  return ts;
}

async function ephemeralsOf(as: string): Promise<PageMessage[]> {
  return (await page.state(as)).messages.filter((m) => m.ephemeral === true);
}

/** The Process card's words: its sections and context lines. */
async function cardText(ts: string): Promise<string> {
  const card = (await page.thread(ts)).find((m) => m.text.startsWith("実行ステップ"));
  const blocks = (card?.blocks ?? []) as { type: string; text?: { text: string }; elements?: { text?: string }[] }[];
  return blocks.flatMap((b) => (b.type === "section" ? [b.text?.text ?? ""] : b.type === "context" ? (b.elements ?? []).map((e) => e.text ?? "") : [])).join("\n");
}
const ruleOf = async (ts: string): Promise<ApprovalRule> => (await page.history(ts)).processes[0]!.approvalRule!;

describe("e2e: the approval policy decides who approves a Process", { timeout: 90_000 }, () => {
  it("the requester's own approval of a write is refused (ephemeral, nothing changes); an admin's runs it, its audit naming the rule", async () => {
    const ts = await planWaiting("来月から山田さんの基本給を30万円に変更して");
    const before = (await ephemeralsOf(SANDBOX_USER_ID)).length;
    expect((await page.approve(ts, "process")).status).toBe(200);
    const rule = await ruleOf(ts);
    const told = await waitFor("the requester's refusal", async () => (await ephemeralsOf(SANDBOX_USER_ID)).slice(before).at(0));
    expect(told.text).toBe(PolicyMessages.refused("self_approval", rule));
    // Nobody else saw it, and nothing was decided.
    expect((await ephemeralsOf(approver)).map((m) => m.text)).not.toContain(told.text);
    let h = await page.history(ts);
    expect(h.processes[0]).toMatchObject({ status: "pending_approval" });
    expect(h.processes[0]?.approvedBy).toBeUndefined();
    expect(h.audit.filter((a) => a.action === "process.decision_refused").map((a) => a.details.reason)).toEqual(["self_approval"]);
    // The ledger (what `npm run report` and App Home read) counts it.
    expect(buildLedger(h.audit, { since: "2000-01-01", until: "2100-01-01" }).approvalRefusalsByReason).toEqual([{ reason: "self_approval", count: 1 }]);
    // The card says who may approve, and by which rules.
    const card = await cardText(ts);
    expect(card).toContain("依頼者または管理者（依頼者本人を除く）");
    expect(card).toContain("投稿時の承認ルール（既定の設定）");

    await page.approve(ts, "process", undefined, approver);
    await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
    h = await page.history(ts);
    expect(h.audit.find((a) => a.action === "process.approved")).toMatchObject({ actor: approver, details: { rule: "policy.admin" } });
    expect(h.executions.map((e) => e.status)).toEqual(["completed"]);
  });

  it("a member who is no approver is refused with an ephemeral reply; the plan still waits", async () => {
    const ts = await planWaiting("来月から山田さんの基本給を31万円に変更して");
    await page.approve(ts, "process", undefined, member);
    const told = await waitFor("the member's refusal", async () => (await ephemeralsOf(member)).at(-1));
    expect(told.text).toBe(PolicyMessages.refused("not_approver", await ruleOf(ts)));
    expect((await page.history(ts)).processes[0]?.status).toBe("pending_approval");
    expect((await ephemeralsOf(SANDBOX_USER_ID)).map((m) => m.text)).not.toContain(told.text);
  });

  it("above 1,000,000円 two different approvers are needed: the first is recorded and shown, the same person twice does not count", async () => {
    const ts = await planWaiting("来月から山田さんの基本給を120万円に変更して");
    const rule = await ruleOf(ts);
    // 280,000円 → 1,200,000円: above the amount, and a change the table warns about.
    expect(rule).toMatchObject({ required: 2, twoBecause: ["warning", "amount"], totalYen: 1_200_000 });

    await page.approve(ts, "process", undefined, approver);
    await waitFor("the first approval on the card", async () => (await cardText(ts)).includes(`承認済み: <@${approver}>。あと 1 人の承認が必要です。`));
    let h = await page.history(ts);
    expect(h.processes[0]).toMatchObject({ status: "pending_approval", approvedBy: [approver] });
    expect(h.executions).toEqual([]);
    expect(h.audit.find((a) => a.action === "process.approval_recorded")).toMatchObject({ actor: approver, details: { rule: "policy.admin", approvals: 1, required: 2 } });

    const before = (await ephemeralsOf(approver)).length;
    await page.approve(ts, "process", undefined, approver);
    const twice = await waitFor("the second click's refusal", async () => (await ephemeralsOf(approver)).slice(before).find((m) => m.text === PolicyMessages.refused("already_approved", rule)));
    expect(twice).toBeDefined();
    h = await page.history(ts);
    expect(h.processes[0]).toMatchObject({ status: "pending_approval", approvedBy: [approver] });
    expect(h.executions).toEqual([]);

    await page.approve(ts, "process", undefined, secondApprover);
    await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
    h = await page.history(ts);
    const approved = h.audit.find((a) => a.action === "process.approved");
    expect(approved).toMatchObject({ actor: secondApprover, details: { rule: "policy.admin", earlierApprovals: [{ actorId: approver, rule: "policy.admin" }] } });
    expect(h.audit.filter((a) => a.action === "process.decision_refused").map((a) => a.details.reason)).toEqual(["already_approved"]);
    expect((await cardText(ts))).toContain(`承認者: <@${approver}> <@${secondApprover}>（別々の 2 人）`);
  });

  it("a change its change table warns about (a pay cut) needs two different approvers, whatever its amount", async () => {
    // 280,000円 → 100,000円: a decrease.
    const ts = await planWaiting("来月から山田さんの基本給を10万円に変更して");
    const rule = await ruleOf(ts);
    expect(rule).toMatchObject({ required: 2, twoBecause: ["warning"], totalYen: 100_000 });
    expect((await page.history(ts)).processes[0]?.preview?.warnings?.map((w) => w.kind)).toContain("decrease");
    expect(await cardText(ts)).toContain("この計画は注意事項があるため、別々の 2 人の承認が必要です。");
    await page.approve(ts, "process", undefined, approver);
    await waitFor("the first approval on the card", async () => (await cardText(ts)).includes(`承認済み: <@${approver}>。あと 1 人の承認が必要です。`));
    expect((await page.history(ts)).executions).toEqual([]);
    await page.approve(ts, "process", undefined, secondApprover);
    await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
  });

  it("HR approvers named as a Slack user group: a member only in the group approves (usergroups.users.list); an admin outside it is refused", async () => {
    const slack = page.stack.slack!;
    const group = slack.directory.usergroups.get(SANDBOX_HR_APPROVERS.id)!;
    const members = [...group.users];
    // The group now holds the plain member alone: no admin, and named nowhere else in the policy.
    group.users.splice(0, group.users.length, member);
    const current = (await settings.get(TEAM)).approvalPolicy;
    await settings.savePolicy(TEAM, { ...DEFAULT_APPROVAL_POLICY, approvers: { ...DEFAULT_APPROVAL_POLICY.approvers, hr: { userIds: [], usergroupIds: [SANDBOX_HR_APPROVERS.id] } } }, SANDBOX_USER_ID, current.updatedAt);
    try {
      const ts = await planWaiting("来月から山田さんの基本給を33万円に変更して");
      expect(await ruleOf(ts)).toMatchObject({ approverUserIds: [], approverUsergroupIds: [SANDBOX_HR_APPROVERS.id], required: 1 });
      expect(await cardText(ts)).toContain(`*承認できる人:* <!subteam^${SANDBOX_HR_APPROVERS.id}>（依頼者本人を除く）`);

      const lookups = () => slack.callsTo("usergroups.users.list").filter((c) => c.body.usergroup === SANDBOX_HR_APPROVERS.id).length;
      const before = lookups();
      await page.approve(ts, "process", undefined, approver);
      await waitFor("the admin outside the group refused", async () => (await ephemeralsOf(approver)).some((m) => m.text === PolicyMessages.refused("not_approver", { writeDomains: ["hr"] } as ApprovalRule)));
      expect((await page.history(ts)).processes[0]?.status).toBe("pending_approval");
      expect(lookups()).toBeGreaterThan(before);

      await page.approve(ts, "process", undefined, member);
      await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
      const h = await page.history(ts);
      expect(h.audit.find((a) => a.action === "process.approved")).toMatchObject({ actor: member, details: { rule: "policy.approver_usergroup" } });
      expect(h.processes[0]?.decision).toMatchObject({ actorId: member, rule: "policy.approver_usergroup" });
      expect(h.audit.filter((a) => a.action === "process.decision_refused").map((a) => [a.actor, a.details.reason])).toEqual([[approver, "not_approver"]]);
    } finally {
      group.users.splice(0, group.users.length, ...members);
      await settings.savePolicy(TEAM, DEFAULT_APPROVAL_POLICY, SANDBOX_USER_ID, (await settings.get(TEAM)).approvalPolicy.updatedAt);
    }
  });

  it("the fault panel's user-group lookup failing at the click: nothing granted nor refused, asked to click again, audited; the next click approves", async () => {
    // A group of its own, whose membership no earlier click has asked (the ingress keeps an answer a minute).
    const clicker = secondApprover;
    const payroll = { id: "S0SANDBOXPAY", handle: "payroll-check", name: "給与の確認" };
    page.stack.slack!.directory.addUsergroup({ ...payroll, users: [clicker] });
    const current = (await settings.get(TEAM)).approvalPolicy;
    // One approval decides (whatever the change's size): the second click is the one that approves.
    const policy = { ...DEFAULT_APPROVAL_POLICY, twoApprovers: { onWarning: false, aboveYen: null }, approvers: { ...DEFAULT_APPROVAL_POLICY.approvers, hr: { userIds: [], usergroupIds: [payroll.id] } } };
    await settings.savePolicy(TEAM, policy, SANDBOX_USER_ID, current.updatedAt);
    try {
      const ts = await planWaiting("来月から山田さんの基本給を34万円に変更して");
      expect((await page.post("/sandbox/api/faults/arm", { id: "approval.usergroup-lookup", mode: "once" })).status).toBe(200);
      await page.approve(ts, "process", undefined, clicker);
      await waitFor("the member asked to click again", async () => (await ephemeralsOf(clicker)).some((m) => m.text === PolicyMessages.membershipUnknown));
      expect(page.stack.faults!.armed()?.hits).toBe(SLACK_CALL.attempts);
      let h = await page.history(ts);
      expect(h.processes[0]?.status).toBe("pending_approval");
      expect(h.audit.filter((a) => a.action === "process.decision_refused")).toEqual([]);
      expect(h.audit.find((a) => a.action === "error.ingress")).toMatchObject({ actor: clicker, errorType: "UpstreamServerError", details: { userMessage: PolicyMessages.membershipUnknown } });

      await page.approve(ts, "process", undefined, clicker);
      await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"), 30_000);
      h = await page.history(ts);
      expect(h.processes[0]?.decision).toMatchObject({ actorId: clicker, rule: "policy.approver_usergroup" });
    } finally {
      await page.post("/sandbox/api/faults/clear", {});
      page.stack.slack!.directory.usergroups.delete(payroll.id);
      await settings.savePolicy(TEAM, DEFAULT_APPROVAL_POLICY, SANDBOX_USER_ID, (await settings.get(TEAM)).approvalPolicy.updatedAt);
    }
  });

  it("a plan waiting when the policy changes is judged by the policy it was posted under; the next plan by the new one", async () => {
    const waiting = await planWaiting("来月から山田さんの基本給を32万円に変更して");
    // The admin now names the member as the only HR approver.
    const current = (await settings.get(TEAM)).approvalPolicy;
    await settings.savePolicy(TEAM, { ...DEFAULT_APPROVAL_POLICY, approvers: { ...DEFAULT_APPROVAL_POLICY.approvers, hr: { userIds: [member], usergroupIds: [] } } }, SANDBOX_USER_ID, current.updatedAt);

    const after = await planWaiting("来月から山田さんの基本給を33万円に変更して");
    expect((await ruleOf(after)).approverUserIds).toEqual([member]);
    expect((await ruleOf(waiting)).approverUserIds).toEqual([]);
    expect((await cardText(after))).toContain(`*承認できる人:* <@${member}>`);

    // The waiting plan: the admin still approves it (its snapshot), the new plan refuses the admin.
    await page.approve(after, "process", undefined, approver);
    await waitFor("the admin refused on the new plan", async () => (await ephemeralsOf(approver)).some((m) => m.text === PolicyMessages.refused("not_approver", { writeDomains: ["hr"] } as ApprovalRule)));
    expect((await page.history(after)).processes[0]?.status).toBe("pending_approval");
    await page.approve(waiting, "process", undefined, approver);
    await waitFor("the waiting plan runs", async () => (await page.thread(waiting)).some((m) => m.text === "実行 #1: 完了"));

    await page.approve(after, "process", undefined, member);
    await waitFor("the new plan runs", async () => (await page.thread(after)).some((m) => m.text === "実行 #1: 完了"));
    expect((await page.history(after)).audit.find((a) => a.action === "process.approved")).toMatchObject({ actor: member, details: { rule: "policy.approver_user" } });
    await settings.savePolicy(TEAM, DEFAULT_APPROVAL_POLICY, SANDBOX_USER_ID, (await settings.get(TEAM)).approvalPolicy.updatedAt);
  });
});

describe("e2e: a plan that only reads runs on the 実行方針 approval where the policy allows", { timeout: 90_000 }, () => {
  const processCard = async (ts: string) => (await page.thread(ts)).find((m) => m.text.startsWith("実行ステップ"));

  it("an accounting read (default: allowed): no Process click — the card informs, the audit names the rule and the 実行方針's approver", async () => {
    const ts = await page.send("今月の取引の一覧を確認して");
    expect((await page.approve(ts, "prompt")).status).toBe(200);
    await waitFor("完了 without a Process click", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
    const h = await page.history(ts);
    expect(h.processes[0]).toMatchObject({ status: "approved", decision: { actorId: SANDBOX_USER_ID, rule: READS_AFTER_PROMPT_RULE } });
    expect(h.processes[0]?.approvalRule).toMatchObject({ writes: false, readDomains: ["accounting"], autoApproved: true });
    expect(h.audit.find((a) => a.action === "process.approved")).toMatchObject({ actor: SANDBOX_USER_ID, details: { rule: READS_AFTER_PROMPT_RULE } });
    expect(h.audit.some((a) => a.action === "process.approval_requested")).toBe(false);
    expect(h.executions.map((e) => e.status)).toEqual(["completed"]);
    expect(buildLedger(h.audit, { since: "2000-01-01", until: "2100-01-01" }).processApprovalsByRule).toEqual([{ rule: READS_AFTER_PROMPT_RULE, count: 1 }]);
    // The 実行ステップ card is information: what runs, by whose approval, and no button.
    const card = await processCard(ts);
    expect(JSON.stringify(card?.blocks)).not.toMatch(/approve_version|review_full_plan|reject_version/);
    expect(await cardText(ts)).toContain(PolicyMessages.readsAfterPrompt(SANDBOX_USER_ID));
    expect(await cardText(ts)).toContain(PolicyMessages.readsAfterPromptNote(["accounting"]));
  });

  it("accounting reads switched off by an admin: the Process card waits for its approval as any plan (and HR reads always do by default)", async () => {
    const current = (await settings.get(TEAM)).approvalPolicy;
    await settings.savePolicy(TEAM, { ...DEFAULT_APPROVAL_POLICY, readsRunOnPromptApproval: { ...DEFAULT_APPROVAL_POLICY.readsRunOnPromptApproval, accounting: false } }, SANDBOX_USER_ID, current.updatedAt);
    try {
      const ts = await planWaiting("経費の取引を見せて");
      const h = await page.history(ts);
      expect(h.processes[0]).toMatchObject({ status: "pending_approval", approvalRule: { writes: false, autoApproved: false } });
      expect(h.executions).toEqual([]);
      // A read-only plan: its requester may approve it.
      await page.approve(ts, "process");
      await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
      expect((await page.history(ts)).audit.find((a) => a.action === "process.approved")).toMatchObject({ actor: SANDBOX_USER_ID, details: { rule: "policy.requester", via: "card" } });
    } finally {
      await settings.savePolicy(TEAM, DEFAULT_APPROVAL_POLICY, SANDBOX_USER_ID, (await settings.get(TEAM)).approvalPolicy.updatedAt);
    }
  });
});

describe("e2e: results with HR personal data are shown only to the requester", { timeout: 90_000 }, () => {
  it("a pay change in a public channel: the card shows no amount; the approver sees them in the private modal and approves there", async () => {
    const ts = await planWaiting("来月から山田さんの基本給を32万円に変更して", SANDBOX_CHANNELS.public);
    expect(await ruleOf(ts)).toMatchObject({ maskAmounts: true });
    const card = await cardText(ts);
    expect(card).toContain("山田 太郎 基本給の変更 — 金額は承認できる人にだけ表示されます");
    const slack = page.stack.slack!;
    const inChannel = () => slack.calls.filter((c) => (c.method === "chat.postMessage" || c.method === "chat.update") && c.body.channel === SANDBOX_CHANNELS.public).map((c) => JSON.stringify(c.body));
    for (const body of inChannel()) expect(body).not.toMatch(/320,000|280,000|pay_amount/);
    // No [承認] on the public card; a crafted card click is refused by the write as well.
    const buttons = JSON.stringify((await page.thread(ts)).find((m) => m.text.startsWith("実行ステップ"))?.blocks);
    expect(buttons).toContain("review_full_plan");
    expect(buttons).not.toContain("approve_version");
    expect(buttons).not.toContain("show_step_input");
    const forged = await page.post("/sandbox/api/action", { action_id: "approve_version", value: JSON.stringify({ taskId: page.taskIdOf(ts), kind: "process", version: 1 }), ts: (await page.thread(ts)).find((m) => m.text.startsWith("実行ステップ"))!.ts, as: approver });
    expect(forged.status).toBe(200);
    await waitFor("the forged click refused", async () => (await ephemeralsOf(approver)).some((m) => m.text === PolicyMessages.approveInPrivate));
    expect((await page.history(ts)).processes[0]?.status).toBe("pending_approval");

    // The approver opens the full plan: the amounts are in the modal only they see, and its submit approves.
    const opensBefore = slack.callsTo("views.open").length;
    await page.click(ts, "review_full_plan", (v) => v.kind === "process", approver);
    await waitFor("the full-plan modal", () => slack.callsTo("views.open").length > opensBefore && slack.workspace.openView);
    const modal = slack.workspace.openView!;
    expect(JSON.stringify(modal.view)).toContain("320,000円");
    const ack = await page.post("/sandbox/api/view_submission", { viewId: modal.id, values: {}, as: approver });
    expect(ack.status).toBe(200);
    await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
    const h = await page.history(ts);
    expect(h.audit.find((a) => a.action === "process.approved")).toMatchObject({ actor: approver, details: { via: "full_plan", rule: "policy.admin" } });
    for (const body of inChannel()) expect(body).not.toMatch(/320,000|280,000/);
  });

  it("an HR read in the public channel goes to the requester's DM; the thread says so and holds none of it", async () => {
    const ts = await planWaiting("今月の従業員の一覧を見せて", SANDBOX_CHANNELS.public);
    // A read-only plan: the requester approves it (the policy forbids self-approval of writes only).
    await page.approve(ts, "process");
    await waitFor("完了", async () => (await page.thread(ts)).some((m) => m.text === "実行 #1: 完了"));
    const h = await page.history(ts);
    const run = h.executions[0]!;
    expect(run.progress?.steps?.find((s) => s.stepId === "s1")?.personal).toContain("pay_amount");
    expect(run.privateDelivery).toMatchObject({ to: "requester_dm", requesterId: SANDBOX_USER_ID, stepIds: ["s1"] });
    const dmChannel = run.privateDelivery!.channelId!;
    expect(dmChannel).toMatch(/^D/);
    expect(h.audit.find((a) => a.action === "execution.results_sent_privately")).toMatchObject({ details: { sent: true, steps: ["s1"] } });

    const slack = page.stack.slack!;
    const inDm = slack.workspace.messages.filter((m) => m.channel === dmChannel);
    const dmText = inDm.map((m) => JSON.stringify(m.blocks ?? m.text)).join("\n");
    expect(dmText).toContain("山田 太郎");
    // The channel: every message the app posted or updated there, and the card's own words — no employee.
    const inThread = new Set(slack.workspace.thread(ts).map((m) => m.ts));
    const channelCalls = slack.calls.filter((c) => (c.method === "chat.postMessage" || c.method === "chat.update") && c.body.channel === SANDBOX_CHANNELS.public && (c.body.thread_ts === ts || inThread.has(String(c.body.ts))));
    expect(channelCalls.length).toBeGreaterThan(0);
    for (const call of channelCalls) expect(JSON.stringify(call.body)).not.toContain("山田 太郎");
    expect(slack.calls.filter((c) => c.method === "files.completeUploadExternal").every((c) => !String(c.body.channel_id ?? "").startsWith("C"))).toBe(true);
    const card = (await page.thread(ts)).find((m) => m.text === "実行 #1: 完了");
    expect(JSON.stringify(card?.blocks)).toContain(`依頼者 <@${SANDBOX_USER_ID}> に DM で送りました`);
  });
});
