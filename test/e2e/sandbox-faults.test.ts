import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalStack } from "../../dev/local/local-stack";
import { SANDBOX_COMPANY } from "../../dev/local/sandbox-fakes";
import { SlackMessages } from "../../lib/core/messages/ja";
import { SandboxPage } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * The sandbox's fault panel through the page's API (/sandbox/api/*), on the `npm run dev` stack without
 * credentials: a fault armed by a click reaches the user as docs/architecture.md says (every attempt fails), or shows its
 * retry row recovering (it hits once); App Home is the view the app publishes; a click the app refuses comes
 * back as an error the page shows. The waits are shrunk; the retry rows are the synthesized state machines'.
 */
let page: SandboxPage;
let stack: LocalStack;
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  page = await SandboxPage.start({ L1_TIMEOUT_MS: "800", RUN_TIMEOUT_SECONDS: "8", POLL_INTERVAL_SECONDS: "1" });
  stack = page.stack;
}, 180_000);
afterAll(() => page?.close());

const state = () => page.state();
const post = (path: string, body: unknown) => page.post(path, body);
/** Everything the thread shows: fallback texts and every text inside the blocks. */
const threadText = async (ts: string) => JSON.stringify(await page.thread(ts));
const click = (ts: string, kind: "prompt" | "process") => page.approve(ts, kind);
const approveButton = (ts: string, kind: "prompt" | "process") => page.button(ts, "approve_version", (v) => v.kind === kind);

async function request(text: string, fault?: { id: string; mode: "once" | "every" }) {
  if (fault !== undefined) expect((await post("/sandbox/api/faults/arm", fault)).status).toBe(200);
  const sent = await post("/sandbox/api/message", { text });
  expect(sent.status).toBe(200);
  return sent.body.ts as string;
}

const seen = (ts: string, text: string) => waitFor(`「${text}」 in the thread`, async () => (await threadText(ts)).includes(text));
const PAY = "来月から山田さんの基本給を30万円に変更して";

describe("the sandbox's fault panel", { timeout: 90_000 }, () => {
  it("lists a fault of every family, and refuses one it does not know", async () => {
    const { body } = await fetch(`${stack.url}/sandbox/api/faults`).then(async (r) => ({ body: (await r.json()) as { catalogue: { id: string; family: string }[] } }));
    expect(new Set(body.catalogue.map((f) => f.family))).toEqual(new Set(["layer", "preview", "agent", "freee", "approval"]));
    for (const layer of ["L1", "L2", "L3"]) for (const kind of ["empty", "truncated", "refused", "529", "timeout"]) expect(body.catalogue.map((f) => f.id)).toContain(`${layer}.${kind}`);
    expect((await post("/sandbox/api/faults/arm", { id: "no.such", mode: "once" })).status).toBe(400);
  });

  it("layer: L1 empty on every attempt → 「タスクの解析に失敗しました…」 after the retry row's one retry", async () => {
    const ts = await request(PAY, { id: "L1.empty", mode: "every" });
    await seen(ts, SlackMessages.l1Failed);
    expect((await state()).faults?.armed).toMatchObject({ id: "L1.empty", hits: 2 });
  });

  it("layer: L1 timeout once → retried, the plan comes (UpstreamTimeoutError row)", async () => {
    const ts = await request(PAY, { id: "L1.timeout", mode: "once" });
    await click(ts, "prompt");
    expect((await state()).faults?.armed).toMatchObject({ id: "L1.timeout", hits: 1 });
    // The task goes on to the Process card: the next fault must not meet this task's L3.
    await approveButton(ts, "process");
  });

  it("layer: L3 refused → 「実行ステップの生成に失敗しました…」 with no retry", async () => {
    const ts = await request(PAY, { id: "L3.refused", mode: "once" });
    await click(ts, "prompt");
    await seen(ts, SlackMessages.l3Failed);
  });

  it("preview: freee refuses the preview's read (401) → 「freee への接続に失敗しました…」", async () => {
    const ts = await request(PAY, { id: "preview.401", mode: "every" });
    await click(ts, "prompt");
    await seen(ts, SlackMessages.freeeConnectionFailed);
  });

  it("agent: session error → 「実行中にエラーが発生しました…」 and the reason; run timeout → 「実行がタイムアウトしました…」", async () => {
    const ts = await request(PAY, { id: "agent.session-error", mode: "every" });
    await click(ts, "prompt");
    await click(ts, "process");
    await seen(ts, SlackMessages.l4Failed);
    await seen(ts, "エージェントのセッションでエラーが発生しました。");
    const slow = await request(PAY, { id: "agent.run-timeout", mode: "every" });
    await click(slow, "prompt");
    await click(slow, "process");
    await seen(slow, SlackMessages.l4TimedOut);
  });

  it("freee: an expired token once is refreshed and the run completes; refresh refused (invalid_grant) → 「freee への接続に失敗しました…」 and App Home asks to reconnect", async () => {
    const ts = await request("来月から佐藤さんの基本給を35万円に変更して", { id: "freee.401-expired", mode: "once" });
    await click(ts, "prompt");
    await click(ts, "process");
    await seen(ts, "完了");
    expect((await state()).faults?.armed).toMatchObject({ id: "freee.401-expired", hits: 1 });
    // The scripted model named 佐藤; the preview resolved the name against the scripted freee: employee 2.
    const employees = stack.freee!.company(SANDBOX_COMPANY.id).employees;
    expect(employees.find((e) => e.id === 2)!.payRules.at(-1)?.pay_amount).toBe(350_000);
    expect(employees.find((e) => e.id === 1)!.payRules.at(-1)?.pay_amount).toBe(280_000);

    const broken = await request(PAY, { id: "freee.refresh-invalid-grant", mode: "every" });
    await click(broken, "prompt");
    await click(broken, "process");
    await seen(broken, SlackMessages.freeeConnectionFailed);
    expect((await post("/sandbox/api/home_opened", {})).status).toBe(200);
    const home = await waitFor("the Home tab", async () => (await state()).home ?? undefined);
    expect(JSON.stringify(home)).toContain("再接続が必要です");
  });

  it("App Home: the view the app publishes, with the names the page renders; a Home click the app refuses is an error for the page", async () => {
    expect((await post("/sandbox/api/home_opened", {})).status).toBe(200);
    const home = await waitFor("the Home tab", async () => (await state()).home ?? undefined);
    expect(JSON.stringify(home)).toContain("Slack MCP Agent 管理");
    expect(JSON.stringify(home)).toContain("freee 接続");
    expect((await state()).names).toMatchObject({ USANDBOXUSER: "あなた" });
    // A card click on a message that is not on the page: the sandbox refuses it (400) and says why.
    const bad = await post("/sandbox/api/action", { action_id: "approve_version", ts: "1.000" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("ts of a shown message");
  });
});
