import type { TaskStatus } from "../core/domain/status";
import { LEDGER_OUTCOME_LABELS, type LedgerOutcome } from "../store/ledger";
import { jstMinutes } from "../core/domain/jst";
import type { AuthService } from "../core/errors/taxonomy";
import { ERROR_CLASS_NAMES, errorClassName, layerName } from "../core/messages/error-names";

/** The Japanese names the pages show for the app's codes (the codes stay in the CSV, for auditors' tools). */
export const STATUS_LABEL: Record<TaskStatus, string> = {
  analyzing: "解析中",
  prompt_review: "実行方針の確認",
  process_review: "実行計画の確認",
  executing: "実行中",
  completed: "完了",
  failed: "失敗",
  cancelled: "中止",
  closed: "終了",
  answered: "回答のみ",
};

export const DOMAIN_LABEL: Record<string, string> = { hr: "人事労務", accounting: "会計", other: "その他" };

export const OUTCOME_LABEL: Record<LedgerOutcome, string> = LEDGER_OUTCOME_LABELS;

/** Colours of the outcomes in the chart (fill attributes: the CSP allows no inline style). */
export const OUTCOME_COLOUR: Record<LedgerOutcome, string> = {
  completed: "#2eb67d",
  failed: "#e01e5a",
  timed_out: "#ecb22e",
  cancelled: "#868686",
  limit_reached: "#a35200",
  expired: "#b5a2b6",
  not_a_request: "#36c5f0",
  in_progress: "#1264a3",
};

/** An error class in Japanese (lib/core/messages/error-names.ts), the class after it for admins who search the logs. */
export function errorClassLabel(name: string, service?: AuthService): string {
  return Object.hasOwn(ERROR_CLASS_NAMES, name) ? `${errorClassName(name, service)}（${name}）` : name;
}

export function layerLabel(layer: string): string {
  return layerName(layer);
}

/** Times as the pages show them: JST, minutes (the same as App Home). */
export function jst(iso: string): string {
  return jstMinutes(iso);
}

/** The approval policy's rule a decision was allowed by (lib/core/domain/approval-policy.ts judgeApproval). */
const RULE_LABEL: Record<string, string> = {
  "policy.approver_user": "承認者に指定されたユーザー",
  "policy.approver_usergroup": "承認者に指定されたユーザーグループのメンバー",
  "policy.requester": "依頼者本人（本人の承認を認める設定）",
  "policy.admin": "ワークスペースの管理者（承認者の指定なし）",
};
export function ruleLabel(rule: string): string {
  return RULE_LABEL[rule] ?? rule;
}
