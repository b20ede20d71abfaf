import type { Execution } from "../core/domain/records";
import { throttleFaultUntil } from "../core/domain/throttle-fault";
import { FreeeCompanyChangedMessages, freeeThrottledMessage, WriteOutcomeUnknownMessages } from "../core/messages/ja";

type RunFault = NonNullable<Execution["fault"]>;

/**
 * Why the MCP server refused a tool call, and what the agent is told (Japanese, as the session speaks). Every
 * refusal is audited as `freee.tool_refused` with its reason, counted (metrics + ledger) and returned as an MCP
 * tool error (`isError: true`); freee is not called.
 */
export const REFUSAL_REASONS = [
  "execution_not_live",
  "run_faulted",
  "unknown_tool",
  "not_approved",
  "invalid_input",
  "company_mismatch",
  "company_changed",
  "outside_read_scope",
  "input_mismatch",
  "unresolved_name",
  "step_already_done",
  "write_in_flight",
  "write_outcome_unknown",
  "attachment_unavailable",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface Refusal {
  refused: RefusalReason;
  /** For the agent. */
  text: string;
  /** For the audit entry (no secrets: inputs and ids only). */
  details: Record<string, unknown>;
}

export function refusal(refused: RefusalReason, text: string, details: Record<string, unknown> = {}): Refusal {
  return { refused, text, details };
}

export const RefusalTexts = {
  executionNotLive: (status: string) => `この実行はすでに終了しています（状態: ${status}）。ツールは実行できません。`,
  /** The run is stamped with freee's throttle: it ends at the next poll, and calls freee no more. */
  runFaulted: (fault: RunFault): string => freeeThrottledMessage(throttleFaultUntil(fault.reason)),
  unknownTool: (tool: string) => `ツール ${tool} はこの MCP サーバーにありません。`,
  notApproved: (tool: string, allowed: readonly string[]) =>
    `ツール ${tool} はこの実行の承認済みステップに含まれていないため実行できません。使用できるツール: ${allowed.join(", ") || "（なし）"}`,
  invalidInput: (tool: string, issues: readonly string[]) => `ツール ${tool} の入力が不正です: ${issues.slice(0, 5).join(" / ")}`,
  companyMismatch: () =>
    "company_id は指定できません。この実行が操作できるのはワークスペースが接続した事業所だけです（company_id を省略してください）。",
  companyChanged: () => FreeeCompanyChangedMessages.agent,
  outsideReadScope: (tool: string, what: string, allowed: readonly string[]) =>
    `${tool} の ${what} は承認済みステップで許可された範囲の外です。許可された範囲: ${allowed.join(", ") || "（なし）"}`,
  readInputMismatch: (tool: string, approved: readonly { stepId: string; input: unknown }[]) =>
    `この ${tool} の入力は承認済みの読み取りステップと一致しないため実行できません。承認された入力のとおりに読み取れます（変えてよいのは limit / offset / page / per_page だけです）。承認済みの入力: ` +
    (approved.map((a) => `[${a.stepId}] ${JSON.stringify(a.input)}`).join(" ") || "（なし）"),
  inputMismatch: (tool: string, approved: readonly { stepId: string; input: unknown }[]) =>
    `この ${tool} の入力は承認済みの書き込みステップと一致しないため実行できません。承認された内容だけを、そのとおりの入力で書き込めます。承認済みの入力: ` +
    approved.map((a) => `[${a.stepId}] ${JSON.stringify(a.input)}`).join(" "),
  unresolvedName: (stepIds: readonly string[], names: readonly string[]) =>
    `ステップ ${stepIds.join(", ")} の名前（${names.join("、")}）が承認前に freee の ID に解決されていないため、書き込めません。実行時に ID を推測して書き込むことはできません。`,
  stepAlreadyDone: (stepId: string, completedAt: string, resultText: string) =>
    `ステップ ${stepId} の書き込みはすでに完了しています（${completedAt}）。freee には再送していません。このステップは完了として次へ進んでください。前回の結果:\n${resultText}`,
  writeInFlight: (stepId: string) =>
    `ステップ ${stepId} の書き込みは処理中です。freee に二重に書き込まないよう再送しません。しばらくしてから読み取りツールで反映を確認してください。`,
  attachmentUnavailable: (stepId: string, name: string, why: "not_attached" | "gone" | "changed" | "too_large" | "slack_refused" | "slack_unavailable") =>
    `ステップ ${stepId} の添付ファイル「${name}」を freee に送れません: ` +
    {
      not_attached: "このファイルは依頼メッセージに添付されたものではありません。",
      gone: "Slack でファイルが削除されたか、取得できない種類のファイルです。",
      changed: "承認されたときとファイルの内容（サイズ・種類）が変わっています。依頼し直してください。",
      too_large: "freee のファイルボックスの上限（64MB）を超えています。",
      slack_refused: "Slack がファイルの取得を拒否しました（アプリに files:read 権限がない可能性があります。管理者がアプリを再インストールしてください）。",
      slack_unavailable: "Slack に一時的につながりません。少し待ってからもう一度このツールを呼んでください。",
    }[why] +
    " freee には何も送っていません。",
  writeOutcomeUnknown: (stepId: string, marker: string | undefined) =>
    `${WriteOutcomeUnknownMessages.agent}（ステップ ${stepId}${marker === undefined ? "" : `、管理番号 ${marker}`}）`,
} as const;
