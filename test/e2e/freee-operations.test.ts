import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_COMPANY } from "../../dev/local/sandbox-fakes";
import { RECEIPT_FILES } from "../../dev/fakes/freee/routes-more";
import { FREEE_OPERATIONS } from "../../lib/freee/openapi/validator";
import { buildLedger } from "../../lib/store/ledger";
import { SandboxPage } from "./sandbox-page";

/**
 * Issue 18 in the sandbox (`npm run dev`, no credentials): the requests a freee team makes every week — an invoice
 * in freee請求書, a settled expense with its payment, a deal with a minus line, an attendance segment update — are
 * planned by the scripted model with freee's own formats, pass the schema check before the Process card, are
 * previewed (names resolved, before → after), approved through the page's API and run through the MCP server against the strict freee fake.
 */
let page: SandboxPage;
beforeAll(async () => {
  page = await SandboxPage.start();
}, 180_000);
afterAll(async () => page?.close());

/** Send the request, approve the plan and the Process, wait for 完了; the task's history. */
const runToCompletion = async (text: string, file?: { name: string; mimetype: string; base64: string }) => (await page.runToCompletion(text, file)).history;

const company = () => page.stack.freee!.company(SANDBOX_COMPANY.id);
const written = (h: Awaited<ReturnType<typeof runToCompletion>>) => h.audit.filter((a) => a.action === "freee.tool_completed").map((a) => a.details.tool);

