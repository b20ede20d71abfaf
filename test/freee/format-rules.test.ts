import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detailsWithFormatRules, formatRule, isCalendarDate } from "../../lib/freee/openapi/format-rules";
import { inflate, type PackedDetails } from "../../lib/freee/openapi/packed";
import { PACKED_DETAILS, PACKED_INDEX } from "../../lib/freee/openapi/packed-requests";
import { checkRequest, derefSchema, FREEE_OPERATIONS, type RequestCheck } from "../../lib/freee/openapi/validator";
import { checkSteps } from "../../lib/model/process-steps";
import { useFreeeFake } from "../support/freee-fake";

/**
 * freee's format rules the schemas leave out (lib/freee/openapi/format-rules.ts): a date freee would refuse, an
 * amount with a comma or a fraction, a time past 23:59 — refused before freee by the validator every path uses
 * (plan validation, the MCP server), and by the strict fake with freee's 400.
 */

const DEAL = { company_id: 1, issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 1, tax_code: 136, amount: 12_000 }] };
const deal = (over: Record<string, unknown> = {}, line: Record<string, unknown> = {}) => ({ ...DEAL, ...over, details: [{ ...DEAL.details[0], ...line }] });
const post = (body: unknown, coerceBody = false): RequestCheck => checkRequest({ method: "POST", path: "/api/1/deals", body }, { coerceBody, unknownProperties: "reject" });
const messages = (r: RequestCheck) => (r.ok || r.reason !== "invalid" ? [] : r.issues.map((i) => i.message));

describe("the rules are put on when the schemas are vendored", () => {
  it("each API's packed details are freee-operations.json with the rules on (rerun scripts/vendor-freee-openapi.ts after changing a rule)", () => {
    const vendored = JSON.parse(readFileSync(new URL("../../lib/freee/openapi/freee-operations.json", import.meta.url), "utf8")) as {
      apis: Record<string, { operations: Array<{ method: string; path: string; parameters: unknown[]; requestBody?: unknown }>; schemas: Record<string, unknown> }>;
    };
    expect(Object.keys(PACKED_DETAILS)).toEqual(Object.keys(vendored.apis));
    for (const [api, { operations, schemas }] of Object.entries(vendored.apis)) {
      const raw: PackedDetails = { operations: operations.map((op) => ({ parameters: op.parameters, ...(op.requestBody === undefined ? {} : { requestBody: op.requestBody }) })), schemas };
      expect(inflate(PACKED_DETAILS[api]!), api).toEqual(detailsWithFormatRules(api, raw));
      expect(PACKED_INDEX[api]!.operations.map(([method, path]) => `${method} ${path}`), api).toEqual(operations.map((op) => `${op.method} ${op.path}`));
    }
  });
});

describe("dates: YYYY-MM-DD and a day that exists", () => {
  it("an accounting date freee types as a plain string: 2026/12/01 and 2026-02-30 are refused, naming the field", () => {
    expect(post(deal()).ok).toBe(true);
    expect(messages(post(deal({ issue_date: "2026/12/01" })))).toEqual(["issue_date の形式が不正です（YYYY-MM-DD の実在する日付で指定してください。例: 2026-12-01）"]);
    expect(messages(post(deal({ issue_date: "2026-02-30" })))).toHaveLength(1);
    expect(messages(post(deal({ issue_date: "2026-12-1" })))).toHaveLength(1);
    expect(post(deal({ issue_date: "2028-02-29" })).ok).toBe(true);
    expect(post(deal({ due_date: "2026-12-31" })).ok).toBe(true);
    expect(messages(post(deal({ due_date: "2026-11-31" })))[0]).toContain("due_date の形式が不正です");
  });

  it("query filters and path dates alike; HR's format-date fields also get the calendar", () => {
    expect(checkRequest({ method: "GET", path: "/api/1/deals", query: { company_id: 1, start_issue_date: "2026-12-01" } }).ok).toBe(true);
    expect(messages(checkRequest({ method: "GET", path: "/api/1/deals", query: { company_id: 1, start_issue_date: "2026-13-01" } }))[0]).toContain("start_issue_date の形式が不正です");
    const record = checkRequest({ method: "PUT", path: "/hr/api/v1/employees/1/work_records/2026-02-30", body: { company_id: 1 } });
    expect(record).toMatchObject({ ok: false, issues: [{ in: "path", at: "date", keyword: "format" }] });
  });

  it("the calendar: month lengths and leap years", () => {
    expect(["2026-01-31", "2024-02-29", "2000-02-29", "2026-12-31"].map(isCalendarDate)).toEqual([true, true, true, true]);
    expect(["2026-04-31", "2026-02-29", "1900-02-29", "2026-00-10", "2026-12-00", "20261201"].map(isCalendarDate)).toEqual([false, false, false, false, false, false]);
  });
});

