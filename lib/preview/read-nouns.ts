/**
 * The freee collections a read is said in words for (lib/preview/read-words.ts), and so the only ones whose
 * parameter words and result columns are compiled (scripts/generate-read-params.ts, scripts/generate-result-columns.ts):
 * freee's whole API would make every Lambda that draws a card carry words it never says.
 */
/** What the rows of a freee collection are, by the collection's path segment. */
export const READ_NOUNS: Readonly<Record<string, string>> = {
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

/** The noun of a path's last fixed segment (`/api/1/deals/{id}` → 取引), if it is one of these. */
export function readNounOf(path: string): string | undefined {
  const segments = path.split("/").filter((s) => s !== "" && !s.startsWith("{"));
  return READ_NOUNS[segments.at(-1) ?? ""];
}
