/**
 * The data of the fake freee: companies and what each holds, stored in the shapes freee answers with (the
 * vendored response schemas check them on every reply). `seedCompany` builds a small company a test or the
 * sandbox starts from; tests change the arrays directly to set up a case.
 */

export type PayCalcType = "monthly" | "daily" | "hourly";

export interface PayRuleVersion {
  /** year * 12 + (month - 1): the first payroll month the rule applies to. */
  from: number;
  pay_calc_type: PayCalcType;
  pay_amount: number;
}

export interface Employee {
  id: number;
  num: string;
  display_name: string;
  entry_date: string;
  retire_date: string | null;
  birth_date?: string;
  /** Pay rule history, oldest first; what a month sees is the last version that starts on or before it. */
  payRules: PayRuleVersion[];
}

export interface WorkRecord extends Record<string, unknown> {
  date: string;
  break_records: { clock_in_at: string; clock_out_at: string }[];
  work_record_segments: { clock_in_at: string; clock_out_at: string }[];
  clock_in_at: string | null;
  clock_out_at: string | null;
  day_pattern: "normal_day" | "prescribed_holiday" | "legal_holiday";
  is_absence: boolean;
  note: string;
}

export interface CompanyData {
  id: number;
  name: string;
  role: "admin" | "read_only";
  employees: Employee[];
  /** `${employeeId}|${date}` → record. */
  workRecords: Map<string, WorkRecord>;
  deals: Record<string, unknown>[];
  accountItems: Record<string, unknown>[];
  partners: Record<string, unknown>[];
  walletables: Record<string, unknown>[];
  invoices: Record<string, unknown>[];
  manualJournals: Record<string, unknown>[];
  tags: Record<string, unknown>[];
  sections: Record<string, unknown>[];
  items: Record<string, unknown>[];
  /** The file box (証憑ファイル). */
  receipts: Record<string, unknown>[];
  /** Records of the operations without a hand-written route (dev/fakes/freee/generic-routes.ts), by collection path. */
  records: Map<string, Record<string, unknown>[]>;
  /** Resources that are one per path (an employee's profile rule, a report), as last written, by path. */
  singletons: Map<string, Record<string, unknown>>;
}

export const TAX_CODES = [
  { code: 0, name: "non_taxable", name_ja: "対象外" },
  { code: 21, name: "sales_with_tax_10", name_ja: "課税売上10%" },
  { code: 136, name: "purchase_with_tax_10", name_ja: "課対仕入10%" },
  { code: 137, name: "purchase_with_tax_reduced_8", name_ja: "課対仕入8%（軽）" },
];

let idSeq = 1000;
/** Ids unique across companies, as freee's are. */
export function nextId(): number {
  idSeq += 1;
  return idSeq;
}

export function monthIndex(year: number, month: number): number {
  return year * 12 + (month - 1);
}

const UPDATE_DATE = "2026-01-05";

function accountItem(companyId: number, id: number, name: string, category: string, taxCode: number): Record<string, unknown> {
  return {
    id,
    name,
    tax_code: taxCode,
    shortcut: null,
    shortcut_num: null,
    code: null,
    default_tax_code: taxCode,
    account_category: category,
    account_category_id: 1,
    categories: [category],
    available: true,
    walletable_id: null,
    group_name: null,
    group_id: null,
    corresponding_income_name: null,
    corresponding_income_id: null,
    corresponding_expense_name: null,
    corresponding_expense_id: null,
    update_date: UPDATE_DATE,
    company_id: companyId,
  };
}

export function partnerRecord(companyId: number, id: number, name: string, code: string | null = null): Record<string, unknown> {
  return { id, code, company_id: companyId, name, update_date: UPDATE_DATE, available: true, shortcut1: null, shortcut2: null, long_name: null, name_kana: null };
}

export interface CompanySeed {
  id: number;
  name: string;
  role?: CompanyData["role"];
}

/**
 * A company with four employees (one hourly), the usual account items (ids 21–23 as the old fakes had them),
 * two partners (11, 12), a bank account and a wallet (31, 32), two deals, a tag (41), a section (51), an item (61).
 */
