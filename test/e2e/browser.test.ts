import { afterAll, describe, expect, it } from "vitest";
import { BrowserSandbox, CHROMIUM, hasChromium } from "./browser-sandbox";
import { WriteOutcomeUnknownMessages } from "../../lib/core/messages/ja";
import { PlanMessages } from "../../lib/preview/plan";

/**
 * The "done when" of `npm run dev`, in a real browser: start `scripts/dev.ts` as a process (settings from an
 * env file, as `.env` would give them), open /sandbox in headless Chromium, post a request, reject the plan once
 * through the reason modal, approve both steps, and see 完了. Needs Debian's chromium at /usr/bin/chromium (.ci/run installs it).
 */
const sandbox = new BrowserSandbox({
  prefix: "sandbox-browser-",
  // freee's backoffs at 1/100 of real time: the 503 test's retries run out in seconds.
  settings: { SANDBOX_STEP_DELAY_MS: "5", LOCAL_WAIT_MS: "30", SANDBOX_SLACK_RATE_WINDOW_MS: "2000", LOG_LEVEL: "WARN", LOCAL_APPROVAL_POLICY: "one_person", LOCAL_FREEE_WAIT_DIVISOR: "100" },
});
afterAll(() => sandbox.close());
const openSandbox = () => sandbox.open();
/** A deal line as a change-table row: 「明細 1 消耗品費（課対仕入10%） ｜ （新規） → 4,801,000円 ｜」. */
const dealLine = (line: number, account: string, amount: number) => new RegExp(`明細 ${line} ${account}（[^）\n]+）[^｜\n]* ｜ （新規） → ${amount.toLocaleString("en-US")}円 ｜`);

/**
 * Post a request on a fresh /sandbox page and approve its 実行方針, as a person clicks it: resolves once the
 * Process card shows its 承認 button, with the thread, that card and the button.
 */
async function requestToProcessCard(text: string) {
  const { url, page } = await openSandbox();
  await page.goto(`${url}/sandbox`);
  await page.fill("#text", text);
  await page.click("#composer button[type=submit]");
  const thread = page.locator("#thread-messages");
  await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
  const approve = thread.locator("button[data-action*='process']", { hasText: /^承認$/ });
  await approve.first().waitFor();
  const card = thread.locator(".msg", { has: page.locator("button[data-action*='process']", { hasText: /^承認$/ }) });
  return { page, thread, approve, card };
}

