import { expect, it } from "vitest";
import { readNounOf } from "../../../lib/freee/collection-nouns";
import { CELL_MAX_CHARS, TABLE_MAX_COLUMNS, errorNote, okNote, readTableOf, tableCsv } from "../../../lib/model/agent/step-results";

it("a freee list becomes a table: Japanese label and column names, preferred columns first, freee's total_count as the count", () => {
  const answer = {
    deals: [
      { partner_name: "東京商事", amount: 12000, id: 11, issue_date: "2026-11-02", details: [{ x: 1 }] },
      { partner_name: "大阪物産", amount: 500, id: 12, issue_date: "2026-11-03" },
    ],
    meta: { total_count: 57 },
  };
  const table = readTableOf(JSON.stringify(answer))!;
  expect(table.label).toBe("取引");
  // Nested values (details) are not columns; the deal's id is internal; the issue date comes first.
  expect(table.columns).toEqual(["発生日", "取引先", "金額"]);
  expect(table.rows[0]).toEqual(["2026-11-02", "東京商事", "12,000円"]);
  expect(table.total).toBe(57);
  expect(okNote("read", table)).toBe("取引 57 件を取得しました");
});

it("columns are freee's Japanese names (its response schema), enum values are translated, internal and personal columns hidden", () => {
  const deal = { id: 7, company_id: 1, issue_date: "2026-12-02", due_date: null, amount: 5500, due_amount: 0, type: "expense", partner_id: 11, partner_code: null, ref_number: null, status: "settled", details: [{ tax_code: 136 }], partner_name: "東京タクシー" };
  const deals = readTableOf(JSON.stringify({ deals: [deal, { ...deal, type: "income", status: "unsettled" }] }))!;
  expect(deals.columns).toEqual(["発生日", "支払期日", "収支区分", "取引先", "金額", "支払残額"]);
  expect(deals.rows.map((r) => r[2])).toEqual(["支出", "収入"]);
  const employee = { id: 1, company_id: 1, num: "001", display_name: "山田 太郎", base_pension_num: "1234-567890", employment_insurance_reference_number: "5555", birth_date: "1990-01-01", entry_date: "2020-04-01", retire_date: null, user_id: 9, payroll_calculation: true };
  const employees = readTableOf(JSON.stringify({ employees: [employee], total_count: 1 }))!;
  expect(employees.label).toBe("従業員");
  expect(employees.columns).toEqual(["従業員番号", "従業員名", "入社日", "退職日", "給与計算の対象"]);
  expect(employees.rows[0]).toEqual(["001", "山田 太郎", "2020-04-01", "", "はい"]);
  const all = JSON.stringify(employees);
  for (const hidden of ["1234-567890", "5555", "1990-01-01", "事業所ID", "company_id", "retire_date", "expense"]) expect(all).not.toContain(hidden);
  const walletables = readTableOf(JSON.stringify({ walletables: [{ id: 32, name: "現金", bank_id: null, type: "wallet", walletable_balance: 50000 }] }))!;
  expect(walletables.columns).toEqual(["口座名", "口座種別", "登録残高"]);
  expect(walletables.rows[0]).toEqual(["現金", "現金・その他", "50,000円"]);
  // A field neither freee's schema nor this app can name in Japanese is not shown under its English key.
  expect(readTableOf(JSON.stringify({ deals: [{ issue_date: "2026-12-01", internal_flag_x: "x" }] }))!.columns).toEqual(["発生日"]);
});

it("a result with no list, a cut-off answer or plain text has no table; long cells and wide lists are bounded", () => {
  expect(readTableOf(JSON.stringify({ employee: { id: 1 } }))).toBeUndefined();
  expect(readTableOf('{"deals": [{"id": 1}')).toBeUndefined();
  expect(readTableOf("rate limited")).toBeUndefined();
  const wide = { name: "x".repeat(100), update_date: "2026-12-01", available: true, shortcut1: "a", shortcut2: "b", code: "c", extra: "d", id: 1 };
  const table = readTableOf(JSON.stringify({ items: [wide] }))!;
  expect(table.columns).toHaveLength(TABLE_MAX_COLUMNS);
  expect(table.rows[0]![0]).toHaveLength(CELL_MAX_CHARS);
  expect(table.rows[0]![0]!.endsWith("…")).toBe(true);
});

it("CSV for Excel: BOM, CRLF, quotes doubled, and a cell that would run as a formula opens as text", () => {
  const csv = tableCsv({ label: "取引先", columns: ["名前", "金額"], rows: [['=HYPERLINK("http://x")', "-1,000"], ["@SUM(A1)", "+1"], ['a "b"', "-x"]], total: 3 });
  expect(csv.startsWith("\uFEFF")).toBe(true);
  expect(csv.split("\r\n")).toEqual(["\uFEFF\"名前\",\"金額\"", '"\'=HYPERLINK(""http://x"")","-1,000"', '"\'@SUM(A1)","\'+1"', '"a ""b""","\'-x"', ""]);
});

it("a failed tool result gets its first non-empty line, cut short", () => {
  expect(errorNote("\n  freee 404: not found\nstack")).toBe("エラー: freee 404: not found");
  expect(errorNote("")).toBe("エラー: (エラー内容なし)");
  expect(errorNote("y".repeat(500))).toHaveLength("エラー: ".length + 120);
});

it("a list is named as the Process card names its read, where freee's answer keys it otherwise than the path", () => {
  // GET /api/1/taxes/codes answers {"taxes": [...]}: the Execution card's table and the Process card's words say 税区分.
  const taxes = readTableOf(JSON.stringify({ taxes: [{ code: 136, name_ja: "課対仕入10%" }] }))!;
  expect(taxes.label).toBe("税区分");
  expect(taxes.label).toBe(readNounOf("/api/1/taxes/codes"));
  // A segment that is a property of every object is not a collection.
  expect(readNounOf("/api/1/toString")).toBeUndefined();
});
