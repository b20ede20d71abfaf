import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { zodTool } from "../../../lib/freee/tools/define";
import { normaliseToolInput } from "../../../lib/freee/tools/normalise";
import { FREEE_TOOLS, getTool } from "../../../lib/freee/tools/registry";

/** Generic and typed tools read their input by freee's own schemas: what freee would refuse never passes. */

const post = getTool("freee_api_post")!;
const get = getTool("freee_api_get")!;
const del = getTool("freee_api_delete")!;
const put = getTool("freee_api_put")!;
const createDeal = getTool("freee_accounting_create_deal")!;
const workRecord = getTool("freee_hr_update_work_record")!;

/** The operation's own inputs, which follow its issues (the planner's retry needs them; the catalogue has none). */
const SCHEMA_TEXT = (template: string) => expect.stringMatching(new RegExp(`^${template.replace(/[{}]/g, "\\$&")}（.+）の入力:\n`));

const invoice = {
  path: "/iv/invoices",
  body: { billing_date: "2026-12-31", partner_id: 12, partner_title: "御中", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", lines: [{ description: "12月分", quantity: 1, unit_price: "100000", tax_rate: 10 }] },
};

describe("generic tools: method + path + query + body, checked against the operation's schema", () => {
  it("the registry has freee_api_get / post / put / patch / delete beside the typed tools", () => {
    expect(FREEE_TOOLS.filter((t) => t.method !== undefined).map((t) => t.name)).toEqual(["freee_api_get", "freee_api_post", "freee_api_put", "freee_api_patch", "freee_api_delete"]);
    expect(post.readOnly).toBe(false);
    expect(get.readOnly).toBe(true);
  });

  it("an invoice that validates is the request freee gets, with the connected company in the body", () => {
    const n = normaliseToolInput(post, invoice, { companyId: 101 });
    expect(n.ok).toBe(true);
    if (!n.ok) return;
    expect(post.toRequest(n.input, 101)).toEqual({ method: "POST", path: "/iv/invoices", body: { ...invoice.body, company_id: 101 } });
  });

  it("a path that is no operation of freee's schema is refused", () => {
    const n = normaliseToolInput(post, { path: "/iv/invoices/send", body: {} }, { companyId: 101 });
    expect(n).toMatchObject({ ok: false, issues: [expect.stringMatching(/POST \/iv\/invoices\/send は freee API の操作ではありません/)] });
    expect(normaliseToolInput(get, { path: "/api/1/deals?limit=5" })).toMatchObject({ ok: false });
  });

  it("a body the schema refuses is refused with freee's rule in Japanese: missing, wrong enum, unknown field", () => {
    const { partner_title: _t, ...noTitle } = invoice.body;
    expect(normaliseToolInput(post, { ...invoice, body: noTitle }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["partner_title は必須です", SCHEMA_TEXT("POST /iv/invoices")] });
    expect(normaliseToolInput(post, { ...invoice, body: { ...invoice.body, tax_fraction: "half" } }, { companyId: 101 })).toMatchObject({ ok: false, issues: [expect.stringMatching(/^tax_fraction は omit, round_up, round のいずれか/), SCHEMA_TEXT("POST /iv/invoices")] });
    expect(normaliseToolInput(post, { ...invoice, body: { ...invoice.body, billing_dat: "2026-12-31" } }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["billing_dat は不明な項目です", SCHEMA_TEXT("POST /iv/invoices")] });
  });

  it("an operation with a typed tool is planned with it; the field a marker can use stays the plan's", () => {
    expect(normaliseToolInput(post, { path: "/api/1/deals", body: {} }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["POST /api/1/deals は freee_accounting_create_deal で指定してください"] });
    const journal = { path: "/api/1/manual_journals", body: { issue_date: "2026-12-01", ref_number: "A-1", details: [{ entry_side: "debit", account_item_id: 23, tax_code: 136, amount: 100 }] } };
    expect(normaliseToolInput(post, journal, { companyId: 101 })).toMatchObject({ ok: true, input: { body: { ref_number: "A-1" } } });
  });

  it("company_id: the connected one leaves the input; another company is a mismatch; at plan time none is taken", () => {
    const same = normaliseToolInput(del, { path: "/api/1/deals/5", query: { company_id: 101 } }, { companyId: 101 });
    expect(same).toMatchObject({ ok: true, input: { path: "/api/1/deals/5" } });
    expect(normaliseToolInput(del, { path: "/api/1/deals/5", query: { company_id: 202 } }, { companyId: 101 })).toMatchObject({ ok: false, reason: "company_mismatch" });
    expect(normaliseToolInput(post, { ...invoice, body: { ...invoice.body, company_id: 101 } })).toMatchObject({ ok: false, reason: "invalid_input" });
  });

  it("one spelling: numeric strings read as the schema's numbers, so the same write written two ways is one canonical input", () => {
    const a = normaliseToolInput(post, invoice, { companyId: 101 });
    const b = normaliseToolInput(post, { body: { ...invoice.body, partner_id: "12" }, path: "/iv/invoices" }, { companyId: 101 });
    expect(a.ok && b.ok && a.canonical === b.canonical).toBe(true);
    const q = normaliseToolInput(get, { path: "/api/1/deals", query: { limit: "20" } }, { companyId: 101 });
    expect(q).toMatchObject({ ok: true, input: { query: { limit: 20 } } });
  });

  it("a plan-time read step may leave out required values the agent fills in, but not misspell them", () => {
    expect(normaliseToolInput(get, { path: "/hr/api/v1/employees" }, { partial: true })).toMatchObject({ ok: true });
    expect(normaliseToolInput(get, { path: "/hr/api/v1/employees" }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["クエリ year は必須です", "クエリ month は必須です", SCHEMA_TEXT("GET /hr/api/v1/employees")] });
    expect(normaliseToolInput(get, { path: "/hr/api/v1/employees", query: { month: 13 } }, { partial: true })).toMatchObject({ ok: false, issues: ["クエリ month は 12 以下で指定してください", SCHEMA_TEXT("GET /hr/api/v1/employees")] });
  });
});

describe("generic tools reach every API: 工数管理 and 販売, PATCH, the company in the path", () => {
  const patch = getTool("freee_api_patch")!;

  it("a 工数管理 read and a 販売 PATCH validate and go out with the connected company where their schema puts it", () => {
    const read = normaliseToolInput(get, { path: "/pm/projects", query: { limit: 10 } }, { companyId: 101 });
    expect(read).toMatchObject({ ok: true });
    if (read.ok) expect(get.toRequest(read.input, 101)).toEqual({ method: "GET", path: "/pm/projects", query: { limit: 10, company_id: 101 } });
    const update = normaliseToolInput(patch, { path: "/sm/businesses/01JD8Z6Q0X4V7K2M9N3P5R8T1W", body: { name: "A社 案件" } }, { companyId: 101 });
    expect(update).toMatchObject({ ok: true });
    if (update.ok) expect(patch.toRequest(update.input, 101)).toEqual({ method: "PATCH", path: "/sm/businesses/01JD8Z6Q0X4V7K2M9N3P5R8T1W", body: { name: "A社 案件", company_id: 101 } });
    expect(normaliseToolInput(patch, { path: "/sm/businesses/01JD8Z6Q0X4V7K2M9N3P5R8T1W", body: { nam: "x" } }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["nam は不明な項目です", SCHEMA_TEXT("PATCH /sm/businesses/{id}")] });
    expect(normaliseToolInput(put, { path: "/sm/businesses/01JD8Z6Q0X4V7K2M9N3P5R8T1W", body: {} }, { companyId: 101 })).toMatchObject({ ok: false });
  });

  it("a path naming the company keeps its placeholder and gets the connected company; a written company id is refused", () => {
    const taxes = normaliseToolInput(get, { path: "/api/1/taxes/companies/{company_id}" }, { companyId: 101 });
    expect(taxes).toMatchObject({ ok: true });
    if (taxes.ok) expect(get.toRequest(taxes.input, 101)).toEqual({ method: "GET", path: "/api/1/taxes/companies/101" });
    expect(normaliseToolInput(get, { path: "/api/1/taxes/companies/202" }, { companyId: 101 })).toMatchObject({ ok: false, issues: [expect.stringMatching(/\{company_id\} のまま/)] });
    expect(normaliseToolInput(get, { path: "/api/1/companies/202" }, { companyId: 101 })).toMatchObject({ ok: false, issues: [expect.stringMatching(/\{id\} のまま/)] });
    expect(normaliseToolInput(get, { path: "/api/1/deals/{id}" }, { companyId: 101 })).toMatchObject({ ok: false, issues: [expect.stringMatching(/実際の値にしてください/)] });
  });
});

describe("typed tools take freee's own body", () => {
  const line = { account_item_id: 23, tax_code: 136, amount: 4_800 };

  it("create_deal: payments (a settled expense), a minus line, tags, sections and 管理番号 pass; unknown fields do not", () => {
    const settled = { issue_date: "2026-12-01", type: "expense", details: [line, { ...line, amount: -300, tag_ids: [41], section_id: 51 }], payments: [{ date: "2026-12-01", from_walletable_type: "wallet", from_walletable_id: 32, amount: 4_500 }] };
    const n = normaliseToolInput(createDeal, settled, { companyId: 101 });
    expect(n.ok).toBe(true);
    if (n.ok) expect(createDeal.toRequest(n.input, 101)).toEqual({ method: "POST", path: "/api/1/deals", body: { company_id: 101, ...settled } });
    expect(normaliseToolInput(createDeal, { ...settled, ref_number: "A-2026-12" }, { companyId: 101 })).toMatchObject({ ok: true, input: { ref_number: "A-2026-12" } });
    expect(normaliseToolInput(createDeal, { ...settled, ref_numbr: "x" }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["ref_numbr は不明な項目です"] });
    expect(normaliseToolInput(createDeal, { ...settled, payments: [{ date: "2026-12-01", amount: 1 }] }, { companyId: 101 })).toMatchObject({
      ok: false,
      issues: ["payments.0.from_walletable_id は必須です", "payments.0.from_walletable_type は必須です"],
    });
  });

  it("update_work_record: work_record_segments in freee's 「YYYY-MM-DD HH:MM:SS」; ISO 8601 and the deprecated clock_in_at are refused", () => {
    const segments = [{ clock_in_at: "2026-12-01 09:00:00", clock_out_at: "2026-12-01 18:00:00" }];
    const n = normaliseToolInput(workRecord, { employee_id: 1, date: "2026-12-01", work_record_segments: segments }, { companyId: 101 });
    expect(n.ok).toBe(true);
    if (n.ok) expect(workRecord.toRequest(n.input, 101)).toEqual({ method: "PUT", path: "/hr/api/v1/employees/1/work_records/2026-12-01", body: { company_id: 101, work_record_segments: segments } });
    const iso = normaliseToolInput(workRecord, { employee_id: 1, date: "2026-12-01", work_record_segments: [{ ...segments[0], clock_in_at: "2026-12-01T09:00:00+09:00" }] }, { companyId: 101 });
    expect(iso).toMatchObject({ ok: false, issues: [expect.stringMatching(/^work_record_segments\.0\.clock_in_at の形式が不正です/)] });
    expect(normaliseToolInput(workRecord, { employee_id: 1, date: "2026-12-01", clock_in_at: "2026-12-01 09:00:00" }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["clock_in_at は不明な項目です"] });
  });

  it("the MCP tools/list schema of each tool is self-contained JSON Schema (no $ref into the vendored documents)", () => {
    for (const t of FREEE_TOOLS) expect(JSON.stringify(t.inputSchema), t.name).not.toContain("$ref");
  });
});

describe("every tool's request is checked against freee's schema, whatever the tool's own input rules", () => {
  it("a typed tool whose input is looser than freee (month 13) is refused with the schema's rule", () => {
    const loose = zodTool({
      name: "loose_list_employees",
      description: "test",
      readOnly: true,
      operation: "GET /hr/api/v1/employees",
      inputShape: { year: z.number(), month: z.number() },
      toRequest: (i, companyId) => ({ method: "GET", path: "/hr/api/v1/employees", query: { company_id: companyId, year: i.year, month: i.month } }),
    });
    expect(normaliseToolInput(loose, { year: 2026, month: 12 }, { companyId: 101 })).toMatchObject({ ok: true });
    expect(normaliseToolInput(loose, { year: 2026, month: 13 }, { companyId: 101 })).toMatchObject({ ok: false, issues: ["freee のスキーマ: クエリ month は 12 以下で指定してください"] });
  });
});
