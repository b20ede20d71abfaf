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

/** freee's answer names its list by the collection (`{"deals": [...]}`) but for these: `/api/1/taxes/codes` → `{"taxes": [...]}`. */
const LIST_KEY_COLLECTION: Readonly<Record<string, string>> = { taxes: "codes" };

const nounOf = (collection: string) => (Object.hasOwn(COLLECTION_NOUNS, collection) ? COLLECTION_NOUNS[collection] : undefined);

/** The noun of a path's last fixed segment (`/api/1/deals/{id}` → 取引), if it is one of these. */
export function readNounOf(path: string): string | undefined {
  const segments = path.split("/").filter((s) => s !== "" && !s.startsWith("{"));
  return nounOf(segments.at(-1) ?? "");
}

/** The noun of a list in freee's answer, by its key (`taxes` → 税区分), if it is one of these. */
export function listNounOf(key: string): string | undefined {
  return nounOf(Object.hasOwn(LIST_KEY_COLLECTION, key) ? LIST_KEY_COLLECTION[key]! : key);
}