describe("amounts: whole yen, no commas, within range", () => {
  it("'12,000' and 1200.5 are refused with what freee wants; '12000' is read as the number in a plan", () => {
    const expected = "details.0.amount は円単位の整数で指定してください（「12,000」のようなカンマや小数は使えません）";
    expect(messages(post(deal({}, { amount: "12,000" }), true))).toEqual([expected]);
    expect(messages(post(deal({}, { amount: 1200.5 }), true))).toEqual([expected]);
    const read = post(deal({}, { amount: "12000" }), true);
    expect(read.ok && (read.normalised.body as typeof DEAL).details[0]!.amount).toBe(12_000);
  });

  it("an amount a JSON number cannot carry exactly, and one past freee's own maximum, are refused", () => {
    expect(messages(post(deal({}, { amount: 2 ** 53 + 2 })))[0]).toContain("円単位の整数");
    const pay = (pay_amount: number) => checkRequest({ method: "PUT", path: "/hr/api/v1/employees/1/basic_pay_rule", body: { company_id: 1, year: 2026, month: 12, employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount } } });
    expect(pay(99_999_999).ok).toBe(true);
    expect(messages(pay(100_000_000))).toEqual(["employee_basic_pay_rule.pay_amount は 99999999 以下で指定してください"]);
  });
});

describe("an invoice line's quantity: at most three decimals (freee's 「小数部は3桁まで」)", () => {
  const invoice = (quantity: unknown) =>
    checkRequest({
      method: "POST",
      path: "/iv/invoices",
      body: { company_id: 1, billing_date: "2026-12-31", partner_id: 12, partner_title: "御中", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", lines: [{ description: "作業", quantity, unit_price: "1000", tax_rate: 10 }] },
    });
  it("1.5 and 2.125 pass; 0.0001 is refused naming the line", () => {
    expect(invoice(1.5).ok).toBe(true);
    expect(invoice(2.125).ok).toBe(true);
    expect(messages(invoice(0.0001))).toEqual(["lines.0.quantity は小数点以下 3 桁までの数で指定してください"]);
  });
});

describe("times: HR's YYYY-MM-DD HH:MM:SS and HH:MM", () => {
  const record = (body: Record<string, unknown>) => checkRequest({ method: "PUT", path: "/hr/api/v1/employees/1/work_records/2026-12-01", body: { company_id: 1, ...body } }, { unknownProperties: "reject" });

  it("a time of day past 23:59 or on a day that does not exist is refused; one message per field", () => {
    expect(record({ clock_in_at: "2026-12-01 09:00", clock_out_at: "2026-12-01 18:00:00" }).ok).toBe(true);
    expect(messages(record({ clock_in_at: "2026-12-01 25:00:00" }))).toEqual(["clock_in_at の形式が不正です（YYYY-MM-DD HH:MM:SS の日本時間で指定してください。例: 2026-12-01 09:00:00）"]);
    expect(messages(record({ work_record_segments: [{ clock_in_at: "2026-02-30 09:00:00", clock_out_at: "2026-12-01 18:60:00" }] }))).toHaveLength(2);
    // ISO 8601 is not what HR takes (its pattern), and the rule says so in the same words.
    expect(messages(record({ clock_in_at: "2026-12-01T09:00:00+09:00" }))[0]).toContain("clock_in_at の形式が不正です");
  });
});

describe("pm's YYYY-MM and HR's HH:MM, rule by rule", () => {
  it("each takes its example, refuses a month or minute that does not exist, and says the shape and the example", () => {
    const month = formatRule("freee-year-month")!;
    expect([month.example, "2026-01", "2026-13", "2026-00", "2026-1", 202612].map((v) => month.validate(v))).toEqual([true, true, false, false, false, false]);
    expect(month.message("year_month")).toBe("year_month の形式が不正です（YYYY-MM で指定してください。例: 2026-12）");
    const time = formatRule("freee-time")!;
    // A 残業 may end past midnight: the hour is two digits, the minutes and seconds a clock's.
    expect([time.example, "25:30", "09:00:59", "09:60", "09:00:60", "9:00"].map((v) => time.validate(v))).toEqual([true, true, true, false, false, false]);
    expect(time.message("start_at")).toBe("start_at の形式が不正です（HH:MM で指定してください。例: 09:00）");
  });
});

describe("the rules reach every vendored operation by where they apply, not by a list", () => {
  /** Every field of a request schema with its name and schema (nested objects and arrays included). */
  function fields(node: unknown, name: string | undefined, out: Array<[string, Record<string, unknown>]>): void {
    if (node === null || typeof node !== "object") return;
    const s = node as Record<string, unknown>;
    if (name !== undefined && typeof s.type === "string" && s.type !== "object" && s.type !== "array") out.push([name, s]);
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) fields(v, k, out);
    if (s.items !== undefined) fields(s.items, name, out);
    for (const alt of [...((s.anyOf ?? []) as unknown[]), ...((s.oneOf ?? []) as unknown[])]) fields(alt, name, out);
  }

  it("each date-named string field, each integer amount field and each of HR's time fields carries its rule", () => {
    const all: Array<[string, Record<string, unknown>]> = [];
    for (const op of FREEE_OPERATIONS) {
      for (const p of op.parameters) fields(p.schema, p.name, all);
      if (op.requestBody !== undefined) fields(derefSchema(op.requestBody.schema), undefined, all);
    }
    const dates = all.filter(([n, s]) => /(^|_)date$/.test(n) && s.type === "string" && !String(s.pattern ?? "").endsWith(")?$"));
    const amounts = all.filter(([n, s]) => /(^|_)amount$/.test(n) && s.type === "integer");
    const times = all.filter(([n, s]) => /_at$/.test(n) && s.type === "string" && typeof s.pattern === "string");
    expect(dates.length).toBeGreaterThan(20);
    expect(amounts.length).toBeGreaterThan(5);
    expect(times.length).toBeGreaterThan(3);
    expect(dates.filter(([, s]) => s.format !== "date").map(([n]) => n)).toEqual([]);
    expect(amounts.filter(([, s]) => s.format !== "freee-yen").map(([n]) => n)).toEqual([]);
    expect(times.filter(([, s]) => s.format !== "freee-date-time" && s.format !== "freee-time").map(([n]) => n)).toEqual([]);
  });
});

