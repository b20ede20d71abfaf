import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { calendarText } from "../../lib/model/calendar";
import { stepText } from "../../lib/preview/plan";
import { readConditions, readInWords } from "../../lib/preview/read-words";
import { READ_PARAMS_FILE, renderReadParams } from "../../scripts/generate-read-params";

/**
 * A read step on the Process card says what it reads in words — period, filters, how many rows at most — so the
 * approver sees 「2026年12月の取引（最大 20 件）」, not `freee_accounting_list_deals {"limit":20}`.
 */
const read = (tool: string, toolInput: Record<string, unknown>): ProcessStep => ({ stepId: "s1", order: 1, tool, effect: "read", toolInput });

describe("a read in words", () => {
  it.each([
    ["freee_accounting_list_deals", { start_issue_date: "2026-12-01", end_issue_date: "2026-12-31", limit: 20 }, "2026年12月の取引（最大 20 件）"],
    ["freee_accounting_list_deals", { start_issue_date: "2026-12-01", end_issue_date: "2026-12-15", type: "expense" }, "2026年12月1日〜12月15日の支出の取引（最大 20 件）"],
    ["freee_accounting_list_deals", { start_issue_date: "2026-12-01", end_issue_date: "2027-01-15", limit: 100 }, "2026年12月1日〜2027年1月15日の取引（最大 100 件）"],
    ["freee_accounting_list_deals", { partner_id: 12, limit: 20, offset: 40 }, "取引先 ID 12 の取引（最大 20 件、40 件目以降）"],
    ["freee_accounting_list_deals", { start_issue_date: "2026-12-05" }, "2026年12月5日以降の取引（最大 20 件）"],
    ["freee_hr_list_employees", { year: 2027, month: 1 }, "2027年1月の従業員（最大 50 件）"],
    ["freee_hr_get_work_record", { employee_id: 2, date: "2026-12-03" }, "従業員 ID 2 の2026年12月3日の勤怠"],
    ["freee_accounting_list_account_items", {}, "勘定科目の一覧"],
    ["freee_api_get", { path: "/api/1/receipts", query: { start_date: "2026-12-02", end_date: "2026-12-02" } }, "2026年12月2日のファイルボックス（証憑）（最大 50 件）"],
    // The last fixed segment is not always the collection read: a segment's tags, a company's taxes, the invoice API's receipts.
    ["freee_api_get", { path: "/api/1/segments/1/tags" }, "セグメント ID 1 のセグメントタグ（最大 20 件）"],
    ["freee_api_get", { path: "/api/1/taxes/companies/101" }, "事業所 ID 101 の税区分"],
    ["freee_api_get", { path: "/api/1/tags" }, "メモタグ（最大 50 件）"],
    ["freee_api_get", { path: "/iv/receipts/5" }, "領収書 ID 5"],
    ["freee_api_get", { path: "/sm/master/items" }, "商品（最大 100 件）"],
  ])("%s %j → %s", (tool, input, words) => {
    expect(readInWords({ tool, toolInput: input })).toBe(words);
  });

  it("freee's words for its parameters are compiled from the vendored OpenAPI (regenerate after re-vendoring)", () => {
    expect(readFileSync(READ_PARAMS_FILE, "utf8")).toBe(renderReadParams());
  });

  it("the card shows the words, not the tool's name and raw input (that stays behind 入力 JSON)", () => {
    const text = stepText(read("freee_accounting_list_deals", { start_issue_date: "2026-12-01", end_issue_date: "2026-12-31", limit: 20 }), undefined);
    expect(text).toBe("*1. 2026年12月の取引（最大 20 件）*（読み取り）");
  });

  it("a field the words cannot say is counted on the card, the raw input one click away (nothing approved unseen)", () => {
    const step = read("freee_api_get", { path: "/api/1/deals", query: { no_such_filter: "x", type: "expense" } });
    expect(readInWords(step)).toBeUndefined();
    expect(readConditions(step)).toEqual(["支出", "最大 20 件", "ほかの条件 1 件（「入力 JSON」で確認できます）"]);
    expect(stepText(step, undefined)).toContain("ほかの条件 1 件（「入力 JSON」で確認できます）");
  });
});

describe("the calendar the planners get", () => {
  it("names this, last and next month in Japan, across a year end and at JST midnight", () => {
    // 00:30 JST on 1 January 2027 is still 31 December in UTC.
    expect(calendarText(new Date("2026-12-31T15:30:00Z"))).toBe(
      ["今月: 2027年1月（2027-01-01 〜 2027-01-31）", "先月: 2026年12月（2026-12-01 〜 2026-12-31）", "来月: 2027年2月（2027-02-01 〜 2027-02-28）"].join("\n"),
    );
  });
});