describe("sandbox page in headless Chromium", () => {
  if (!hasChromium) console.warn(`browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it)`);

  it.skipIf(!hasChromium)(`npm run dev → /sandbox: post a message, reject with a reason in the modal, approve both steps, see 完了${hasChromium ? "" : ` (skipped: ${CHROMIUM} missing)`}`, async () => {
    const { url, page } = await openSandbox();
    await page.goto(`${url}/sandbox`);
    await expect.poll(() => page.locator("#labels").innerText()).toContain("モデル: スクリプト");

    await page.fill("#text", "来月から山田さんの基本給を30万円に変更して");
    await page.click("#composer button[type=submit]");

    const thread = page.locator("#thread-messages");
    // 却下 opens the reason modal the ingress asked for (views.open); an empty reason is refused inside it.
    await thread.locator("button[data-action*='prompt']", { hasText: "却下" }).first().click();
    const modal = page.locator("#backdrop.open #modal");
    await modal.locator("#modal-submit").click();
    await expect.poll(() => modal.locator(".error").first().innerText()).toBe("却下理由を入力してください。");
    await modal.locator("textarea").fill("適用月を明記して");
    await modal.locator("#modal-submit").click();
    await expect.poll(() => page.locator("#backdrop.open").count()).toBe(0);
    await expect.poll(() => thread.innerText()).toContain("適用月を明記して");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    await thread.locator("button[data-action*='process']", { hasText: "承認" }).first().click();
    await expect.poll(() => thread.innerText()).toContain("完了");
    expect(await thread.innerText()).toContain("実行 #1");
    // The 完了 card says in words what changed in freee (before → after), with a link to the employee there.
    const done = thread.locator(".msg", { hasText: "freee で変わったこと" });
    await expect.poll(() => done.count()).toBe(1);
    expect(await done.innerText()).toMatch(/基本給.*→/);
    expect(await done.innerText()).toContain("このほかに freee への書き込みはありません。");
    expect(await done.locator("a", { hasText: "freee で開く" }).getAttribute("href")).toBe("https://p.secure.freee.co.jp/employees/1");
  });

  it.skipIf(!hasChromium)("a pay cut: the change table's row with ⚠️ lines; 承認 asks again in Slack's confirm dialog (戻る changes nothing); 完了 restates the row with ✓ and the freee link", async () => {
    const { page, thread, approve, card } = await requestToProcessCard("来月から佐藤さんの基本給を25万円に変更して");
    const text = await card.innerText();
    expect(text).toMatch(/従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円 ｜ -70,000円（-21\.9%） ｜ \d{4}年\d{1,2}月支給分から/);
    expect(text).toContain("⚠️ 従業員 佐藤 花子 の基本給が下がります: 320,000円 → 250,000円（-70,000円（-21.9%））。");
    expect(text).toContain("⚠️ 確認が必要な点が 2 件あります");
    // The first time the approver goes back: nothing is approved.
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await approve.first().click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe("警告を確認してください\n\n次の点を確認してから承認してください。\n⚠️ 減額 -70,000円（-21.9%）: 従業員 佐藤 花子 基本給\n⚠️ 大きな変更 -21.9%: 従業員 佐藤 花子 基本給");
    expect(await approve.count()).toBe(1);
    expect(await thread.innerText()).not.toContain("実行 #1");
    page.once("dialog", (dialog) => void dialog.accept());
    await approve.first().click();
    const done = thread.locator(".msg", { hasText: "実行 #1" }).filter({ hasText: "完了" });
    await expect.poll(() => done.count()).toBe(1);
    const restated = await done.innerText();
    expect(restated).toContain("✓ ｜ 従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円 ｜ -70,000円（-21.9%）");
    expect(await done.locator("a", { hasText: "freee で開く" }).getAttribute("href")).toBe("https://p.secure.freee.co.jp/employees/2");
  });

  it.skipIf(!hasChromium)("a pay type change is two rows with ⚠️; a change to what freee holds is dropped with a note and cannot be approved", async () => {
    const { url, page } = await openSandbox();
    await page.goto(`${url}/sandbox`);
    const thread = page.locator("#thread-messages");
    await page.fill("#text", "来月から鈴木さんの基本給を28万円に変更して");
    await page.click("#composer button[type=submit]");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    const card = thread.locator(".msg", { hasText: "実行ステップ v1" }).filter({ hasText: "承認待ち" });
    await expect.poll(() => card.innerText()).toContain("従業員 鈴木 一郎 ｜ 給与形態 ｜ 時給 → 月給 ｜ —");
    expect(await card.innerText()).toContain("従業員 鈴木 一郎 ｜ 基本給 ｜ 1,500円 → 280,000円 ｜ —");
    expect(await card.innerText()).toContain("⚠️ 従業員 鈴木 一郎 の給与形態が変わります: 時給 → 月給（単位が違うため金額の差は比べられません）。");

    // 高橋 美咲 is paid 340,000円 already (the page opens the new message's thread).
    await page.fill("#text", "来月から高橋さんの基本給を34万円に変更して");
    await page.click("#composer button[type=submit]");
    await expect.poll(() => thread.innerText()).toContain("高橋さんの基本給を34万円");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    const dropped = thread.locator(".msg", { hasText: "プランから外したステップ" });
    await expect.poll(() => dropped.innerText()).toContain("基本給の変更（従業員 高橋 美咲 基本給 340,000円 → 340,000円）は freee の現在の値と同じため、プランから外しました。承認しても実行されません。");
    expect(await dropped.innerText()).toContain(PlanMessages.noChanges);
    expect(await dropped.locator("button[data-action*='process']", { hasText: /^承認$/ }).count()).toBe(0);
    expect(await dropped.locator("button", { hasText: "却下" }).count()).toBe(1);
  });

  it.skipIf(!hasChromium)("freee answers 503 to the write: the card names the change with 確認が必要 and the employee's freee page, never 「書き込みはありません」", async () => {
    const { url, page } = await openSandbox();
    await page.goto(`${url}/sandbox`);
    expect((await page.request.post(`${url}/sandbox/api/faults/arm`, { data: { id: "freee.5xx", mode: "every" } })).status()).toBe(200);
    try {
      await page.fill("#text", "来月から山田さんの基本給を31万円に変更して");
      await page.click("#composer button[type=submit]");
      const thread = page.locator("#thread-messages");
      await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
      await thread.locator("button[data-action*='process']", { hasText: /^承認$/ }).first().click();
      const failed = thread.locator(".msg", { hasText: "実行 #1" }).filter({ hasText: WriteOutcomeUnknownMessages.slack });
      await expect.poll(() => failed.count()).toBe(1);
      const text = await failed.innerText();
      expect(text).toMatch(/確認が必要 ｜ 従業員 山田 太郎 ｜ 基本給 ｜ [\d,]+円 → 310,000円/);
      expect(await failed.locator("a", { hasText: "freee で開く" }).getAttribute("href")).toBe("https://p.secure.freee.co.jp/employees/1");
      expect(text).not.toMatch(/(?<!このほかに )freee への書き込みはありません。/);
      expect(text).not.toMatch(/(?<![A-Za-z0-9])s\d+(?![A-Za-z0-9])|freee_hr_/);
    } finally {
      await page.request.post(`${url}/sandbox/api/faults/clear`, { data: {} });
    }
  });

  it.skipIf(!hasChromium)("a 「今月」 read — said in words, filtered to this month (JST); the 完了 card shows freee's rows in Japanese columns, nothing written", async () => {
    const { url, page } = await openSandbox();
    await page.goto(`${url}/sandbox`);
    const jst = new Date(Date.now() + 9 * 3600_000);
    const [year, month] = [jst.getUTCFullYear(), jst.getUTCMonth() + 1];
    const thisMonth = `${year}-${String(month).padStart(2, "0")}-`;
    await page.fill("#text", "今月の取引の一覧を確認して");
    await page.click("#composer button[type=submit]");
    const thread = page.locator("#thread-messages");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    // Accounting reads run on the 実行方針 approval (the approval policy): the 実行ステップ card informs, no button.
    const info = thread.locator(".msg", { hasText: "実行ステップ" }).filter({ hasText: "実行ステップの承認は不要です" });
    await expect.poll(() => info.count()).toBe(1);
    expect(await info.locator("button[data-action*='process']").count()).toBe(0);
    // The step in words: this month's deals, at most 20 — no tool name, no JSON.
    const stepWords = await info.innerText();
    expect(stepWords).toContain(`${year}年${month}月の取引（最大 20 件）`);
    expect(stepWords).not.toMatch(/freee_accounting|start_issue_date|\{/);
    const done = thread.locator(".msg", { hasText: "実行 #1" }).filter({ hasText: "完了" });
    await expect.poll(() => done.count()).toBe(1);
    const text = await done.innerText();
    expect(text).toMatch(/取引（\d+ 件）/);
    expect(text).toMatch(/発生日 ／ .*収支区分/);
    expect(text).not.toMatch(/\bID\b|expense|income|company_id|tax_code/);
    expect(text).toMatch(/支出|収入/);
    // Only this month's rows (the scripted company also has one of last month): the filter reached freee.
    const issued = [...text.matchAll(/^• (\d{4}-\d{2}-\d{2}) ／/gm)].map((m) => m[1]!);
    expect(issued.length).toBeGreaterThan(0);
    expect(issued.filter((d) => !d.startsWith(thisMonth))).toEqual([]);
    expect(text).toContain("freee への書き込みはありません。");
  });

  it.skipIf(!hasChromium)("a file attached with 📎 goes with the request — on the message as Slack shows a file, named by the plan", async () => {
    const { url, page } = await openSandbox();
    await page.goto(`${url}/sandbox`);
    // A real 1×1 PNG.
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
    await page.setInputFiles("#file", { name: "taxi-receipt.png", mimeType: "image/png", buffer: png });
    await expect.poll(() => page.locator("#attached").innerText()).toContain("taxi-receipt.png");
    await page.fill("#text", "この領収書をファイルボックスに登録して（タクシー代 5,500円）");
    await page.click("#composer button[type=submit]");
    const file = page.locator("#channel .msg", { hasText: "この領収書" }).locator(".file");
    await expect.poll(() => file.innerText()).toContain("taxi-receipt.png");
    expect(await file.innerText()).toContain(`PNG · ${png.byteLength} B`);
    // Cleared when the post returns, which the page's polling may show the message before.
    await expect.poll(() => page.locator("#attached").isVisible()).toBe(false);
    const thread = page.locator("#thread-messages");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    await expect.poll(() => thread.innerText()).toContain("「taxi-receipt.png」");
    expect(await thread.innerText()).toContain("ファイルボックスへのアップロード");
  });

  it.skipIf(!hasChromium)("a 25-step plan with long inputs — every amount is on the Process card before 承認, the raw input one click away, nothing scrolls sideways", async () => {
    // Before the approve button is pressed: every line of every deal, in 円 with separators, with names not ids.
    const { page, thread, approve, card } = await requestToProcessCard("12月分の備品購入 25 件をまとめて取引登録して");
    const text = await card.innerText();
    // Each line is a row of the change table: 対象 ｜ 項目 (line, account, tax) ｜ （新規） → amount ｜ 差額 ｜ 適用.
    for (let i = 1; i <= 25; i++) {
      expect(text, `deal ${i}`).toMatch(dealLine(1, "消耗品費", 4_800_000 + i * 1_000));
      expect(text, `deal ${i} line 2`).toMatch(dealLine(2, "旅費交通費", 12_000 + i));
    }
    expect(text).toContain("取引先 株式会社サンプル商事");
    expect(text).toContain("備品購入 25 件目");
    // Nothing is hidden behind a horizontal scrollbar: not the thread pane, not anything in the card.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- runs in the page (no DOM types in the test build)
    const overflowing = await thread.evaluate((pane: any) => [pane, ...pane.querySelectorAll("*")].filter((e: any) => e.scrollWidth > e.clientWidth + 1 && (e === pane || (globalThis as any).getComputedStyle(e).overflowX !== "visible")).length);
    expect(overflowing).toBe(0);
    // The raw input is one click away.
    await card.locator("button", { hasText: "入力 JSON" }).first().click();
    const modal = page.locator("#backdrop.open #modal");
    await expect.poll(() => modal.innerText()).toContain('"amount": 4801000');
    await modal.locator("#modal-cancel").click();
    await expect.poll(() => page.locator("#backdrop.open").count()).toBe(0);
    // Every deal is above 1,000,000円: the confirm dialog says so before the plan is approved.
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await approve.first().click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain("⚠️ 高額 4,801,000円: 取引");
    await expect.poll(() => thread.innerText()).toContain("完了");
  });

  it.skipIf(!hasChromium)("a plan too long for a card is approved from the modal that shows it whole (with the raw input pushed over it)", async () => {
    const { url, page } = await openSandbox();
    await page.goto(`${url}/sandbox`);
    await page.fill("#text", "12月分の備品購入 60 件をまとめて取引登録して");
    await page.click("#composer button[type=submit]");
    const thread = page.locator("#thread-messages");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    const review = thread.locator("button", { hasText: "全文を確認して承認" });
    await review.first().click();
    const cardText = await thread.locator(".msg", { has: page.locator("button", { hasText: "全文を確認して承認" }) }).innerText();
    expect(cardText).not.toMatch(/\n承認\n/);
    const modal = page.locator("#backdrop.open #modal");
    await expect.poll(() => modal.innerText()).toContain("以上がこの実行ステップのすべてです");
    const whole = await modal.innerText();
    for (let i = 1; i <= 60; i++) expect(whole, `deal ${i}`).toMatch(dealLine(1, "消耗品費", 4_800_000 + i * 1_000));
    // 「入力 JSON」 inside the modal pushes a view; closing it returns to the plan, whose submit approves.
    await modal.locator("button", { hasText: "入力 JSON" }).nth(59).click();
    await expect.poll(() => modal.innerText()).toContain('"amount": 4860000');
    await modal.locator("#modal-cancel").click();
    await expect.poll(() => modal.innerText()).toContain("以上がこの実行ステップのすべてです");
    await modal.locator("#modal-submit", { hasText: "承認する" }).click();
    await expect.poll(() => page.locator("#backdrop.open").count()).toBe(0);
    await expect.poll(() => thread.innerText()).toContain("完了");
  });

  it.skipIf(!hasChromium)("App Home for admins: a freee 403 counted once as 権限不足 in Japanese; recent tasks linked, with the requester and the JST time", async () => {
    const { url, page } = await openSandbox();
    // A change table with warnings asks before 承認 (Slack's confirm dialog): the approver reads it and goes on.
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${url}/sandbox`);
    await expect.poll(() => page.locator("#fault-id option").count()).toBeGreaterThan(20);
    // freee refuses the run's tool call with 403, once. (Another amount than the first test's: that one is done, and
    // the same change again would be a no-op the preview drops.)
    const option = page.locator("#fault-id option", { hasText: "403 forbidden" }).first();
    await page.selectOption("#fault-id", (await option.getAttribute("value"))!);
    await page.selectOption("#fault-mode", "once");
    await page.click("#fault-arm");
    await page.fill("#text", "来月から山田さんの基本給を32万円に変更して");
    await page.click("#composer button[type=submit]");
    const thread = page.locator("#thread-messages");
    await thread.locator("button[data-action*='prompt']", { hasText: /^承認$/ }).first().click();
    await thread.locator("button[data-action*='process']", { hasText: /^承認$/ }).first().click();
    await expect.poll(() => thread.innerText()).toContain("実行中にエラーが発生しました。");

    await page.click("#tab-home");
    const home = page.locator("#home");
    await expect.poll(() => home.innerText()).toContain("L4 実行: freee の権限不足（403） — 1 件");
    const text = await home.innerText();
    // Japanese names only: no class name, no English layer code left alone.
    expect(text).toContain("失敗したタスクの原因");
    expect(text).not.toMatch(/[A-Z][a-z]+Error\b/);
    // Each task once: the causes add up to 失敗 + タイムアウト of the outcomes above them.
    const outcome = (label: string) => Number(new RegExp(`• ${label}: (\\d+) 件`).exec(text)?.[1] ?? 0);
    const causes = [...text.matchAll(/• L\d [^:\n]+: [^\n]+ — (\d+) 件/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(causes).toBe(outcome("失敗") + outcome("タイムアウト"));
    // The recent tasks: linked to their threads, who asked, when — in JST, as the channel beside them shows it.
    const recent = home.locator("a[href*='/archives/']").first();
    expect(await recent.getAttribute("href")).toMatch(/\/archives\/[A-Z0-9]+\/p\d+$/);
    // The newest first: the task just run.
    const line = /• [^\n]+ — [^\n]+ — 依頼者 @\S+ \((\d{4}-\d{2}-\d{2} \d{2}:\d{2})\)/.exec(text);
    expect(line, text).not.toBeNull();
    const shownAt = Date.parse(`${line![1]!.replace(" ", "T")}:00+09:00`);
    expect(Math.abs(shownAt - Date.now())).toBeLessThan(10 * 60_000);
    expect(text).toContain("時刻は日本時間（JST）です。");
  });

  // Last: it changes the sandbox's policy (two approvers above 1,000,000円), which the tests above do not expect.
  it.skipIf(!hasChromium)("two-person rule: an admin sets it in App Home; the first approval is recorded and the card asks for one more; the same person again does not count; a second approver runs it", async () => {
    const { url, page } = await openSandbox();
    // A plan whose change table warns asks before 承認 (Slack's confirm dialog): the approvers read it and go on.
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${url}/sandbox`);
    // App Home → ポリシーを編集: the editor's number input, saved from the modal.
    await page.click("#tab-home");
    await page.locator("#home button", { hasText: "ポリシーを編集" }).click();
    const modal = page.locator("#backdrop.open #modal");
    await modal.locator("input[type=number]").fill("1000000");
    await modal.locator("#modal-submit", { hasText: "保存" }).click();
    await expect.poll(() => page.locator("#backdrop.open").count()).toBe(0);
    await expect.poll(() => page.locator("#home").innerText()).toContain("2 人の承認: 1,000,000円を超える書き込み");

    await page.click("#tab-channel");
    await page.fill("#text", "来月から山田さんの基本給を120万円に変更して");
    await page.click("#composer button[type=submit]");
    const thread = page.locator("#thread-messages");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click();
    const card = thread.locator(".msg", { hasText: "実行ステップ" }).filter({ has: page.locator("button[data-action*='process']") });
    await expect.poll(() => card.innerText()).toContain("別々の 2 人の承認が必要です。あと 2 人の承認が必要です。");

    // First approver (the requester: this workspace lets a requester approve their own plan).
    await card.locator("button[data-action*='process']", { hasText: /^承認$/ }).click();
    await expect.poll(() => card.innerText()).toContain("承認済み: @あなた。あと 1 人の承認が必要です。");
    await expect.poll(() => thread.locator(".msg.ephemeral").last().innerText()).toContain("承認を記録しました。実行にはあと 1 人、別の承認者の承認が必要です。");
    // The same person again: told so, still one more needed, nothing runs.
    await card.locator("button[data-action*='process']", { hasText: /^承認$/ }).click();
    await expect.poll(() => thread.locator(".msg.ephemeral").last().innerText()).toContain("同じ人の承認は 2 回目を数えません");
    expect(await thread.innerText()).not.toContain("実行 #1");

    // The second, distinct approver: the page acts as 承認者 佐藤 (a workspace admin) and approves; the run completes.
    await page.selectOption("#acting-as", { label: "承認者 佐藤" });
    await expect.poll(() => card.innerText()).toContain("あと 1 人の承認が必要です。");
    await card.locator("button[data-action*='process']", { hasText: /^承認$/ }).click();
    await expect.poll(() => thread.innerText()).toContain("完了");
    const decided = thread.locator(".msg", { hasText: "実行ステップ" }).filter({ hasText: "別々の 2 人" });
    await expect.poll(() => decided.innerText()).toContain("承認者: @あなた @承認者 佐藤（別々の 2 人）");
    expect(await thread.innerText()).toContain("実行 #1");
  });
});