describe("a plan with a date freee would refuse fails validation before any call", () => {
  it("L3's write step: the issue names the field and says what freee wants", () => {
    const step = { stepId: "s1", order: 1, tool: "freee_accounting_create_deal", toolInput: { issue_date: "2026/12/01", type: "expense", details: [{ account_item_id: 1, tax_code: 136, amount: 12_000 }] } };
    const result = checkSteps({ steps: [step] });
    expect("issues" in result && result.issues.map((i) => i.message)).toEqual([
      "Step s1 (freee_accounting_create_deal) toolInput: issue_date の形式が不正です（YYYY-MM-DD の実在する日付で指定してください。例: 2026-12-01） (a write step must be fully specified)",
    ]);
    const generic = { stepId: "s1", order: 1, tool: "freee_api_post", toolInput: { path: "/api/1/manual_journals", body: { issue_date: "2026-12-15", details: [{ entry_side: "debit", account_item_id: 1, tax_code: 136, amount: "1,000" }] } } };
    const refused = checkSteps({ steps: [generic] });
    expect("issues" in refused && refused.issues[0]!.message).toContain("details.0.amount は円単位の整数で指定してください");
  });
});

describe("the strict fake agrees: freee's 400 for the same requests", () => {
  const freee = useFreeeFake();
  const send = async (body: unknown) => (await freee.call("POST", "/api/1/deals", { body })) as { status: number; body: { errors?: Array<{ messages: string[] }> } };

  it("2026/12/01, 2026-02-30, '12,000' and 1200.5 are 400 with the field named; no deal is made", async () => {
    const company = freee.fake.company(101);
    const before = company.deals.length;
    for (const [body, field] of [
      [deal({ company_id: 101, issue_date: "2026/12/01" }), "issue_date"],
      [deal({ company_id: 101, issue_date: "2026-02-30" }), "issue_date"],
      [deal({ company_id: 101 }, { amount: "12,000" }), "details.0.amount"],
      [deal({ company_id: 101 }, { amount: 1200.5 }), "details.0.amount"],
    ] as const) {
      const res = await send(body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect(company.deals.length).toBe(before);
  });
});
