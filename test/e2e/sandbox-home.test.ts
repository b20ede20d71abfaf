import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalStack } from "../../dev/local/local-stack";
import { SANDBOX_COMPANY, SANDBOX_HR_APPROVERS, SANDBOX_MEMBERS, SANDBOX_USER_ID } from "../../dev/local/sandbox-fakes";
import { PolicyEditorTexts } from "../../lib/core/messages/policy";
import { POLICY_ACTION_ID, POLICY_CALLBACK_ID, PolicyBlocks } from "../../lib/ingress/policy-modal";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { FreeeFirstMessages, HomeTexts } from "../../lib/core/messages/ja";
import { HOME_POLICY_BLOCK_ID, HOME_SETTINGS_BLOCK_ID, HomeActionIds } from "../../lib/ingress/home";
import { SandboxPage, type PageMessage } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * The sandbox page's App Home tab through the page's API: what the app publishes for the sandbox user (the
 * workspace's owner, so an admin) — the freee connection with its company, who may approve, the recent tasks —
 * and that its buttons work: saving the user list, and disconnecting freee, after which a request fails with
 * the freee message and the Home offers the connect link, which reconnects through the scripted freee.
 */
interface HomeElement {
  type: string;
  action_id?: string;
  url?: string;
  initial_users?: string[];
  confirm?: { text: { text: string } };
}
interface HomeBlock {
  type: string;
  block_id?: string;
  text?: { text: string };
  accessory?: HomeElement;
  elements?: HomeElement[];
}

let page: SandboxPage;
let stack: LocalStack;
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  page = await SandboxPage.start();
  stack = page.stack;
}, 180_000);
afterAll(() => page?.close());

const post = (path: string, body: unknown) => page.post(path, body);
const state = async () => (await page.state()) as unknown as { home: { blocks: HomeBlock[] } | null; messages: PageMessage[] };

/**
 * Open the tab as the page does (app_home_opened) and wait for a published view that satisfies `ready`. A view
 * published before what it waits for happened (a task the pipeline is still creating) is opened again, as a user
 * switching back to the tab would: Slack publishes nothing by itself.
 */
async function home(ready: (text: string) => boolean = () => true): Promise<{ blocks: HomeBlock[]; text: string }> {
  expect((await post("/sandbox/api/home_opened", {})).status).toBe(200);
  return waitFor("the Home tab", async () => {
    const view = (await state()).home;
    const text = view === null ? undefined : view.blocks.map((b) => b.text?.text ?? "").join("\n");
    if (view !== null && text !== undefined && ready(text)) return { blocks: view.blocks, text };
    expect((await post("/sandbox/api/home_opened", {})).status).toBe(200);
    return undefined;
  });
}
const elements = (blocks: HomeBlock[]) => blocks.flatMap((b) => [...(b.accessory === undefined ? [] : [{ block: b, el: b.accessory }]), ...(b.elements ?? []).map((el) => ({ block: b, el }))]);
const findElement = (blocks: HomeBlock[], actionId: string) => elements(blocks).find((e) => e.el.action_id === actionId);
const homeClick = (actionId: string, blockId: string | undefined, extra: Record<string, unknown> = {}) => post("/sandbox/api/action", { surface: "home", action_id: actionId, block_id: blockId, ...extra });

