import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { readTableOf } from "../../lib/model/agent/step-results";
import { resultTableText } from "../../lib/ingress/cards/result-table";
import { RESULT_COLUMNS_FILE, renderResultColumns } from "../../scripts/generate-result-columns";

/**
 * A read result on the card as an accountant reads it: freee's Japanese column names, enum values in words, no
 * internal columns, one line per row — from freee's answer (the shape the MCP server returns) to the card text.
 */
const DEALS = {
  deals: [
    { id: 3, company_id: 1, issue_date: "2026-12-02", due_date: null, amount: 5500, due_amount: 0, type: "expense", partner_id: 11, partner_code: null, ref_number: null, status: "settled", details: [{ account_item_id: 21, tax_code: 136, amount: 5500 }], partner_name: "東京タクシー" },
    { id: 4, company_id: 1, issue_date: "2026-12-03", due_date: "2026-12-31", amount: 330000, due_amount: 330000, type: "income", partner_id: 12, partner_code: null, ref_number: null, status: "unsettled", details: [], partner_name: "<!channel> 商事\n改行" },
  ],
  meta: { total_count: 14 },
};

describe("a read result on the Execution card", () => {
  it("freee's deals: Japanese columns, 支出 / 収入, amounts in 円, no company_id / tax_code / ids, escaped cells, the rest counted", () => {
    const table = readTableOf(JSON.stringify(DEALS))!;
    const text = resultTableText("*1. 取引（14 件）*", table, 10, 2400, (rest) => `ほか ${rest} 件`);
    expect(text).toBe(
      [
        "*1. 取引（14 件）*",
        "*発生日* ／ *支払期日* ／ *収支区分* ／ *取引先* ／ *金額* ／ *支払残額*",
        "• 2026-12-02 ／ — ／ 支出 ／ 東京タクシー ／ 5,500円 ／ 0円",
        "• 2026-12-03 ／ 2026-12-31 ／ 収入 ／ &lt;!channel&gt; 商事 改行 ／ 330,000円 ／ 330,000円",
        "ほか 12 件",
      ].join("\n"),
    );
    for (const internal of ["company_id", "tax_code", "expense", "income", "```", " | "]) expect(text).not.toContain(internal);
  });

  it("rows stop before the section's limit; what is left out is counted, never cut mid-row", () => {
    const table = { label: "取引先", columns: ["名前"], rows: Array.from({ length: 10 }, (_, i) => [`取引先${i}`.padEnd(30, "あ")]), total: 10 };
    const text = resultTableText("*h*", table, 10, 120, (rest) => `ほか ${rest} 件`);
    const rows = text.split("\n").filter((l) => l.startsWith("• "));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(10);
    expect(text.endsWith(`ほか ${10 - rows.length} 件`)).toBe(true);
  });

  it("keys and values named like Object's own members are data: no column, no meaning from the prototype", () => {
    // As freee's JSON text: an object literal would make `__proto__` the prototype, not a field.
    const answer = `{"walletables": [
      {"id": 1, "name": "普通預金", "type": "constructor", "constructor": "x", "toString": "y", "__proto__": "z"},
      {"id": 2, "name": "現金", "type": "wallet", "hasOwnProperty": 1}
    ]}`;
    const table = readTableOf(answer)!;
    expect(table.columns).toEqual(["口座名", "口座種別"]);
    expect(table.rows).toEqual([
      ["普通預金", "constructor"],
      ["現金", "現金・その他"],
    ]);
  });

  it("the column names are freee's, compiled from its vendored response schemas (regenerate after re-vendoring)", () => {
    expect(readFileSync(RESULT_COLUMNS_FILE, "utf8")).toBe(renderResultColumns());
  });
});
