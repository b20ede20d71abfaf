import type { TaskStatus } from "../core/domain/status";
import { LEDGER_OUTCOME_LABELS, type LedgerOutcome } from "../store/ledger";

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

export const LAYER_LABEL: Record<string, string> = {
  ingress: "受付",
  L1: "L1 タスク解析",
  L2: "L2 実行方針",
  L3: "L3 実行計画",
  L4: "L4 実行",
  freee: "freee",
  slack: "Slack",
  admin: "管理",
};

/** The error classes of the error table (docs/architecture.md), in Japanese; an unknown class shows its name. */
export const ERROR_CLASS_LABEL: Record<string, string> = {
  TransientError: "一時的な障害",
  RateLimitedError: "レート制限",
  UpstreamServerError: "接続先のサーバーエラー",
  UpstreamTimeoutError: "接続先のタイムアウト",
  ConnectionFailedError: "接続失敗",
  ThrottledError: "データベースの混雑",
  EmptyResponseError: "空の応答",
  TruncatedResponseError: "途中で切れた応答",
  RefusedResponseError: "応答の拒否",
  IncompleteRunError: "未完了の実行",
  MalformedOutputError: "形式の誤った出力",
  BadRequestError: "不正なリクエスト",
  StateConflictError: "状態の競合",
  RecordNotFoundError: "記録が見つからない",
  WriteOutcomeUnknownError: "書き込み結果の不明",
  AgentRunFailedError: "エージェント実行の失敗",
  AuthError: "認証エラー",
  FreeeCompanyChangedError: "freee の事業所の変更",
  FatalConfigError: "設定の誤り",
  RunTimeoutError: "実行のタイムアウト",
  LimitReachedError: "上限到達",
  IllegalTransitionError: "不正な状態遷移",
  UnknownError: "不明なエラー",
};

export function errorClassLabel(name: string): string {
  return Object.hasOwn(ERROR_CLASS_LABEL, name) ? `${ERROR_CLASS_LABEL[name]}（${name}）` : name;
}

export function layerLabel(layer: string): string {
  return Object.hasOwn(LAYER_LABEL, layer) ? LAYER_LABEL[layer]! : layer;
}

/** Times as the pages show them: JST, minutes. */
export function jst(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t + 9 * 3600_000).toISOString().slice(0, 16).replace("T", " ");
}
