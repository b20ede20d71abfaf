import type { AuthService } from "../errors/taxonomy";
import { ownEntry } from "../own-entry";

/** An AuthError that does not say whose credential it was about is freee's (see authServiceOf). */
const AUTH_ERROR_NAMES_FREEE = "freee 接続エラー";

/**
 * Every error class of the error table (docs/architecture.md) and every layer, in Japanese: the one table App Home,
 * the web admin and `npm run report` name them by, so an admin never reads a class name alone.
 */
export const ERROR_CLASS_NAMES: Readonly<Record<string, string>> = {
  TransientError: "一時的な障害",
  RateLimitedError: "利用回数の制限",
  FreeeThrottledError: "freee のアクセス制限（10 分ほど）",
  UpstreamServerError: "接続先のサーバーエラー",
  UpstreamTimeoutError: "接続先のタイムアウト",
  ConnectionFailedError: "接続失敗",
  ThrottledError: "データベースの混雑",
  RefreshedTokensLostError: "freee の新しいトークンを保存できなかった",
  SilentFailureError: "応答の不備",
  EmptyResponseError: "空の応答",
  TruncatedResponseError: "途中で切れた応答",
  RefusedResponseError: "応答の拒否",
  IncompleteRunError: "未完了の実行",
  FreeeForbiddenError: "freee の権限不足（403）",
  FreeeNotFoundError: "freee に対象が見つからない（404）",
  FreeeRateLimitedError: "freee の利用回数制限（429）",
  MalformedOutputError: "形式の誤った出力",
  BadRequestError: "不正なリクエスト",
  StateConflictError: "状態の競合",
  IllegalTransitionError: "不正な状態遷移",
  RecordNotFoundError: "記録が見つからない",
  WriteOutcomeUnknownError: "書き込み結果の不明",
  AgentRunFailedError: "エージェント実行の失敗",
  AuthError: AUTH_ERROR_NAMES_FREEE,
  FreeeCompanyChangedError: "freee の事業所の変更",
  FatalConfigError: "設定の誤り",
  RunTimeoutError: "実行のタイムアウト",
  LimitReachedError: "上限到達",
  AdminDataError: "管理画面のデータ読み込みエラー",
  SignInRefusedError: "サインインの拒否",
  UnknownError: "不明なエラー",
};

export const LAYER_NAMES: Readonly<Record<string, string>> = {
  ingress: "受付",
  L1: "L1 タスク解析",
  L2: "L2 実行方針",
  L3: "L3 実行計画",
  L4: "L4 実行",
  freee: "freee",
  slack: "Slack",
  admin: "管理",
};

/** AuthError by whose credential failed (AuthError's `service`). */
const AUTH_ERROR_NAMES: Readonly<Record<AuthService, string>> = { freee: AUTH_ERROR_NAMES_FREEE, slack: "Slack 接続エラー" };

/**
 * Whose credential an audited AuthError was about, from the entry's details; undefined for another class, and
 * for an AuthError that does not say (an entry written before the service was kept, or one a state machine caught,
 * which keeps the name and message only — a step's AuthErrors are freee's; Slack's are audited where they happen).
 */
export function authServiceOf(errorClass: string | undefined, details: Readonly<Record<string, unknown>> | undefined): AuthService | undefined {
  if (errorClass !== "AuthError") return undefined;
  const service = details?.service;
  return service === "freee" || service === "slack" ? service : undefined;
}

/**
 * The class in Japanese; a class the table does not know (a newer deploy's) shows its name rather than nothing.
 * An AuthError is named by its service; one that does not say is freee's (see authServiceOf).
 */
export function errorClassName(name: string, service?: AuthService): string {
  if (name === "AuthError" && service !== undefined) return AUTH_ERROR_NAMES[service];
  return ownEntry(ERROR_CLASS_NAMES, name) ?? name;
}

export function layerName(layer: string): string {
  return ownEntry(LAYER_NAMES, layer) ?? layer;
}
