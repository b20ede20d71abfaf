import { breadthPlanLines, breadthScenarioOf, breadthSteps, isBreadthScenario, type BreadthScenario } from "./scripted-breadth";

/**
 * The sandbox's scripted plans beyond the pay rule: the requests a freee team makes every week, each
 * planned with the tools and formats freee's schemas ask for, so they validate, get approved and run against the
 * strict fake. Recognised from the request's words; ids are the sandbox company's (dev/fakes/freee/state.ts).
 */

export type Scenario = "file_box" | "invoice" | "settled_expense" | "minus_line" | "attendance" | "bulk_deals" | BreadthScenario;

/** A file the request shared, as L3's `<attachments>` lists it. */
export type ScriptedAttachment = { fileId: string; name: string };

export function scenarioOf(request: string): Scenario | undefined {
  // 「この領収書をファイルボックスに登録して」 with a file shared: an upload of that file.
  if (/ファイルボックス|領収書|証憑|レシート/.test(request)) return "file_box";
  const breadth = breadthScenarioOf(request);
  if (breadth !== undefined) return breadth;
  if (/請求書/.test(request)) return "invoice";
  // 「備品購入 25 件をまとめて取引登録して」: a plan of many writes (the approver sees every one).
  if (bulkCountOf(request) !== undefined) return "bulk_deals";
  if (/勤怠|出勤|退勤|打刻/.test(request)) return "attendance";
  if (/マイナス|控除|手数料/.test(request)) return "minus_line";
  if (/(支払|決済|精算)済/.test(request)) return "settled_expense";
  return undefined;
}

/** 「N 件」 with 取引 in a request: N deals (2–200), else undefined. */
function bulkCountOf(request: string): number | undefined {
  const hit = /(\d{1,3})\s*件/.exec(request);
  const n = hit === null ? Number.NaN : Number(hit[1]);
  return /取引/.test(request) && n >= 2 && n <= 200 ? n : undefined;
}

/** The numbers the request names: a time range `9:30〜18:30`, or an amount (万円 / 円). */
function timesOf(request: string): { from: string; to: string } {
  const hit = /(\d{1,2})[:：時](\d{2})?\D{0,3}[〜~から\-－]\D{0,2}(\d{1,2})[:：時](\d{2})?/.exec(request);
  const two = (h: string | undefined, m: string | undefined) => `${String(h ?? "9").padStart(2, "0")}:${m ?? "00"}:00`;
  return hit === null ? { from: "09:00:00", to: "18:00:00" } : { from: two(hit[1], hit[2]), to: two(hit[3], hit[4]) };
}

export function planLines(scenario: Scenario): string[] {
  if (isBreadthScenario(scenario)) return breadthPlanLines(scenario);
  switch (scenario) {
    case "file_box":
      return ["目的: 依頼メッセージに添付された領収書を freee 会計のファイルボックスに登録する。", "1. 添付ファイルをファイルボックスにアップロードする（メモ・金額は依頼の記載どおり）。"];
    case "invoice":
      return ["目的: 依頼に沿って freee請求書で請求書を作成する。", "1. 取引先の一覧を取得して請求先を確認する。", "2. 請求書を作成する（請求日・取引先・明細・税率を指定）。"];
    case "settled_expense":
      return ["目的: 依頼に沿って支払済みの経費を取引として登録する。", "1. 勘定科目の一覧を取得する。", "2. 支払（日付・口座・金額）を付けた支出の取引を 1 件登録する。"];
    case "minus_line":
      return ["目的: 依頼に沿って控除（マイナス）行のある収入の取引を登録する。", "1. 勘定科目の一覧を取得する。", "2. 売上の行と手数料のマイナス行を持つ取引を 1 件登録する。"];
    case "bulk_deals":
      return ["目的: 依頼に沿って備品購入の取引をまとめて登録する。", "1. 備品購入 1 件ごとに支出の取引を登録する（消耗品費と旅費交通費の 2 行、取引先 株式会社サンプル商事）。"];
    case "attendance":
      return ["目的: 依頼に沿って従業員の勤怠（出退勤の時間帯）を更新する。", "1. 対象日の現在の勤怠を取得する。", "2. 出勤・退勤の時間帯（work_record_segments）と休憩を更新する。"];
  }
}

