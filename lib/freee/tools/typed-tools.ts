import * as z from "../../core/zod";
import { operationTool, zodTool, type FreeeToolDefinition } from "./define";
import { UPLOAD_RECEIPT } from "./upload-tool";
import { typedSummaryOf } from "./summaries";

/**
 * The typed tools: a better handle than the generic ones where a request is common (employees, pay rules, deals,
 * attendance). Their requests are checked against freee's schema like every other (lib/freee/tools/normalise.ts); the
 * writes among them take freee's own body (`operationTool`), except the pay rule, whose flat input names the
 * two values that change.
 */

/**
 * A whole number as freee wants it. A numeric string ("300000", "300000.0") is read as the number, so the same
 * amount written three ways is one value (an approved write matches on normalised input).
 */
const NUMERIC_STRING = /^\s*-?\d+(\.0+)?\s*$/;
function whole(schema: z.ZodMiniNumber = z.int()) {
  // zod classic's preprocess, spelled in mini: a transform piped into the schema.
  return z.pipe(
    z.transform((v: unknown) => (typeof v === "string" && NUMERIC_STRING.test(v) ? Number(v) : v)),
    schema,
  );
}
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const yearMonth = {
  year: whole(z.int().check(z.gte(2000), z.lte(2100))).check(z.describe("対象年")),
  month: whole(z.int().check(z.gte(1), z.lte(12))).check(z.describe("対象月")),
};

/** A typed tool's name, description, read/write and operation, as lib/freee/tools/summaries.ts states them (one source). */
function about(name: string): { name: string; description: string; readOnly: boolean; operation: string } {
  const { description, readOnly, operation } = typedSummaryOf(name);
  return { name, description, readOnly, operation };
}

export const TYPED_TOOLS: readonly FreeeToolDefinition[] = [
  zodTool({
    ...about("freee_hr_list_employees"),
    inputShape: { ...yearMonth, limit: z.optional(whole(z.int().check(z.gte(1), z.lte(100)))), offset: z.optional(whole(z.int().check(z.gte(0)))) },
    toRequest: (i, companyId) => ({ method: "GET", path: "/hr/api/v1/employees", query: { company_id: companyId, year: i.year, month: i.month, limit: i.limit, offset: i.offset } }),
  }),
  zodTool({
    ...about("freee_hr_get_employee"),
    inputShape: { ...yearMonth, employee_id: whole(z.int().check(z.positive())).check(z.describe("従業員 ID")) },
    toRequest: (i, companyId) => ({ method: "GET", path: `/hr/api/v1/employees/${i.employee_id}`, query: { company_id: companyId, year: i.year, month: i.month } }),
  }),
  zodTool({
    ...about("freee_hr_get_work_record"),
    inputShape: { employee_id: whole(z.int().check(z.positive())), date: z.string().check(z.regex(DATE), z.describe("YYYY-MM-DD")) },
    toRequest: (i, companyId) => ({ method: "GET", path: `/hr/api/v1/employees/${i.employee_id}/work_records/${i.date}`, query: { company_id: companyId } }),
  }),
  operationTool({
    ...about("freee_hr_update_work_record"),
    // freee deprecated the single clock_in_at / clock_out_at in favour of work_record_segments.
    omit: ["clock_in_at", "clock_out_at"],
  }),
  zodTool({
    ...about("freee_hr_get_basic_pay_rule"),
    inputShape: { ...yearMonth, employee_id: whole(z.int().check(z.positive())) },
    toRequest: (i, companyId) => ({ method: "GET", path: `/hr/api/v1/employees/${i.employee_id}/basic_pay_rule`, query: { company_id: companyId, year: i.year, month: i.month } }),
  }),
  zodTool({
    ...about("freee_hr_update_basic_pay_rule"),
    inputShape: {
      ...yearMonth,
      employee_id: whole(z.int().check(z.positive())),
      pay_calc_type: z.enum(["monthly", "daily", "hourly"]).check(z.describe("給与形態")),
      pay_amount: whole(z.int().check(z.gte(0), z.lte(99_999_999))).check(z.describe("基本給（円）")),
    },
    toRequest: (i, companyId) => ({
      method: "PUT",
      path: `/hr/api/v1/employees/${i.employee_id}/basic_pay_rule`,
      body: { company_id: companyId, year: i.year, month: i.month, employee_basic_pay_rule: { pay_calc_type: i.pay_calc_type, pay_amount: i.pay_amount } },
    }),
  }),
  zodTool({
    ...about("freee_accounting_list_deals"),
    inputShape: {
      type: z.optional(z.enum(["income", "expense"])),
      partner_id: z.optional(whole(z.int().check(z.positive()))),
      start_issue_date: z.optional(z.string().check(z.regex(DATE))).check(z.describe("YYYY-MM-DD")),
      end_issue_date: z.optional(z.string().check(z.regex(DATE))).check(z.describe("YYYY-MM-DD")),
      limit: z.optional(whole(z.int().check(z.gte(1), z.lte(100)))),
      offset: z.optional(whole(z.int().check(z.gte(0)))),
    },
    toRequest: (query, companyId) => ({ method: "GET", path: "/api/1/deals", query: { company_id: companyId, ...query } }),
  }),
  // ref_number (管理番号) is the plan's to set; left empty, it carries the write's marker (lib/freee/write-reconciler.ts).
  operationTool(about("freee_accounting_create_deal")),
  zodTool({
    ...about("freee_accounting_list_partners"),
    inputShape: { keyword: z.optional(z.string()), limit: z.optional(whole(z.int().check(z.gte(1), z.lte(3000)))) },
    toRequest: (query, companyId) => ({ method: "GET", path: "/api/1/partners", query: { company_id: companyId, ...query } }),
  }),
  zodTool({
    ...about("freee_accounting_list_account_items"),
    inputShape: {},
    toRequest: (_i, companyId) => ({ method: "GET", path: "/api/1/account_items", query: { company_id: companyId } }),
  }),
  UPLOAD_RECEIPT,
];