describe("sandbox: the vendored operations' requests validate, get approved and run against the strict freee fake", { timeout: 90_000 }, () => {
  it("「請求書を作成して」: a freee請求書 invoice through the generic POST, marked with its task and step", async () => {
    const before = company().invoices.length;
    const h = await runToCompletion("株式会社サンプル商事に業務委託料30万円の請求書を作成して");
    expect(h.processes[0]?.steps?.map((s) => s.tool)).toEqual(["freee_accounting_list_partners", "freee_api_post"]);
    expect(written(h)).toEqual(["freee_accounting_list_partners", "freee_api_post"]);
    expect(company().invoices.length).toBe(before + 1);
    expect(company().invoices.at(-1)).toMatchObject({ partner_id: 12, subject: "業務委託料のご請求", amount_excluding_tax: 300_000, total_amount: 330_000, memo: `sma:${h.task.taskId}:p1:s2` });
    // What the approver saw before approving: the invoice in words, the partner by name.
    const shown = h.processes[0]?.preview?.steps[0];
    expect(shown).toMatchObject({ stepId: "s2", title: "請求書の作成", current: "none" });
    expect(shown?.details).toContain("取引先: 株式会社サンプル商事（ID 12）");
  });

  it("a receipt shared with the request goes to the file box: the card names the file and its size, the MCP server fetches it from Slack for that step", async () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const before = company().receipts.length;
    const h = await runToCompletion("この領収書をファイルボックスに登録して（タクシー代 5,500円）", { name: "taxi-1203.png", mimetype: "image/png", base64: bytes.toString("base64") });
    expect(h.task.attachments).toMatchObject([{ name: "taxi-1203.png", size: 3000, mimetype: "image/png" }]);
    const fileId = h.task.attachments![0]!.fileId;
    expect(h.processes[0]?.steps?.map((s) => [s.tool, s.toolInput.slack_file_id])).toEqual([["freee_accounting_upload_receipt", fileId]]);
    const shown = h.processes[0]?.preview?.steps[0];
    expect(shown).toMatchObject({ title: "ファイルボックスへのアップロード", current: "none" });
    expect(shown?.summary).toContain("「taxi-1203.png」（2.9 KB・image/png）");
    // The card prints the change table's row, not the summary: the file is named there.
    expect(shown?.rows?.map((r) => r.after)).toEqual(["「taxi-1203.png」（2.9 KB・image/png）"]);
    expect(shown?.details).toContain("金額: 5,500円");
    expect(written(h)).toEqual(["freee_accounting_upload_receipt"]);
    expect(company().receipts.length).toBe(before + 1);
    expect(company().receipts.at(-1)).toMatchObject({ mime_type: "image/png", receipt_metadatum: { amount: 5_500 } });
    expect(RECEIPT_FILES.get(company().receipts.at(-1)!)).toMatchObject({ name: "taxi-1203.png", size: 3000 });
  });

  it("a settled expense: one deal with its payment from the wallet", async () => {
    const h = await runToCompletion("タクシー代 5,500円を現金で支払済みの経費として登録して");
    expect(written(h)).toEqual(["freee_accounting_list_account_items", "freee_accounting_create_deal"]);
    const deal = company().deals.find((d) => d.ref_number === `sma:${h.task.taskId}:p1:s2`)!;
    expect(deal).toMatchObject({ type: "expense", amount: 5_500, status: "settled", due_amount: 0 });
    expect(deal.payments).toMatchObject([{ from_walletable_id: 32, amount: 5_500 }]);
    expect(h.processes[0]?.preview?.steps[0]?.details).toContain("決済済みの取引として登録されます。");
  });

  it("a deal with a minus line (振込手数料 deducted)", async () => {
    const h = await runToCompletion("業務委託料33万円の入金を、振込手数料660円をマイナス行にして登録して");
    const deal = company().deals.find((d) => d.ref_number === `sma:${h.task.taskId}:p1:s2`)!;
    expect(deal).toMatchObject({ type: "income", amount: 329_340 });
    expect((deal.details as { amount: number }[]).map((d) => d.amount)).toEqual([330_000, -660]);
  });

  it("an attendance segment update in freee's 「YYYY-MM-DD HH:MM:SS」", async () => {
    const h = await runToCompletion("佐藤さんの今日の勤怠を 9:30〜18:30 に修正して");
    const update = h.processes[0]?.steps?.find((s) => s.tool === "freee_hr_update_work_record");
    const date = String(update?.toolInput.date);
    expect(update?.toolInput.work_record_segments).toEqual([{ clock_in_at: `${date} 09:30:00`, clock_out_at: `${date} 18:30:00` }]);
    expect(written(h)).toEqual(["freee_hr_get_work_record", "freee_hr_update_work_record"]);
    expect(h.processes[0]?.preview?.steps[0]?.changes).toContainEqual({ label: "出退勤", before: "なし", after: "09:30–18:30" });
    const record = company().workRecords.get(`2|${date}`)!;
    expect(record.work_record_segments).toEqual([{ clock_in_at: `${date}T09:30:00.000+09:00`, clock_out_at: `${date}T18:30:00.000+09:00` }]);
  });

  describe("the operations only the generic tools reach: planned with freee's schema, previewed, run to 完了, audited and counted", () => {
    const byOperation = (template: string) => FREEE_OPERATIONS.find((o) => `${o.method} ${o.path}` === template)!;
    const cases: Array<{ text: string; read: [string, string]; write: string; list: string; expect: Record<string, unknown> }> = [
      {
        text: "大阪出張の新幹線代 13,500円を経費申請して",
        read: ["freee_api_get", "/api/1/expense_application_line_templates"],
        write: "POST /api/1/expense_applications",
        list: "/api/1/expense_applications",
        expect: { title: "出張交通費の経費申請", purchase_lines: [{ expense_application_lines: [{ amount: 13_500 }] }] },
      },
      {
        text: "旅費交通費に入れた12,000円を消耗品費へ振替伝票で振り替えて",
        read: ["freee_accounting_list_account_items", ""],
        write: "POST /api/1/manual_journals",
        list: "",
        expect: { details: [{ entry_side: "debit", account_item_id: 23, amount: 12_000 }, { entry_side: "credit", account_item_id: 21, amount: 12_000 }] },
      },
      {
        text: "みずほ銀行から現金へ5万円の引き出しを口座振替として登録して",
        read: ["freee_api_get", "/api/1/walletables"],
        write: "POST /api/1/transfers",
        list: "/api/1/transfers",
        expect: { amount: 50_000, from_walletable_id: 31, to_walletable_id: 32 },
      },
      { text: "今日の要件定義の打ち合わせ2時間半を工数に登録して", read: ["freee_api_get", "/pm/projects"], write: "POST /pm/workloads", list: "/pm/workloads", expect: { project_id: 1, minutes: 150 } },
      { text: "保守サポート年間20万円の受注を登録して", read: ["freee_api_get", "/sm/businesses"], write: "POST /sm/sales_orders", list: "/sm/sales_orders", expect: { customer_id: 1, lines: [{ unit_price: 200_000 }] } },
    ];
    it.each(cases)("「$text」: $write", async ({ text, read, write, list, expect: stored }) => {
      const h = await runToCompletion(text);
      const [method, path] = write.split(" ") as [string, string];
      const steps = h.processes[0]?.steps ?? [];
      expect(steps.map((s) => s.tool)).toEqual([read[0], `freee_api_${method.toLowerCase()}`]);
      if (read[1] !== "") expect(steps[0]?.toolInput.path).toBe(read[1]);
      expect(steps[1]?.toolInput.path).toBe(path);
      // The approver saw the write in freee's words before approving.
      expect(h.processes[0]?.preview?.steps[0]).toMatchObject({ stepId: "s2", title: byOperation(write).summary });
      expect(written(h)).toEqual(steps.map((s) => s.tool));
      const records = list === "" ? company().manualJournals : (company().records.get(list) ?? []);
      expect(records.at(-1)).toMatchObject(stored);
      // The run is audited and the ledger (npm run report, App Home) counts it as completed.
      expect(h.audit.filter((a) => a.action === "freee.tool_called").map((a) => a.details.tool)).toEqual(steps.map((s) => s.tool));
      expect(buildLedger(h.audit, { since: "2000-01-01", until: "2100-01-01" }).byOutcome.completed).toBe(1);
    });
  });
});