export type Step = { stepId: string; order: number; tool: string; effect: "read" | "write"; toolInput: string; nameRefs: [] };
const step = (order: number, tool: string, effect: Step["effect"], input: Record<string, unknown>): Step => ({ stepId: `s${order}`, order, tool, effect, toolInput: JSON.stringify(input), nameRefs: [] });

/** L3's steps for the scenario; `today` is the JST date (YYYY-MM-DD) L3 was given. */
export function plannedSteps(scenario: Scenario, request: string, today: string, amount: number | undefined, attachments: readonly ScriptedAttachment[] = []): Step[] {
  if (isBreadthScenario(scenario)) return breadthSteps(scenario, today, amount, step);
  switch (scenario) {
    case "file_box": {
      const file = attachments[0];
      // No file shared: look at today's file box instead of naming a file the request does not have.
      if (file === undefined) return [step(1, "freee_api_get", "read", { path: "/api/1/receipts", query: { start_date: today, end_date: today } })];
      return [step(1, "freee_accounting_upload_receipt", "write", { slack_file_id: file.fileId, description: request.replace(/（スクリプトのモデルによる解析）$/, "").slice(0, 100), ...(amount === undefined ? {} : { receipt_metadatum_amount: amount }) })];
    }
    case "invoice": {
      const yen = amount ?? 300_000;
      return [
        step(1, "freee_accounting_list_partners", "read", {}),
        step(2, "freee_api_post", "write", {
          path: "/iv/invoices",
          body: {
            billing_date: today,
            partner_id: 12,
            partner_title: "御中",
            subject: "業務委託料のご請求",
            tax_entry_method: "out",
            tax_fraction: "omit",
            withholding_tax_entry_method: "out",
            lines: [{ type: "item", description: "業務委託料", quantity: 1, unit_price: String(yen), tax_rate: 10 }],
          },
        }),
      ];
    }
    case "settled_expense": {
      const yen = amount ?? 5_500;
      return [
        step(1, "freee_accounting_list_account_items", "read", {}),
        step(2, "freee_accounting_create_deal", "write", {
          issue_date: today,
          type: "expense",
          partner_id: 11,
          details: [{ account_item_id: 21, tax_code: 136, amount: yen, description: "タクシー代" }],
          payments: [{ date: today, from_walletable_type: "wallet", from_walletable_id: 32, amount: yen }],
        }),
      ];
    }
    case "minus_line": {
      const yen = amount ?? 330_000;
      return [
        step(1, "freee_accounting_list_account_items", "read", {}),
        step(2, "freee_accounting_create_deal", "write", {
          issue_date: today,
          type: "income",
          partner_id: 12,
          details: [
            { account_item_id: 22, tax_code: 21, amount: yen, description: "業務委託料" },
            { account_item_id: 23, tax_code: 136, amount: -660, description: "振込手数料（先方負担分の控除）" },
          ],
        }),
      ];
    }
    case "bulk_deals": {
      // Long inputs on purpose: two lines each, amounts that differ per deal, a description per deal.
      const deals = Array.from({ length: bulkCountOf(request) ?? 2 }, (_, k) =>
        step(k + 1, "freee_accounting_create_deal", "write", {
          issue_date: today,
          type: "expense",
          partner_id: 12,
          details: [
            { account_item_id: 23, tax_code: 136, amount: 4_800_000 + (k + 1) * 1_000, description: `備品購入 ${k + 1} 件目（事務机・椅子・収納棚の一式、設置費込み）` },
            { account_item_id: 21, tax_code: 136, amount: 12_000 + k + 1, description: `備品購入 ${k + 1} 件目の引き取り交通費` },
          ],
        }),
      );
      return deals;
    }
    case "attendance": {
      const { from, to } = timesOf(request);
      return [
        step(1, "freee_hr_get_work_record", "read", { employee_id: 2, date: today }),
        step(2, "freee_hr_update_work_record", "write", {
          employee_id: 2,
          date: today,
          work_record_segments: [{ clock_in_at: `${today} ${from}`, clock_out_at: `${today} ${to}` }],
          break_records: [{ clock_in_at: `${today} 12:00:00`, clock_out_at: `${today} 13:00:00` }],
        }),
      ];
    }
  }
}
