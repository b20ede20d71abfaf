import { z } from "zod";
import type { FreeeRequest } from "../freee/types";

/**
 * The freee tools the MCP server offers — one registry shared by L3 (which may only plan steps with these
 * names or `agent_decide`) and the MCP server (which serves and enforces them).
 */

export const AGENT_DECIDE = "agent_decide" as const;

const companyScoped = { company_id: z.number().int().positive().optional().describe("事業所 ID（省略時は接続済みの事業所）") };
const yearMonth = {
  year: z.number().int().min(2000).max(2100).describe("対象年"),
  month: z.number().int().min(1).max(12).describe("対象月"),
};

export interface FreeeToolDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** Japanese, for the agent and for the Process card. */
  description: string;
  /** Read-only tools are what an `agent_decide` step may use. */
  readOnly: boolean;
  inputShape: S;
  /**
   * The freee API call for a validated input. `companyId` is the workspace's connected company, used when the
   * input names none. Method syntax on purpose: each tool narrows `input` to its own shape.
   */
  toRequest(input: z.infer<z.ZodObject<S>>, companyId: number): FreeeRequest;
}

function tool<S extends z.ZodRawShape>(definition: FreeeToolDefinition<S>): FreeeToolDefinition<S> {
  return definition;
}

export const FREEE_TOOLS = [
  tool({
    name: "freee_hr_list_employees",
    description: "指定した年月に在籍する従業員の一覧を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { ...companyScoped, ...yearMonth, limit: z.number().int().min(1).max(100).optional(), offset: z.number().int().min(0).optional() },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: "/hr/api/v1/employees",
      query: { company_id: i.company_id ?? companyId, year: i.year, month: i.month, limit: i.limit, offset: i.offset },
    }),
  }),
  tool({
    name: "freee_hr_get_employee",
    description: "従業員 1 名の情報を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { ...companyScoped, ...yearMonth, employee_id: z.number().int().positive().describe("従業員 ID") },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: `/hr/api/v1/employees/${i.employee_id}`,
      query: { company_id: i.company_id ?? companyId, year: i.year, month: i.month },
    }),
  }),
  tool({
    name: "freee_hr_get_work_record",
    description: "従業員の指定日の勤怠を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { ...companyScoped, employee_id: z.number().int().positive(), date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("YYYY-MM-DD") },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: `/hr/api/v1/employees/${i.employee_id}/work_records/${i.date}`,
      query: { company_id: i.company_id ?? companyId },
    }),
  }),
  tool({
    name: "freee_hr_update_work_record",
    description: "従業員の指定日の勤怠を更新します（人事労務 API）。",
    readOnly: false,
    inputShape: {
      ...companyScoped,
      employee_id: z.number().int().positive(),
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      clock_in_at: z.string().optional().describe("出勤時刻 (ISO 8601)"),
      clock_out_at: z.string().optional().describe("退勤時刻 (ISO 8601)"),
      break_records: z.array(z.object({ clock_in_at: z.string(), clock_out_at: z.string() })).optional(),
      note: z.string().max(255).optional(),
    },
    toRequest: ({ company_id, employee_id, date, ...fields }, companyId) => ({
      method: "PUT",
      path: `/hr/api/v1/employees/${employee_id}/work_records/${date}`,
      body: { company_id: company_id ?? companyId, ...fields },
    }),
  }),
  tool({
    name: "freee_hr_get_basic_pay_rule",
    description: "従業員の基本給設定（給与計算の基礎）を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { ...companyScoped, ...yearMonth, employee_id: z.number().int().positive() },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: `/hr/api/v1/employees/${i.employee_id}/basic_pay_rule`,
      query: { company_id: i.company_id ?? companyId, year: i.year, month: i.month },
    }),
  }),
  tool({
    name: "freee_hr_update_basic_pay_rule",
    description: "従業員の基本給設定を更新します（人事労務 API）。指定年月から適用されます。",
    readOnly: false,
    inputShape: {
      ...companyScoped,
      ...yearMonth,
      employee_id: z.number().int().positive(),
      pay_calc_type: z.enum(["monthly", "daily", "hourly"]).describe("給与形態"),
      pay_amount: z.number().int().nonnegative().describe("基本給（円）"),
    },
    toRequest: (i, companyId) => ({
      method: "PUT",
      path: `/hr/api/v1/employees/${i.employee_id}/basic_pay_rule`,
      body: {
        company_id: i.company_id ?? companyId,
        year: i.year,
        month: i.month,
        employee_basic_pay_rule: { pay_calc_type: i.pay_calc_type, pay_amount: i.pay_amount },
      },
    }),
  }),
  tool({
    name: "freee_accounting_list_deals",
    description: "取引（収入・支出）の一覧を取得します（会計 API）。",
    readOnly: true,
    inputShape: {
      ...companyScoped,
      type: z.enum(["income", "expense"]).optional(),
      partner_id: z.number().int().positive().optional(),
      start_issue_date: z.string().optional(),
      end_issue_date: z.string().optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).optional(),
    },
    toRequest: ({ company_id, ...query }, companyId) => ({
      method: "GET",
      path: "/api/1/deals",
      query: { company_id: company_id ?? companyId, ...query },
    }),
  }),
  tool({
    name: "freee_accounting_create_deal",
    description: "取引（収入・支出）を 1 件登録します（会計 API）。",
    readOnly: false,
    inputShape: {
      ...companyScoped,
      issue_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("発生日 YYYY-MM-DD"),
      type: z.enum(["income", "expense"]),
      partner_id: z.number().int().positive().optional(),
      due_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
      details: z
        .array(
          z.object({
            account_item_id: z.number().int().positive(),
            tax_code: z.number().int().nonnegative(),
            amount: z.number().int().positive(),
            description: z.string().max(250).optional(),
          }),
        )
        .min(1),
    },
    toRequest: ({ company_id, ...fields }, companyId) => ({
      method: "POST",
      path: "/api/1/deals",
      body: { company_id: company_id ?? companyId, ...fields },
    }),
  }),
  tool({
    name: "freee_accounting_list_partners",
    description: "取引先の一覧を取得します（会計 API）。",
    readOnly: true,
    inputShape: { ...companyScoped, keyword: z.string().optional(), limit: z.number().int().min(1).max(3000).optional() },
    toRequest: ({ company_id, ...query }, companyId) => ({
      method: "GET",
      path: "/api/1/partners",
      query: { company_id: company_id ?? companyId, ...query },
    }),
  }),
  tool({
    name: "freee_accounting_list_account_items",
    description: "勘定科目の一覧を取得します（会計 API）。",
    readOnly: true,
    inputShape: { ...companyScoped },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: "/api/1/account_items",
      query: { company_id: i.company_id ?? companyId },
    }),
  }),
  tool({
    name: "freee_api_get",
    description: "freee API の任意の GET を実行します（読み取り専用。/api/1/ または /hr/api/v1/ 配下のみ）。",
    readOnly: true,
    inputShape: {
      path: z.string().regex(/^\/(api\/1|hr\/api\/v1)\/[A-Za-z0-9_\/-]+$/, "path must be under /api/1/ or /hr/api/v1/"),
      query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    },
    // The caller's query wins; company_id is filled in only when absent, as almost every freee GET needs it.
    toRequest: (i, companyId) => ({
      method: "GET",
      path: i.path,
      query: { company_id: companyId, ...(i.query ?? {}) },
    }),
  }),
] as const;

export type FreeeToolName = (typeof FREEE_TOOLS)[number]["name"];

export const FREEE_TOOL_NAMES: ReadonlySet<string> = new Set(FREEE_TOOLS.map((t) => t.name));

export function isKnownTool(name: string): boolean {
  return name === AGENT_DECIDE || FREEE_TOOL_NAMES.has(name);
}

export function getTool(name: string): FreeeToolDefinition | undefined {
  return FREEE_TOOLS.find((t) => t.name === name);
}

export function readOnlyToolNames(): string[] {
  return FREEE_TOOLS.filter((t) => t.readOnly).map((t) => t.name);
}

/**
 * The tools a session may use for an approved Process: the named ones, plus every read-only tool when a step
 * leaves the choice to the agent (`agent_decide`). Nothing else is enabled (DESIGN §7).
 */
export function allowedToolsForSteps(steps: readonly { tool: string }[]): string[] {
  const allowed = new Set<string>();
  for (const step of steps) {
    if (step.tool === AGENT_DECIDE) readOnlyToolNames().forEach((n) => allowed.add(n));
    else if (FREEE_TOOL_NAMES.has(step.tool)) allowed.add(step.tool);
  }
  return [...allowed].sort();
}
