import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionCardTexts as T, WriteOutcomeUnknownMessages } from "../../lib/core/messages/ja";
import { PlanMessages } from "../../lib/preview/plan";
import { RunGuidanceTexts } from "../../lib/core/messages/run-guidance";
import { SANDBOX_USER_ID } from "../../dev/local/sandbox-fakes";
import { SandboxPage, sections, type PageMessage } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * Cards an accountant can sign, in the sandbox (`npm run dev` without credentials: the scripted model, the strict
 * freee fake, the real MCP server), driven through the page's API — every click a signed Slack delivery. The
 * Process card shows the change table with warnings read from freee, the approve button's confirm dialog repeats
 * them, a change to what freee already holds is dropped (never approved), and the Execution card restates the
 * table with each row's outcome and freee link — also when a write may have landed, or freee refused a permission.
 */
let page: SandboxPage;
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  page = await SandboxPage.start({ FREEE_READ_TIMEOUT_MS: "500", POLL_INTERVAL_SECONDS: "1", RUN_TIMEOUT_SECONDS: "100", LOCAL_FREEE_WAIT_DIVISOR: "100" });
}, 180_000);
afterAll(async () => page?.close());

interface Confirm {
  title: { text: string };
  text: { text: string };
}
/** The approve button's confirm dialog on the Process card. */
function confirmOf(card: PageMessage): Confirm | undefined {
  for (const b of (card.blocks ?? []) as { elements?: { action_id?: string; confirm?: Confirm }[] }[]) {
    const approve = b.elements?.find((e) => e.action_id === "approve_version");
    if (approve !== undefined) return approve.confirm;
  }
  return undefined;
}

/** Send the request, approve the plan: the Process card awaiting approval. */
async function processCard(text: string): Promise<{ ts: string; card: PageMessage }> {
  const ts = await page.send(text);
  await page.approve(ts, "prompt");
  const card = await waitFor("the Process card awaiting approval", async () => (await page.thread(ts)).find((m) => m.text === "実行ステップ v1: 承認待ち"));
  return { ts, card };
}

/** Approve the Process and wait for run 1 to end (any status): its card's sections and its history. */
async function runEnds(ts: string) {
  await page.approve(ts, "process");
  await waitFor("run 1 ends", async () => ["completed", "failed", "timed_out", "cancelled"].includes((await page.history(ts)).executions[0]?.status ?? ""));
  await page.settled(ts);
  const last = (await page.thread(ts)).find((m) => m.text.startsWith("実行 #1: "))!;
  return { card: last, text: sections(last).join("\n"), history: await page.history(ts) };
}

const MONTH = /\d{4}年\d{1,2}月支給分から/.source;
const INTERNALS = /freee_(hr|accounting|api)_\w+|agent_decide|(?<![A-Za-z0-9])s\d+(?![A-Za-z0-9])|トークン|:no_entry:/;

