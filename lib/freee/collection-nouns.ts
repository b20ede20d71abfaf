import { ownEntry } from "../core/own-entry";

/**
 * What the rows of a freee collection are, in Japanese: the Process card's words for a read (lib/preview/read-words.ts)
 * and the Execution card's label of a read's table (lib/model/agent/step-results.ts). These are also the only
 * collections whose parameter words and result columns are compiled (scripts/generate-read-params.ts,
 * scripts/generate-result-columns.ts): freee's whole API would make every Lambda that draws a card carry words it
 * never says.
 */
/** By the collection's path segment. */
export const COLLECTION_NOUNS: Readonly<Record<string, string>> = {
  deals: "取引",
  employees: "従業員",
  account_items: "勘定科目",
  partners: "取引先",
  items: "品目",
  sections: "部門",
  tags: "メモタグ",
  walletables: "口座",
  codes: "税区分",
  manual_journals: "振替伝票",
  invoices: "請求書",
  receipts: "ファイルボックス（証憑）",
  companies: "事業所",
  work_records: "勤怠",
  basic_pay_rule: "基本給",
  work_record_summaries: "勤怠の月次集計",
  me: "ログインユーザー",
};

/**
 * Where the last fixed segment names another collection than the path reads: a segment's tags are not メモタグ,
 * a company's tax list is 税区分 (not 事業所), the invoice API's receipts are 領収書 and sales' items 商品.
 */
const PATH_NOUNS: Readonly<Record<string, string>> = {
  "/api/1/segments/{segment_id}/tags": "セグメントタグ",
  "/api/1/taxes/companies/{company_id}": "税区分",
  "/iv/receipts": "領収書",
  "/iv/receipts/{id}": "領収書",
  "/sm/master/items": "商品",
  "/hr/api/v1/yearend_adjustments/{year}/employees": "年末調整の対象従業員",
  "/hr/api/v1/yearend_adjustments/{year}/employees/{employee_id}": "年末調整",
};

/** freee's answer names its list by the collection (`{"deals": [...]}`) but for these: `/api/1/taxes/codes` → `{"taxes": [...]}`. */
const LIST_KEY_COLLECTION: Readonly<Record<string, string>> = { taxes: "codes" };

/** The noun of a path template: its own where it has one, else its last fixed segment's (`/api/1/deals/{id}` → 取引). */
export function readNounOf(path: string): string | undefined {
  return ownEntry(PATH_NOUNS, path) ?? ownEntry(COLLECTION_NOUNS, path.split("/").filter((s) => s !== "" && !s.startsWith("{")).at(-1) ?? "");
}

/** The noun of a list in freee's answer, by its key (`taxes` → 税区分), if it is one of these. */
export function listNounOf(key: string): string | undefined {
  return ownEntry(COLLECTION_NOUNS, ownEntry(LIST_KEY_COLLECTION, key) ?? key);
}