describe("the sandbox's App Home tab", { timeout: 60_000 }, () => {
  it("shows the freee connection with its company and a disconnect that asks first; the user list; no tasks yet", async () => {
    const { blocks, text } = await home();
    expect(text).toContain("Slack MCP Agent 管理");
    expect(text).toContain(`接続済み (${SANDBOX_COMPANY.name})`);
    const disconnect = findElement(blocks, HomeActionIds.freeeDisconnect);
    expect(disconnect?.el.confirm?.text.text).toBe(HomeTexts.disconnectConfirm);
    expect(findElement(blocks, HomeActionIds.freeeConnect)).toBeUndefined();
    const users = findElement(blocks, HomeActionIds.admins);
    expect(users?.block.block_id).toBe(HOME_SETTINGS_BLOCK_ID);
    expect(users?.el.initial_users).toBeUndefined();
    expect(text).toContain("タスクはまだありません。");
  });

  it("saves the user list from the tab and shows it; lists a request under the recent tasks", async () => {
    expect((await homeClick(HomeActionIds.admins, HOME_SETTINGS_BLOCK_ID, { type: "multi_users_select", selected_users: [SANDBOX_USER_ID] })).status).toBe(200);
    const saved = await waitFor("the saved user list", async () => {
      const view = (await state()).home;
      return view === null ? undefined : findElement(view.blocks, HomeActionIds.admins)?.el.initial_users;
    });
    expect(saved).toEqual([SANDBOX_USER_ID]);
    // The Home is republished on the next open too: the list was stored, not only drawn.
    expect(findElement((await home()).blocks, HomeActionIds.admins)?.el.initial_users).toEqual([SANDBOX_USER_ID]);

    expect((await post("/sandbox/api/message", { text: "経費の取引を見せて" })).status).toBe(200);
    // The task is created by the pipeline after the post: open the tab again until the Home lists it.
    const text = await waitFor("the request under the recent tasks", async () => {
      expect((await post("/sandbox/api/home_opened", {})).status).toBe(200);
      const shown = (await state()).home?.blocks.map((b) => b.text?.text ?? "").join("\n") ?? "";
      return shown.includes("タスクはまだありません。") || !shown.includes("最近のタスク") ? undefined : shown;
    });
    // Linked to its thread, with who asked and when (JST).
    expect(text).toMatch(/• <[^|>]+\|経費の取引を見せて> — [^—]+ — 依頼者 <@[A-Z0-9]+> \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}\)/);
    expect(JSON.stringify((await state()).home)).toContain("時刻は日本時間（JST）です。");
  });

  it("disconnects freee from the tab: the Home says so and offers the connect link; a request then stops before any plan (freee first); the link reconnects", async () => {
    const before = await home();
    const disconnect = findElement(before.blocks, HomeActionIds.freeeDisconnect)!;
    expect((await homeClick(HomeActionIds.freeeDisconnect, disconnect.block.block_id, { type: "button" })).status).toBe(200);
    const after = await waitFor("the Home after the disconnect", async () => {
      const view = (await state()).home;
      const text = view?.blocks.map((b) => b.text?.text ?? "").join("\n") ?? "";
      return text.includes(HomeTexts.disconnected) ? { blocks: view!.blocks, text } : undefined;
    });
    expect(after.text).toContain("未接続");
    expect(findElement(after.blocks, HomeActionIds.freeeDisconnect)).toBeUndefined();
    const connect = findElement(after.blocks, HomeActionIds.freeeConnect);
    expect(connect?.el.url).toMatch(/\/freee\/connect\?/);
    expect((await stack.store.listAuditByTeam(stack.sandbox.teamId)).filter((a) => a.action === "freee.disconnected").map((a) => a.actor)).toEqual([SANDBOX_USER_ID]);

    // freee first: without the connection a request ends at the Task card, before any plan is made.
    const sent = await post("/sandbox/api/message", { text: "来月から山田さんの基本給を30万円に変更して" });
    const ts = sent.body.ts as string;
    await waitFor("the freee-first stop", async () => JSON.stringify((await state()).messages.filter((m) => m.threadTs === ts)).includes(FreeeFirstMessages.notUsable));
    const thread = JSON.stringify((await state()).messages.filter((m) => m.threadTs === ts));
    expect(thread).toContain("「ホーム」タブ");
    expect(thread).not.toContain("approve_version");
    const history = await page.history(ts);
    expect(history.prompts).toEqual([]);
    expect(history.audit.map((a) => a.action)).toEqual(["task.created", "error.L1"]);

    // The connect link, followed as a browser would (it keeps the state cookie the connect page sets): the
    // connect page, the scripted freee's consent, the callback's success page.
    let url = connect!.el.url!;
    const jar = new Map<string, string>();
    let last: Response | undefined;
    for (let hop = 0; hop < 5 && url !== ""; hop += 1) {
      last = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const c of last.headers.getSetCookie()) jar.set(c.slice(0, c.indexOf("=")), c.slice(c.indexOf("=") + 1, c.indexOf(";")));
      const next = last.headers.get("location");
      url = next === null ? "" : new URL(next, url).toString();
    }
    expect(last?.status).toBe(200);
    expect(await last?.text()).toContain(SANDBOX_COMPANY.name);
    const { text } = await home((t) => t.includes("接続済み"));
    expect(text).toContain(`接続済み (${SANDBOX_COMPANY.name})`);
  });

  it("edits the approval policy from the tab: the editor lists the sandbox's user group, its submit saves and the Home shows it; a member is refused", async () => {
    const settings = new TeamSettingsStore(createDocumentClient(stack.env), stack.env.TABLE_NAME!);
    const before = await home();
    expect(before.text).toContain("人事労務の書き込みの承認者: 管理者");
    expect(findElement(before.blocks, HomeActionIds.policyEdit)?.block.block_id).toBe(HOME_POLICY_BLOCK_ID);
    expect((await homeClick(HomeActionIds.policyEdit, HOME_POLICY_BLOCK_ID, { type: "button" })).status).toBe(200);
    const editor = await waitFor("the policy editor", async () => {
      const open = stack.slack!.workspace.openView;
      return open?.view.callback_id === POLICY_CALLBACK_ID ? open : undefined;
    });
    expect(JSON.stringify(editor.view)).toContain(`"value":"${SANDBOX_HR_APPROVERS.id}"`);
    const values = {
      [PolicyBlocks.groups("hr")]: { [POLICY_ACTION_ID]: { type: "multi_static_select", selected_options: [{ text: { type: "plain_text", text: `@${SANDBOX_HR_APPROVERS.handle}` }, value: SANDBOX_HR_APPROVERS.id }] } },
      [PolicyBlocks.users("accounting")]: { [POLICY_ACTION_ID]: { type: "multi_users_select", selected_users: [SANDBOX_MEMBERS.member] } },
      [PolicyBlocks.two]: { [POLICY_ACTION_ID]: { type: "checkboxes", selected_options: [{ text: { type: "plain_text", text: "x" }, value: "warning" }] } },
      [PolicyBlocks.above]: { [POLICY_ACTION_ID]: { type: "number_input", value: "2000000" } },
      [PolicyBlocks.reads]: { [POLICY_ACTION_ID]: { type: "checkboxes", selected_options: [{ text: { type: "plain_text", text: "x" }, value: "accounting" }] } },
    };
    expect((await post("/sandbox/api/view_submission", { viewId: editor.id, values })).status).toBe(200);
    const { text } = await home((t) => t.includes("2,000,000円"));
    expect(text).toContain(`人事労務の書き込みの承認者: <!subteam^${SANDBOX_HR_APPROVERS.id}>`);
    expect(text).toContain(`会計の書き込みの承認者: <@${SANDBOX_MEMBERS.member}>`);
    expect((await settings.get(stack.sandbox.teamId)).approvalPolicy).toMatchObject({ approvers: { hr: { usergroupIds: [SANDBOX_HR_APPROVERS.id] } }, twoApprovers: { onWarning: true, aboveYen: 2_000_000 }, updatedBy: SANDBOX_USER_ID });

    // The member's tab has no edit button; a click sent anyway opens the refusal, and nothing changes.
    const member = SANDBOX_MEMBERS.member;
    expect((await post("/sandbox/api/home_opened", { as: member })).status).toBe(200);
    await waitFor("the member's Home", () => stack.slack!.workspace.homeViews.get(member));
    expect(JSON.stringify(stack.slack!.workspace.homeViews.get(member))).not.toContain(HomeActionIds.policyEdit);
    const saved = await settings.get(stack.sandbox.teamId);
    expect((await homeClick(HomeActionIds.policyEdit, HOME_POLICY_BLOCK_ID, { type: "button", as: member })).status).toBe(200);
    await waitFor("the refusal", async () => JSON.stringify(stack.slack!.workspace.openView?.view ?? {}).includes(PolicyEditorTexts.refused));
    expect(await settings.get(stack.sandbox.teamId)).toEqual(saved);
  });
});
