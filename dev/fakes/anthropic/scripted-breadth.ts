import type { Step } from "./scripted-plans";

/**
 * The sandbox's requests for operations only the generic tools reach: an expense application (経費申請), a manual
 * journal (振替伝票), a transfer between accounts (取引（振替）), a workload (工数管理) and a sales order (販売管理).
 * Each is planned as L3 would plan it with freee_api_get / freee_api_post and freee's own schema, and runs against
 * the strict fake. Ids are the sandbox company's (dev/fakes/freee/state.ts; the generic lists start with record 1,
 * 販売's ids are ULIDs — dev/fakes/freee/generic-resources.ts).
 */

export type BreadthScenario = "expense_application" | "manual_journal" | "transfer" | "workload" | "sales_order";

const ALL: readonly BreadthScenario[] = ["expense_application", "manual_journal", "transfer", "workload", "sales_order"];

export function isBreadthScenario(s: string): s is BreadthScenario {
  return (ALL as readonly string[]).includes(s);
}

export function breadthScenarioOf(request: string): BreadthScenario | undefined {
  if (/経費申請/.test(request)) return "expense_application";
  if (/振替伝票|仕訳/.test(request)) return "manual_journal";
  if (/口座.{0,6}振替|振替.{0,4}(取引|登録)|引き出し|預け入れ/.test(request)) return "transfer";
  if (/工数/.test(request)) return "workload";
  if (/受注|販売管理/.test(request)) return "sales_order";
  return undefined;
}

export function breadthPlanLines(scenario: BreadthScenario): string[] {
  switch (scenario) {
    case "expense_application":
      return ["目的: 依頼に沿って freee 会計に経費申請を作成する。", "1. 経費科目の一覧を取得する。", "2. 経費申請を 1 件作成する（件名・発生日・明細の金額）。"];
    case "manual_journal":
      return ["目的: 依頼に沿って振替伝票で勘定科目を振り替える。", "1. 勘定科目の一覧を取得する。", "2. 借方と貸方が同額の振替伝票を 1 件作成する。"];
    case "transfer":
      return ["目的: 依頼に沿って口座間の振替（取引（振替））を登録する。", "1. 口座の一覧を取得する。", "2. 振替元・振替先の口座と金額を指定して振替を 1 件登録する。"];
    case "workload":
      return ["目的: 依頼に沿って freee 工数管理に工数を登録する。", "1. プロジェクトの一覧を取得する。", "2. 対象日・プロジェクト・時間（分）を指定して工数を 1 件登録する。"];
    case "sales_order":
      return ["目的: 依頼に沿って freee 販売に受注を登録する。", "1. 案件の一覧を取得する。", "2. 受注日・顧客・請求先・明細を指定して受注を 1 件登録する。"];
  }
}

type MakeStep = (order: number, tool: string, effect: Step["effect"], input: Record<string, unknown>) => Step;

/** The ULID of the sandbox's first 販売 record (customer, partner, line type): the generic lists' record 1. */
const SM_FIRST = "01JFAKE0000000000000000001";

export function breadthSteps(scenario: BreadthScenario, today: string, amount: number | undefined, step: MakeStep): Step[] {
  switch (scenario) {
    case "expense_application": {
      const yen = amount ?? 13_500;
      return [
        step(1, "freee_api_get", "read", { path: "/api/1/expense_application_line_templates" }),
        step(2, "freee_api_post", "write", {
          path: "/api/1/expense_applications",
          body: {
            title: "出張交通費の経費申請",
            issue_date: today,
            description: "大阪出張（新幹線往復）",
            purchase_lines: [{ transaction_date: today, expense_application_lines: [{ description: "新幹線 東京⇔新大阪 往復", amount: yen, expense_application_line_template_id: 1 }] }],
          },
        }),
      ];
    }
    case "manual_journal": {
      const yen = amount ?? 12_000;
      return [
        step(1, "freee_accounting_list_account_items", "read", {}),
        step(2, "freee_api_post", "write", {
          path: "/api/1/manual_journals",
          body: {
            issue_date: today,
            details: [
              { entry_side: "debit", account_item_id: 23, tax_code: 136, amount: yen, description: "旅費交通費から消耗品費へ振替" },
              { entry_side: "credit", account_item_id: 21, tax_code: 136, amount: yen, description: "旅費交通費から消耗品費へ振替" },
            ],
          },
        }),
      ];
    }
    case "transfer": {
      const yen = amount ?? 50_000;
      return [
        step(1, "freee_api_get", "read", { path: "/api/1/walletables" }),
        step(2, "freee_api_post", "write", {
          path: "/api/1/transfers",
          body: { date: today, amount: yen, from_walletable_type: "bank_account", from_walletable_id: 31, to_walletable_type: "wallet", to_walletable_id: 32, description: "小口現金の引き出し" },
        }),
      ];
    }
    case "workload":
      return [
        step(1, "freee_api_get", "read", { path: "/pm/projects" }),
        step(2, "freee_api_post", "write", { path: "/pm/workloads", body: { project_id: 1, date: today, minutes: 150, memo: "要件定義の打ち合わせ" } }),
      ];
    case "sales_order": {
      const yen = amount ?? 200_000;
      return [
        step(1, "freee_api_get", "read", { path: "/sm/businesses" }),
        step(2, "freee_api_post", "write", {
          path: "/sm/sales_orders",
          body: {
            sales_order_date: today,
            sales_order_subject: "保守サポート（年間）",
            customer_id: 1,
            billing_creating_method_type: "automatically",
            billing_partner_id: 1,
            collecting_partner_id: 1,
            collection_method_type: "transfer",
            lines: [{ line_type: "basic", deal_line_type_id: SM_FIRST, description: "保守サポート 年間", quantity: 1, unit_price: yen, withholding_enabled: false, is_manual_tax_entry: false }],
          },
        }),
      ];
    }
  }
}
