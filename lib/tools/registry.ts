import { z } from "zod";
import type { FreeeRequest } from "../freee/types";

/**
 * The freee tools the MCP server offers — one registry shared by L3 (which may only plan steps with these
 * names or `agent_decide`) and the MCP server (which serves and enforces them).
 */

export const AGENT_DECIDE = "agent_decide" as const;

/**
 * A whole number as freee wants it. A numeric string ("300000", "300000.0") is read as the number, so the same
 * amount written three ways is one value (DESIGN §7: an approved write matches on normalised input).
 */
const NUMERIC_STRING = /^\s*-?\d+(\.0+)?\s*$/;
function whole(schema: z.ZodNumber = z.number().int()) {
  return z.preprocess((v) => (typeof v === "string" && NUMERIC_STRING.test(v) ? Number(v) : v), schema);
}
/** A freee API path the free-form GET may read, and what an `agent_decide` scope names as a prefix. */
export const FREEE_GET_PATH = /^\/(api\/1|hr\/api\/v1)(\/[A-Za-z0-9_-]+)+$/;
const yearMonth = {
  year: whole(z.number().int().min(2000).max(2100)).describe("対象年"),
  month: whole(z.number().int().min(1).max(12)).describe("対象月"),
};

export interface FreeeToolDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** Japanese, for the agent and for the Process card. */
  description: string;
  /** Read-only tools are what an `agent_decide` step may use; the others write (`effect: "write"`). */
  readOnly: boolean;
  /**
   * The input the agent and L3 see. There is no `company_id`: the company is always the workspace's connected
   * one (DESIGN §7), never the model's choice.
   */
  inputShape: S;
  /**
   * The freee API call for a validated input, in the connected company `companyId`. Method syntax on purpose:
   * each tool narrows `input` to its own shape.
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
    inputShape: { ...yearMonth, limit: whole(z.number().int().min(1).max(100)).optional(), offset: whole(z.number().int().min(0)).optional() },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: "/hr/api/v1/employees",
      query: { company_id: companyId, year: i.year, month: i.month, limit: i.limit, offset: i.offset },
    }),
  }),
  tool({
    name: "freee_hr_get_employee",
    description: "従業員 1 名の情報を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { ...yearMonth, employee_id: whole(z.number().int().positive()).describe("従業員 ID") },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: `/hr/api/v1/employees/${i.employee_id}`,
      query: { company_id: companyId, year: i.year, month: i.month },
    }),
  }),
  tool({
    name: "freee_hr_get_work_record",
    description: "従業員の指定日の勤怠を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { employee_id: whole(z.number().int().positive()), date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("YYYY-MM-DD") },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: `/hr/api/v1/employees/${i.employee_id}/work_records/${i.date}`,
      query: { company_id: companyId },
    }),
  }),
  tool({
    name: "freee_hr_update_work_record",
    description: "従業員の指定日の勤怠を更新します（人事労務 API）。",
    readOnly: false,
    inputShape: {
      employee_id: whole(z.number().int().positive()),
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      clock_in_at: z.string().optional().describe("出勤時刻 (ISO 8601)"),
      clock_out_at: z.string().optional().describe("退勤時刻 (ISO 8601)"),
      break_records: z.array(z.object({ clock_in_at: z.string(), clock_out_at: z.string() })).optional(),
      note: z.string().max(255).optional(),
    },
    toRequest: ({ employee_id, date, ...fields }, companyId) => ({
      method: "PUT",
      path: `/hr/api/v1/employees/${employee_id}/work_records/${date}`,
      body: { company_id: companyId, ...fields },
    }),
  }),
  tool({
    name: "freee_hr_get_basic_pay_rule",
    description: "従業員の基本給設定（給与計算の基礎）を取得します（人事労務 API）。",
    readOnly: true,
    inputShape: { ...yearMonth, employee_id: whole(z.number().int().positive()) },
    toRequest: (i, companyId) => ({
      method: "GET",
      path: `/hr/api/v1/employees/${i.employee_id}/basic_pay_rule`,
      query: { company_id: companyId, year: i.year, month: i.month },
    }),
  }),
  tool({
    name: "freee_hr_update_basic_pay_rule",
    description: "従業員の基本給設定を更新します（人事労務 API）。指定年月から適用されます。",
    readOnly: false,
    inputShape: {
      ...yearMonth,
      employee_id: whole(z.number().int().positive()),
      pay_calc_type: z.enum(["monthly", "daily", "hourly"]).describe("給与形態"),
      pay_amount: whole(z.number().int().min(0).max(99_999_999)).describe("基本給（円）"),
    },
    toRequest: (i, companyId) => ({
      method: "PUT",
      path: `/hr/api/v1/employees/${i.employee_id}/basic_pay_rule`,
      body: {
        company_id: companyId,
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
      type: z.enum(["income", "expense"]).optional(),
      partner_id: whole(z.number().int().positive()).optional(),
      start_issue_date: z.string().optional(),
      end_issue_date: z.string().optional(),
      limit: whole(z.number().int().min(1).max(100)).optional(),
      offset: whole(z.number().int().min(0)).optional(),
    },
    toRequest: (query, companyId) => ({
      method: "GET",
      path: "/api/1/deals",
      query: { company_id: companyId, ...query },
    }),
  }),
  tool({
    name: "freee_accounting_create_deal",
    description: "取引（収入・支出）を 1 件登録します（会計 API）。",
    readOnly: false,
    inputShape: {
      issue_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("発生日 YYYY-MM-DD"),
      type: z.enum(["income", "expense"]),
      partner_id: whole(z.number().int().positive()).optional(),
      due_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
      details: z
        .array(
          z.object({
            account_item_id: whole(z.number().int().positive()),
            tax_code: whole(z.number().int().nonnegative()),
            amount: whole(z.number().int().positive()),
            description: z.string().max(250).optional(),
          }),
        )
        .min(1),
    },
    toRequest: (fields, companyId) => ({
      method: "POST",
      path: "/api/1/deals",
      body: { company_id: companyId, ...fields },
    }),
  }),
  tool({
    name: "freee_accounting_list_partners",
    description: "取引先の一覧を取得します（会計 API）。",
    readOnly: true,
    inputShape: { keyword: z.string().optional(), limit: whole(z.number().int().min(1).max(3000)).optional() },
    toRequest: (query, companyId) => ({
      method: "GET",
      path: "/api/1/partners",
      query: { company_id: companyId, ...query },
    }),
  }),
  tool({
    name: "freee_accounting_list_account_items",
    description: "勘定科目の一覧を取得します（会計 API）。",
    readOnly: true,
    inputShape: {},
    toRequest: (i, companyId) => ({
      method: "GET",
      path: "/api/1/account_items",
      query: { company_id: companyId },
    }),
  }),
  tool({
    name: "freee_api_get",
    description: "freee API の任意の GET を実行します（読み取り専用。/api/1/ または /hr/api/v1/ 配下のみ）。",
    readOnly: true,
    inputShape: {
      path: z.string().regex(FREEE_GET_PATH, "path must be under /api/1/ or /hr/api/v1/ (segments of A-Z a-z 0-9 _ -)"),
      query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    },
    // company_id is always the connected company: a query naming another one is refused before this runs.
    toRequest: (i, companyId) => ({
      method: "GET",
      path: i.path,
      query: { ...(i.query ?? {}), company_id: companyId },
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

export type StepEffect = "read" | "write";

/**
 * What a step does to freee. The tool decides, not the recorded `effect` (which L3 states and the validator
 * checks): a step naming a write tool is a write step whatever it says, and `agent_decide` only reads.
 */
export function effectOfStep(step: { tool: string }): StepEffect {
  if (step.tool === AGENT_DECIDE) return "read";
  return getTool(step.tool)?.readOnly === true ? "read" : "write";
}

/**
 * The tools a session may use for an approved Process: the tools its steps name, plus the read tools each
 * `agent_decide` step's scope names. Nothing else is enabled (DESIGN §7); the MCP server enforces the finer
 * rules (write input, path prefixes) per call.
 */
export function allowedToolsForSteps(steps: readonly { tool: string; readScope?: { tools: readonly string[] } }[]): string[] {
  const allowed = new Set<string>();
  for (const step of steps) {
    if (step.tool === AGENT_DECIDE) {
      for (const name of step.readScope?.tools ?? []) if (getTool(name)?.readOnly === true) allowed.add(name);
    } else if (FREEE_TOOL_NAMES.has(step.tool)) allowed.add(step.tool);
  }
  return [...allowed].sort();
}