describe("sandbox: cards an accountant can sign", { timeout: 120_000 }, () => {
  it("a pay cut 佐藤 花子 320,000円 → 250,000円: the row, ⚠️ decrease and size, the confirm dialog; 完了 restates it with ✓ and the freee link", async () => {
    const { ts, card } = await processCard("来月から佐藤さんの基本給を25万円に変更して");
    const shown = sections(card).join("\n");
    expect(shown).toMatch(new RegExp(`従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円 ｜ -70,000円（-21\\.9%） ｜ ${MONTH}`));
    const warned = shown.split("\n").filter((l) => l.startsWith("⚠️ 従業員 佐藤 花子"));
    expect(warned).toHaveLength(2);
    expect(warned[0]).toBe("⚠️ 従業員 佐藤 花子 の基本給が下がります: 320,000円 → 250,000円（-70,000円（-21.9%））。");
    expect(JSON.stringify(card.blocks)).toContain("*対象の事業所: ");
    expect(shown).not.toMatch(INTERNALS);
    const confirm = confirmOf(card);
    expect(confirm?.text.text.split("\n").filter((l) => l.startsWith("⚠️ "))).toEqual(["⚠️ 減額 -70,000円（-21.9%）: 従業員 佐藤 花子 基本給", "⚠️ 大きな変更 -21.9%: 従業員 佐藤 花子 基本給"]);

    const { text, history } = await runEnds(ts);
    expect(history.executions[0]?.status).toBe("completed");
    expect(text).toMatch(new RegExp(`\\*2\\. 基本給の変更\\* <https://p\\.secure\\.freee\\.co\\.jp/employees/2\\|freee で開く>\\n✓ ｜ 従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円`));
    expect(text).toContain(T.nothingElse);
    expect(text).not.toMatch(INTERNALS);
  });

  it("a pay type change 鈴木 一郎 時給 1,500円 → 月給 280,000円: both rows and ⚠️ pay type, in the confirm dialog too", async () => {
    const { ts, card } = await processCard("来月から鈴木さんの基本給を28万円に変更して");
    const shown = sections(card).join("\n");
    expect(shown).toMatch(new RegExp(`従業員 鈴木 一郎 ｜ 給与形態 ｜ 時給 → 月給 ｜ — ｜ ${MONTH}`));
    expect(shown).toMatch(new RegExp(`従業員 鈴木 一郎 ｜ 基本給 ｜ 1,500円 → 280,000円 ｜ — ｜ ${MONTH}`));
    expect(shown).toContain("⚠️ 従業員 鈴木 一郎 の給与形態が変わります: 時給 → 月給（単位が違うため金額の差は比べられません）。");
    expect(confirmOf(card)?.text.text).toContain("⚠️ 給与形態の変更（時給 → 月給）: 従業員 鈴木 一郎");
    expect(shown).not.toMatch(INTERNALS);
    expect(ts).toBeDefined();
  });

  it("a no-op 高橋 美咲 340,000円 → 340,000円: dropped with a note, nothing to approve, only 却下", async () => {
    const ts = await page.send("来月から高橋さんの基本給を34万円に変更して");
    await page.approve(ts, "prompt");
    const card = await waitFor("the Process card awaiting a decision", async () => (await page.thread(ts)).find((m) => m.text === "実行ステップ v1: 承認待ち"));
    const shown = sections(card).join("\n");
    expect(shown).toContain("は freee の現在の値と同じため、プランから外しました。承認しても実行されません。");
    expect(shown).toContain(PlanMessages.noChanges);
    expect(JSON.stringify(card.blocks)).not.toContain("approve_version");
    const history = await page.history(ts);
    expect(history.processes[0]?.preview?.status).toBe("no_changes");
  });

  it("freee answers 503 to the write and its read-back: 確認が必要 on the row, the employee's freee page, never 「書き込みはありません」", async () => {
    // 山田 太郎 (280,000円): an employee no other test here writes to.
    const { ts } = await processCard("来月から山田さんの基本給を31万円に変更して");
    expect((await page.post("/sandbox/api/faults/arm", { id: "freee.5xx", mode: "every" })).status).toBe(200);
    try {
      const { text, history } = await runEnds(ts);
      expect(history.executions[0]).toMatchObject({ status: "failed", errorName: "WriteOutcomeUnknownError" });
      expect(text).toContain(WriteOutcomeUnknownMessages.slack);
      expect(text).toMatch(new RegExp(`\\*2\\. 基本給の変更\\* <https://p\\.secure\\.freee\\.co\\.jp/employees/1\\|freee で開く>\\n確認が必要 ｜ 従業員 山田 太郎 ｜ 基本給 ｜ 280,000円 → 310,000円`));
      expect(text).toContain(T.unknownWrites);
      expect(text).not.toMatch(new RegExp(`(?<!このほかに )${T.noWrites}`));
      expect(text).not.toMatch(INTERNALS);
    } finally {
      await page.post("/sandbox/api/faults/clear", {});
    }
  });

  it("freee answers 403: the card names the missing permission, lists no step as run, and offers no [再実行]", async () => {
    const { ts } = await processCard("来月から佐藤さんの基本給を27万円に変更して");
    expect((await page.post("/sandbox/api/faults/arm", { id: "freee.403", mode: "every" })).status).toBe(200);
    try {
      const { card, text } = await runEnds(ts);
      expect(text).toContain("ℹ️ freee が権限不足のため「1. 指定した年月に在籍する従業員の一覧を取得します」を拒否しました (403)。足りない権限: freee 人事労務の「従業員」の参照。");
      expect(text).toContain("*実行したステップ*: なし");
      expect(text).toMatch(/✗ ｜ 従業員 佐藤 花子|未実行 ｜ 従業員 佐藤 花子/);
      expect(JSON.stringify(card.blocks)).not.toContain("rerun_execution");
      expect(text).not.toMatch(INTERNALS);
    } finally {
      await page.post("/sandbox/api/faults/clear", {});
    }
  });

  it("an older card's [再実行] after a 403: a clear ephemeral reply, no run started (a signed click)", async () => {
    const { ts } = await processCard("来月から佐藤さんの基本給を26万円に変更して");
    const done = (n: number) => async () => ["failed", "completed", "timed_out", "cancelled"].includes((await page.history(ts)).executions[n - 1]?.status ?? "");
    // Run 1 stops at a 404: its card offers [再実行].
    expect((await page.post("/sandbox/api/faults/arm", { id: "freee.404", mode: "every" })).status).toBe(200);
    try {
      await page.approve(ts, "process");
      await waitFor("run 1 ends", done(1));
      await page.settled(ts);
      const older = await page.button(ts, "rerun_execution", (v) => v.executionNo === 1);
      expect(sections((await page.thread(ts)).find((m) => m.text.startsWith("実行 #1: "))!).join("\n")).toContain("ℹ️ freee に見つかりませんでした (404): 「1. ");
      // Rerun into a 403: run 2's card offers no [再実行].
      expect((await page.post("/sandbox/api/faults/arm", { id: "freee.403", mode: "every" })).status).toBe(200);
      expect((await page.post("/sandbox/api/action", older)).status).toBe(200);
      await waitFor("run 2 ends", done(2));
      await page.settled(ts);
      expect((await page.history(ts)).executions[1]).toMatchObject({ status: "failed", errorName: "FreeeForbiddenError" });
      expect(JSON.stringify((await page.thread(ts)).map((m) => m.blocks))).not.toContain("rerun_execution");
      await page.post("/sandbox/api/faults/clear", {});

      // The permission is still missing as far as the product knows: run 1's old button, clicked again, starts nothing.
      const before = (await page.state(SANDBOX_USER_ID)).messages.filter((m) => m.ephemeral === true).length;
      expect((await page.post("/sandbox/api/action", older)).status).toBe(200);
      const told = await waitFor("the refusal", async () => (await page.state(SANDBOX_USER_ID)).messages.filter((m) => m.ephemeral === true).slice(before).at(0));
      expect(told.text).toBe(RunGuidanceTexts.rerunRefused("1. 指定した年月に在籍する従業員の一覧を取得します", "freee 人事労務の「従業員」の参照"));
      // A click forged for run 2's card is refused the same way.
      expect((await page.post("/sandbox/api/action", { ...older, value: JSON.stringify({ ...JSON.parse(older.value), executionNo: 2 }) })).status).toBe(200);
      await waitFor("the second refusal", async () => (await page.state(SANDBOX_USER_ID)).messages.filter((m) => m.ephemeral === true).length >= before + 2);
      await page.settled(ts);
      const history = await page.history(ts);
      expect(history.executions.map((e) => e.status)).toEqual(["failed", "failed"]);
      expect(history.task).toMatchObject({ status: "failed", executionCount: 2 });
      expect(history.audit.filter((a) => a.action === "execution.started")).toHaveLength(2);
    } finally {
      await page.post("/sandbox/api/faults/clear", {});
    }
  });
});
