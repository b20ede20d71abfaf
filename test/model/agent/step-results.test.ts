import { expect, it } from "vitest";
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
  // Nested values (details) are not columns; id and issue_date come before the rest.
  expect(table.columns).toEqual(["ID", "発生日", "金額", "取引先"]);
  expect(table.rows[0]).toEqual(["11", "2026-11-02", "12,000", "東京商事"]);
  expect(table.total).toBe(57);
  expect(okNote("read", table)).toBe("取引 57 件を取得しました");
});

it("a result with no list, a cut-off answer or plain text has no table; long cells and wide lists are bounded", () => {
  expect(readTableOf(JSON.stringify({ employee: { id: 1 } }))).toBeUndefined();
  expect(readTableOf('{"deals": [{"id": 1}')).toBeUndefined();
  expect(readTableOf("rate limited")).toBeUndefined();
  const wide = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, "x".repeat(100)]));
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