export function seedCompany(seed: CompanySeed): CompanyData {
  const c = seed.id;
  const from = monthIndex(2025, 4);
  const employees: Employee[] = [
    { id: 1, num: "001", display_name: "山田 太郎", entry_date: "2020-04-01", retire_date: null, payRules: [{ from, pay_calc_type: "monthly", pay_amount: 280_000 }] },
    { id: 2, num: "002", display_name: "佐藤 花子", entry_date: "2021-04-01", retire_date: null, payRules: [{ from, pay_calc_type: "monthly", pay_amount: 320_000 }] },
    { id: 3, num: "003", display_name: "鈴木 一郎", entry_date: "2023-10-01", retire_date: null, payRules: [{ from, pay_calc_type: "hourly", pay_amount: 1_500 }] },
    // Already paid what a request may ask for: the preview drops such a write (the change table's no-op case).
    { id: 4, num: "004", display_name: "高橋 美咲", entry_date: "2022-04-01", retire_date: null, payRules: [{ from, pay_calc_type: "monthly", pay_amount: 340_000 }] },
  ];
  const accountItems = [
    accountItem(c, 21, "旅費交通費", "経費", 136),
    accountItem(c, 22, "売上高", "売上高", 21),
    accountItem(c, 23, "消耗品費", "経費", 136),
  ];
  const partners = [partnerRecord(c, 11, "東京タクシー"), partnerRecord(c, 12, "株式会社サンプル商事")];
  const walletables = [
    { id: 31, name: "みずほ銀行 普通", bank_id: 1, type: "bank_account", last_balance: 1_000_000, walletable_balance: 1_000_000, update_date: UPDATE_DATE },
    { id: 32, name: "現金", bank_id: null, type: "wallet", last_balance: 50_000, walletable_balance: 50_000, update_date: UPDATE_DATE },
  ];
  const company: CompanyData = {
    id: c,
    name: seed.name,
    role: seed.role ?? "admin",
    employees,
    workRecords: new Map(),
    deals: [],
    accountItems,
    partners,
    walletables,
    invoices: [],
    manualJournals: [],
    tags: [{ id: 41, company_id: c, name: "出張", update_date: UPDATE_DATE, shortcut1: null, shortcut2: null }],
    sections: [{ id: 51, company_id: c, name: "営業部", available: true, long_name: null, shortcut1: null, shortcut2: null }],
    items: [{ id: 61, company_id: c, name: "コンサルティング", update_date: UPDATE_DATE, available: true, shortcut1: null, shortcut2: null }],
    receipts: [],
    records: new Map(),
    singletons: new Map(),
  };
  company.deals.push(
    dealRecord(company, { id: 1, issue_date: "2026-11-05", type: "expense", partner_id: 11, details: [{ account_item_id: 21, tax_code: 136, amount: 5_500, description: "タクシー代" }] }),
    dealRecord(company, { id: 2, issue_date: "2026-11-20", type: "income", partner_id: 12, details: [{ account_item_id: 22, tax_code: 21, amount: 330_000, description: "11月分 業務委託" }] }),
  );
  return company;
}

interface DealInput {
  id?: number;
  issue_date: string;
  type: "income" | "expense";
  due_date?: string;
  partner_id?: number;
  ref_number?: string;
  details: { account_item_id?: number; tax_code: number; amount: number; description?: string; vat?: number }[];
  payments?: { amount: number; date: string; from_walletable_id: number; from_walletable_type: string }[];
}

/** A deal as freee stores it: amounts summed, entry side from its type, settled when the payments cover it. */
export function dealRecord(company: CompanyData, input: DealInput): Record<string, unknown> {
  const amount = input.details.reduce((sum, d) => sum + d.amount, 0);
  const paid = (input.payments ?? []).reduce((sum, p) => sum + p.amount, 0);
  return {
    id: input.id ?? nextId(),
    company_id: company.id,
    issue_date: input.issue_date,
    due_date: input.due_date ?? null,
    amount,
    due_amount: amount - paid,
    type: input.type,
    partner_id: input.partner_id ?? null,
    partner_code: null,
    ref_number: input.ref_number ?? null,
    status: paid >= amount ? "settled" : "unsettled",
    deal_origin_name: "API",
    details: input.details.map((d) => ({
      id: nextId(),
      account_item_id: d.account_item_id as number,
      tax_code: d.tax_code,
      partner_id: input.partner_id ?? null,
      amount: d.amount,
      vat: d.vat ?? Math.floor((d.amount * 10) / 110),
      description: d.description ?? "",
      entry_side: input.type === "expense" ? "debit" : "credit",
      tag_ids: [],
    })),
    payments: (input.payments ?? []).map((p) => ({ id: nextId(), date: p.date, from_walletable_type: p.from_walletable_type, from_walletable_id: p.from_walletable_id, amount: p.amount })),
    receipts: [],
  };
}

export function payRuleAt(employee: Employee, year: number, month: number): PayRuleVersion | undefined {
  const at = monthIndex(year, month);
  return [...employee.payRules].reverse().find((r) => r.from <= at);
}
