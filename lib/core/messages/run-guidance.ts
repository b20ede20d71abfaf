import { refusalKindOf } from "./freee-refusals";

/**
 * What the Execution card says when freee refused a step (docs/architecture.md, messages): which permission a 403
 * lacks, what a 404 did not find, when to try again after a 429. The refusal is read from the tool result the
 * freee MCP server gave the agent (lib/mcp/call-context.ts writes it; freeeRateLimitedMessage for a 429).
 */

export type FreeeRefusal = { kind: "forbidden" } | { kind: "not_found" } | { kind: "rate_limited"; waitSeconds?: number };

/** The refusal a tool result names, from the MCP server's own wording (lib/core/messages/freee-refusals.ts). */
export function refusalOf(text: string | undefined): FreeeRefusal | undefined {
  const kind = text === undefined ? undefined : refusalKindOf(text);
  if (kind !== "rate_limited") return kind === undefined ? undefined : { kind };
  const wait = /約 (\d+) (分|秒)後/.exec(text!);
  return wait === null ? { kind: "rate_limited" } : { kind: "rate_limited", waitSeconds: Number(wait[1]) * (wait[2] === "分" ? 60 : 1) };
}

/** The freee permission a tool needs, in the words of freee's app settings (product and data, read or write). */
const TOOL_PERMISSIONS: Readonly<Record<string, string>> = {
  freee_hr_list_employees: "freee 人事労務の「従業員」の参照",
  freee_hr_get_employee: "freee 人事労務の「従業員」の参照",
  freee_hr_get_work_record: "freee 人事労務の「勤怠」の参照",
  freee_hr_update_work_record: "freee 人事労務の「勤怠」の更新",
  freee_hr_get_basic_pay_rule: "freee 人事労務の「給与（基本給）」の参照",
  freee_hr_update_basic_pay_rule: "freee 人事労務の「給与（基本給）」の更新",
  freee_accounting_list_deals: "freee 会計の「取引」の参照",
  freee_accounting_create_deal: "freee 会計の「取引」の作成",
  freee_accounting_list_partners: "freee 会計の「取引先」の参照",
  freee_accounting_list_account_items: "freee 会計の「勘定科目」の参照",
  freee_accounting_upload_receipt: "freee 会計の「ファイルボックス（証憑）」の作成",
};
const METHOD_WORDS: Readonly<Record<string, string>> = { GET: "参照", POST: "作成", PUT: "更新", DELETE: "削除" };

export function permissionFor(tool: string, input: Record<string, unknown>): string {
  const known = TOOL_PERMISSIONS[tool];
  if (known !== undefined) return known;
  const method = /^freee_api_(get|post|put|delete)$/.exec(tool)?.[1]?.toUpperCase();
  const path = typeof input.path === "string" ? input.path : undefined;
  if (method === undefined || path === undefined) return "freee のこの操作";
  const product = path.startsWith("/hr/") ? "freee 人事労務" : path.startsWith("/iv/") ? "freee 請求書" : "freee 会計";
  return `${product}の ${path} の${METHOD_WORDS[method] ?? method}`;
}

/** 「HH:MM」 in JST. */
function jstClock(at: Date): string {
  const jst = new Date(at.getTime() + 9 * 3600_000);
  return `${String(jst.getUTCHours()).padStart(2, "0")}:${String(jst.getUTCMinutes()).padStart(2, "0")}`;
}

export const RunGuidanceTexts = {
  forbidden: (step: string, permission: string) =>
    `freee が権限不足のため「${step}」を拒否しました (403)。足りない権限: ${permission}。freee の管理者に、freee アプリの権限設定と、接続した freee ユーザーの権限（ロール）を確認してもらってください。権限が変わるまでは再実行しても同じ結果になるため、[再実行] は表示していません。`,
  notFound: (step: string, what: string) => `freee に見つかりませんでした (404): 「${step}」の対象（${what}）。freee に登録されている内容（従業員・日付・ID）と合っているか確認してください。`,
  /** The reply to a [再実行] of such a run (an older card's button, or a forged click): nothing is started. */
  rerunRefused: (step: string, permission: string) =>
    `この実行は freee が権限不足のため「${step}」を拒否して止まったため、再実行できません（権限が変わるまでは同じ結果になります）。足りない権限: ${permission}。freee の管理者に権限を直してもらってから、もう一度依頼してください。`,
  rateLimited: (until: Date | undefined) =>
    until === undefined
      ? "freee API の利用回数制限に達したため止まりました (429)。制限は時間がたつと解除されます。しばらく（1 時間ほど）待ってから [再実行] してください。"
      : `freee API の利用回数制限に達したため止まりました (429)。${jstClock(until)}（日本時間）以降に [再実行] してください。`,
} as const;
