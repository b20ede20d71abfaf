import { afterAll, beforeAll, expect, it } from "vitest";
import { SANDBOX_USER_ID } from "../../dev/local/sandbox-fakes";
import { AdminMessages } from "../../lib/core/messages/ja";
import { freeeRecordUrl } from "../../lib/freee/web-links";
import { jst, ruleLabel } from "../../lib/web-admin/labels";
import { Browser, csrfOf } from "../web-admin/harness";
import { SandboxPage } from "./sandbox-page";

/**
 * `npm run dev` with no credentials serves the web admin on its own port: sign-in through the fake Slack's OpenID
 * endpoints (its chooser page lists the sandbox's members), a request made on the sandbox page shows up in タスク
 * and its trail, 設定 saves, the sandbox page links to /admin.
 */
let page: SandboxPage;
let b: Browser;
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  page = await SandboxPage.start();
}, 180_000);
afterAll(() => page?.close());

it("signs in through the fake Slack and shows the sandbox's tasks, trail and settings", async () => {
  const url = page.stack.url;
  expect(await (await fetch(`${url}/sandbox`)).text()).toContain('href="/admin"');
  await page.post("/sandbox/api/message", { text: "経費の取引を見せて" });

  b = new Browser(url);
  const asked = await b.get("/admin/tasks");
  expect(asked.headers.get("location")).toBe("/login?next=%2Fadmin%2Ftasks");
  const authorize = (await b.get("/login/slack?next=%2Fadmin%2Ftasks")).headers.get("location")!;
  // Slack's consent page, as the fake plays it: the members to sign in as.
  const chooser = await (await fetch(authorize)).text();
  const pick = /href="([^"]+)"/.exec(chooser)![1]!.replaceAll("&amp;", "&");
  expect(pick).toContain(`user=${SANDBOX_USER_ID}`);
  const back = await fetch(new URL(pick, url), { redirect: "manual" });
  const tasks = await b.follow(await b.get(back.headers.get("location")!));
  expect(tasks.status).toBe(200);
  const html = await tasks.text();
  expect(html).toContain("あなた（管理者）");
  const detail = /href="(\/admin\/tasks\/[^"]+)"/.exec(html)?.[1];
  expect(detail).toBeDefined();
  expect(await (await b.get(detail!)).text()).toContain("経費の取引を見せて");

  const settings = await (await b.get("/admin/settings")).text();
  const saved = await b.post("/admin/settings/approvers", { _csrf: csrfOf(settings), approvers: SANDBOX_USER_ID });
  expect(saved.status).toBe(303);
  expect(await (await b.follow(saved)).text()).toContain("設定を保存しました");
  expect((await b.get("/admin/nothing-here")).status).toBe(404);
  expect(await (await b.get("/admin/nothing-here")).text()).toContain(AdminMessages.notFound);
}, 120_000);

it("タスク詳細 holds the whole trail of a request run to the end: each decision with who, when and the rule, the change table, the write with its freee link", async () => {
  const { history } = await page.runToCompletion("来月から山田さんの基本給を30万円に変更して");
  const html = await (await b.get(`/admin/tasks/${history.task.taskId}`)).text();
  const row = (...cells: string[]) => expect(html).toContain(cells.map((c) => `<td>${c}</td>`).join(""));
  // The request.
  expect(html).toContain("来月から山田さんの基本給を30万円に変更して");
  // Each version with its decision: who, when (JST), and for the Process the policy rule that allowed it.
  const [prompt, process] = [history.prompts[0]!, history.processes.at(-1)!];
  for (const v of [prompt, process]) {
    expect(v.decision?.actorId).toBe(SANDBOX_USER_ID);
    row(`${v.kind === "prompt" ? "実行方針" : "実行計画"} v${v.version}`, "承認", SANDBOX_USER_ID, jst(v.decision!.decidedAt));
  }
  expect(process.decision?.rule).toBe("policy.requester");
  expect(html).toContain(`この判断のルール: ${ruleLabel("policy.requester")}`);
  // The change table: each change of the approved plan, before → after.
  const changes = (process.preview?.steps ?? []).flatMap((st) => st.changes.map((ch) => ({ step: `${st.stepId} ${st.title}`, ...ch })));
  expect(changes.length).toBeGreaterThan(0);
  for (const ch of changes) row(escape(ch.step), escape(ch.label), escape(ch.before ?? "—"), escape(ch.after));
  // Each write's outcome with its freee link.
  const run = history.executions[0]!;
  const records = run.writes?.records ?? [];
  expect(records.length).toBeGreaterThan(0);
  for (const r of records) expect(html).toContain(`<a href="${escape(freeeRecordUrl(r))}" rel="noreferrer">freee で開く</a>`);
  expect(html).toContain("書き込み済み（");
  expect(html).toContain("エラーはありません。");
}, 120_000);

/** As the page's JSX escapes text (hono/jsx). */
function escape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}
