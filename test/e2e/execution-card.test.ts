import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionCardTexts, NotARequestMessages } from "../../lib/core/messages/ja";
import { rowText } from "../../lib/preview/rows";
import { SandboxPage, sections } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * Issue 16 in the sandbox (`npm run dev`, no credentials): the 完了 card says what changed in freee in words — the
 * preview's before → after of each write the MCP server recorded done, linked to the record in freee — and shows
 * what a read returned; 「こんにちは」 gets a short reply and no plan. Driven through the page's API, as a user.
 */
let page: SandboxPage;
beforeAll(async () => {
  page = await SandboxPage.start();
}, 180_000);
afterAll(async () => page?.close());

/** Send the request, approve the plan and the Process, wait for 完了; the 完了 card's sections and the task's history. */
async function runToCompletion(text: string) {
  const { card, history } = await page.runToCompletion(text);
  return { card: sections(card), history };
}

describe("sandbox: the Execution card says what happened", { timeout: 90_000 }, () => {
  it("a pay change: 完了 with the before → after of the write, linked to the employee in freee, every step ✓", async () => {
    const { card, history } = await runToCompletion("来月から山田さんの基本給を30万円に変更して");
    const write = history.processes[0]?.steps?.find((s) => s.tool === "freee_hr_update_basic_pay_rule");
    const preview = history.processes[0]?.preview?.steps.find((p) => p.stepId === write?.stepId);
    expect(preview?.rows).toHaveLength(1);
    const changed = card.find((t) => t.startsWith(`*${ExecutionCardTexts.changedHead}*`));
    // The row the approver saw, now with its outcome.
    expect(changed).toContain(`✓ ｜ ${rowText(preview!.rows![0]!, preview?.current)}`);
    expect(changed).toContain(`<https://p.secure.freee.co.jp/employees/${String(write?.toolInput.employee_id)}|freee で開く>`);
    expect(changed).toContain(ExecutionCardTexts.nothingElse);
    expect(history.executions[0]?.writes).toMatchObject({ done: [write?.stepId], unknown: [] });
    const steps = card.find((t) => t.startsWith("*ステップ*"))!;
    expect(steps.split("\n").slice(1).every((line) => line.startsWith("✓"))).toBe(true);
  });

  it("a settled expense: the created deal is linked in freee by the id freee answered with", async () => {
    const { card, history } = await runToCompletion("タクシー代 5,500円を現金で支払済みの経費として登録して");
    const record = history.executions[0]?.writes?.records[0];
    expect(record?.kind).toBe("deal");
    expect(card.join("\n")).toContain(`<https://secure.freee.co.jp/deals#deal_id=${String(record?.id)}|freee で開く>`);
  });

  it("a read request: the result is shown as a table, and nothing was written", async () => {
    const { card } = await runToCompletion("今月の取引の一覧を確認して");
    const table = card.find((t) => /^\*\d+\. 取引（\d+ 件）\*/.test(t));
    // freee's Japanese column names and values in words (this month's deals of the scripted company), no code block.
    expect(table).toMatch(/^\*発生日\* ／ .*\*収支区分\*/m);
    expect(table).toMatch(/^• \d{4}-\d{2}-01 ／ .*(支出|収入)/m);
    expect(table).not.toMatch(/```|\bID\b|expense|income/);
    expect(card.join("\n")).toContain(ExecutionCardTexts.noWrites);
  });

  it("「こんにちは」: a short reply in the thread, no plan, no buttons", async () => {
    const ts = await page.send("こんにちは");
    const reply = await waitFor("the reply", async () => (await page.thread(ts)).find((m) => JSON.stringify(m.blocks ?? []).includes(NotARequestMessages.noTask)));
    expect(reply.text).toMatch(/^こんにちは。/);
    await page.settled(ts);
    const thread = await page.thread(ts);
    expect(thread).toHaveLength(1);
    expect(JSON.stringify(thread)).not.toContain("approve_version");
  });
});
