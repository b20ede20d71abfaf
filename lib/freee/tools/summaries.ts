/**
 * What each freee tool is, without its input schema: name, Japanese description, whether it only reads, and the
 * freee operation (typed tools) or method (generic tools) it sends. The cards, the plan review, App Home and every
 * allow-list decision need only this, so the Slack Lambda imports it alone; the registry (lib/freee/tools/registry.ts)
 * builds each tool's schema and validators on top of it, for the layers and the MCP server. Being plain data, it
 * keeps zod, ajv and the vendored freee OpenAPI schemas out of the Slack bundle. test/freee/tools/summaries.test.ts
 * checks it against the registry, tool by tool.
 */

/** The methods a generic tool can send (freee販売 updates with PATCH). */
export type GenericMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface ToolSummary {
  name: string;
  /** Japanese, for the agent and for the cards. A generic tool's registry entry adds the operations it serves. */
  description: string;
  /** Read-only tools are what an `agent_decide` step may use; the others write (`effect: "write"`). */
  readOnly: boolean;
  /** The freee operation a typed tool calls (`POST /api/1/deals`). */
  operation?: string;
  /** The generic tools: which method they send (their input's path says which operation). */
  method?: GenericMethod;
}

export const AGENT_DECIDE = "agent_decide" as const;
/** The file box upload (lib/freee/tools/upload-tool.ts). */
export const UPLOAD_RECEIPT_TOOL = "freee_accounting_upload_receipt";

const typed = (name: string, readOnly: boolean, operation: string, description: string): ToolSummary => ({ name, description, readOnly, operation });

const GENERIC_WORDS: Record<GenericMethod, string> = { GET: "読み取り", POST: "作成", PUT: "更新", PATCH: "部分更新", DELETE: "削除" };
const generic = (method: GenericMethod): ToolSummary => {
  const readOnly = method === "GET";
  return {
    name: `freee_api_${method.toLowerCase()}`,
    description: `freee API の${GENERIC_WORDS[method]}（${method}）を実行します（${readOnly ? "読み取り専用" : "データを変更する"}）。`,
    readOnly,
    method,
  };
};

export const TOOL_SUMMARIES: readonly ToolSummary[] = [
  typed("freee_hr_list_employees", true, "GET /hr/api/v1/employees", "指定した年月に在籍する従業員の一覧を取得します（人事労務 API）。"),
  typed("freee_hr_get_employee", true, "GET /hr/api/v1/employees/{id}", "従業員 1 名の情報を取得します（人事労務 API）。"),
  typed("freee_hr_get_work_record", true, "GET /hr/api/v1/employees/{employee_id}/work_records/{date}", "従業員の指定日の勤怠を取得します（人事労務 API）。"),
  typed(
    "freee_hr_update_work_record",
    false,
    "PUT /hr/api/v1/employees/{employee_id}/work_records/{date}",
    "従業員の指定日の勤怠を更新します（人事労務 API）。勤務時間は work_record_segments、休憩は break_records に、開始・終了を「YYYY-MM-DD HH:MM:SS」（日本時間）で指定します。",
  ),
  typed("freee_hr_get_basic_pay_rule", true, "GET /hr/api/v1/employees/{employee_id}/basic_pay_rule", "従業員の基本給設定（給与計算の基礎）を取得します（人事労務 API）。"),
  typed("freee_hr_update_basic_pay_rule", false, "PUT /hr/api/v1/employees/{employee_id}/basic_pay_rule", "従業員の基本給設定を更新します（人事労務 API）。指定年月から適用されます。"),
  typed("freee_accounting_list_deals", true, "GET /api/1/deals", "取引（収入・支出）の一覧を取得します（会計 API）。"),
  typed(
    "freee_accounting_create_deal",
    false,
    "POST /api/1/deals",
    "取引（収入・支出）を 1 件登録します（会計 API）。details の amount は税込の円で、マイナスの値は控除・マイナス行になります。payments（支払日・口座・金額）を付けると決済済みの取引になります。",
  ),
  typed("freee_accounting_list_partners", true, "GET /api/1/partners", "取引先の一覧を取得します（会計 API）。"),
  typed("freee_accounting_list_account_items", true, "GET /api/1/account_items", "勘定科目の一覧を取得します（会計 API）。"),
  typed(
    UPLOAD_RECEIPT_TOOL,
    false,
    "POST /api/1/receipts",
    "依頼メッセージに添付されたファイル（領収書・請求書など）を freee 会計のファイルボックスにアップロードします（会計 API）。slack_file_id に添付ファイルの ID を、メモ・発行元・発行日（YYYY-MM-DD）・金額（円）は分かる場合だけ指定します。",
  ),
  generic("GET"),
  generic("POST"),
  generic("PUT"),
  generic("PATCH"),
  generic("DELETE"),
];

const BY_NAME: ReadonlyMap<string, ToolSummary> = new Map(TOOL_SUMMARIES.map((t) => [t.name, t]));

export const FREEE_TOOL_NAMES: ReadonlySet<string> = new Set(BY_NAME.keys());

export function toolSummary(name: string): ToolSummary | undefined {
  return BY_NAME.get(name);
}

/** A tool's summary, for the registry's definitions: a name missing here is a programming error, found at load. */
export function summaryOf(name: string): ToolSummary {
  const summary = BY_NAME.get(name);
  if (summary === undefined) throw new Error(`lib/freee/tools/summaries.ts has no tool named ${name}`);
  return summary;
}

/** A typed tool's summary: one that serves a single freee operation (missing one is a programming error, found at load). */
export function typedSummaryOf(name: string): ToolSummary & { operation: string } {
  const summary = summaryOf(name);
  if (summary.operation === undefined) throw new Error(`lib/freee/tools/summaries.ts gives ${name} no freee operation`);
  return { ...summary, operation: summary.operation };
}

export function isKnownTool(name: string): boolean {
  return name === AGENT_DECIDE || FREEE_TOOL_NAMES.has(name);
}

export type StepEffect = "read" | "write";

/**
 * What a step does to freee. The tool decides, not the recorded `effect` (which L3 states and the validator
 * checks): a step naming a write tool is a write step whatever it says, and `agent_decide` only reads.
 */
export function effectOfStep(step: { tool: string }): StepEffect {
  if (step.tool === AGENT_DECIDE) return "read";
  return toolSummary(step.tool)?.readOnly === true ? "read" : "write";
}

export function isWriteStep(step: { tool: string }): boolean {
  return effectOfStep(step) === "write";
}

/**
 * The tools a session may use for an approved Process: the tools its steps name, plus the read tools each
 * `agent_decide` step's scope names. Nothing else is enabled (docs/architecture.md, the approved Process is the capability); the MCP server enforces the finer
 * rules (write input, path prefixes) per call.
 */
export function allowedToolsForSteps(steps: readonly { tool: string; readScope?: { tools: readonly string[] } }[]): string[] {
  const allowed = new Set<string>();
  for (const step of steps) {
    if (step.tool === AGENT_DECIDE) {
      for (const name of step.readScope?.tools ?? []) if (toolSummary(name)?.readOnly === true) allowed.add(name);
    } else if (FREEE_TOOL_NAMES.has(step.tool)) allowed.add(step.tool);
  }
  return [...allowed].sort();
}
