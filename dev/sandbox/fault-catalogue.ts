import { AgentFailureMessages, failureMessageFor, SlackMessages } from "../../lib/core/messages/ja";
import { PolicyMessages } from "../../lib/core/messages/policy";
import { LAYER_DEFAULTS, type LayerName } from "../../lib/model/settings";
import type { Dependency } from "../chaos/faults";
import type { FaultRule, ProxiedRequest } from "../chaos/fault-proxy";
import { messageReply } from "../fakes/anthropic/messages";
import { layerOf } from "../fakes/anthropic/scripted-layers";
import { unauthorizedBody, forbiddenBody, notFoundBody, type Unauthorized } from "../fakes/freee/errors";

/**
 * The sandbox's fault panel: every fault a click can arm, grouped by family, each with what the user should
 * then see (a message of docs/architecture.md, or the retry row that recovers). A fault is one or more rules for dev/chaos's
 * fault proxies (the same machinery and the same service-shaped replies as `npm run chaos`), or a way the
 * scripted Managed Agents session ends.
 */
export type FaultFamily = "layer" | "preview" | "agent" | "freee" | "approval";

export interface ProxyFault {
  dependency: Extract<Dependency, "Anthropic Messages" | "freee">;
  when: (request: ProxiedRequest) => boolean;
  rule: Omit<FaultRule, "when" | "times">;
}

/** A Slack Web API method the sandbox's Slack fake answers with an error (its scripted failures). */
export interface SlackFault {
  method: string;
  /** HTTP status of the failure (5xx: the app's client retries, so one click's every attempt fails). */
  status: number;
}

/** How the scripted session ends instead of playing the approved steps. */
export type SessionFault = "session_error" | "requires_action" | "run_timeout";

/**
 * How the task ends when the fault hits every attempt, as the error table says: failed at `layer` with the error
 * named `error` (the user message is failureMessageFor(layer, error); `reason`: the run's failure reason shown
 * under it), or completed because the fault is one the product recovers from by itself.
 */
export type FaultOutcome =
  | { layer: "L1" | "L2" | "L3" | "L4"; error: string; reason?: keyof typeof AgentFailureMessages }
  | { completes: true }
  /** The click is neither granted nor refused: the clicker is told this and clicks again (the task goes on). */
  | { asksAgain: string };

export interface FaultSpec {
  id: string;
  family: FaultFamily;
  label: string;
  outcome: FaultOutcome;
  /** What the user sees when the fault stays for every attempt (the user message, or a card line). */
  persistent: string;
  /** What the user sees when it hits once: the retry row that recovers, or the same message when nothing retries. */
  once: string;
  /** A retry row of the error table covers it: hitting once, it is retried and the task completes. */
  retried: boolean;
  proxy?: ProxyFault[];
  session?: SessionFault;
  slack?: SlackFault;
}

export interface CatalogueSettings {
  /** Each layer's request timeout (the stack's L1_TIMEOUT_MS …): a timeout fault holds the reply past it. */
  layerTimeoutMs: Record<LayerName, number>;
  runTimeoutSeconds: number;
  /** The preview's freee read timeout (FREEE_READ_TIMEOUT_MS). */
  previewReadTimeoutMs: number;
}

/** The user message of a failing outcome (ja.ts's mapping of the layer and the error name). */
export function outcomeMessage(outcome: Extract<FaultOutcome, { layer: string }>): string {
  return failureMessageFor(outcome.layer, outcome.error);
}
const quoted = (outcome: Extract<FaultOutcome, { layer: string }>) => `「${outcomeMessage(outcome)}」`;

function bodyOf(request: ProxiedRequest): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(request.body);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch (err) {
    if (err instanceof SyntaxError) return {};
    throw err;
  }
}

const layerRequest = (layer: LayerName) => (r: ProxiedRequest) => r.method === "POST" && r.path.startsWith("/v1/messages") && layerOf(bodyOf(r)) === layer;

function layerFaults(layer: LayerName, settings: CatalogueSettings): FaultSpec[] {
  const when = layerRequest(layer);
  const reply = (r: ReturnType<typeof messageReply>) => ({ status: r.status, headers: { "content-type": "application/json", ...r.headers }, body: r.body });
  const spec = (kind: string, label: string, error: string, rule: ProxyFault["rule"], once: string): FaultSpec => {
    const outcome = { layer, error } as const;
    // A refusal is the one layer fault no row retries.
    const retried = error !== "RefusedResponseError";
    return { id: `${layer}.${kind}`, family: "layer", label: `${layer}: ${label}`, outcome, persistent: outcomeMessage(outcome), once: `${error}: ${once}`, retried, proxy: [{ dependency: "Anthropic Messages", when, rule }] };
  };
  const faults = [
    spec("empty", "200 OK で本文が空", "EmptyResponseError", { kind: "5xx", reply: reply(messageReply({ texts: [] })) }, `1 回再試行して続行（毎回なら${quoted({ layer, error: "EmptyResponseError" })}）`),
    spec("truncated", "max_tokens で途中まで", "TruncatedResponseError", { kind: "5xx", reply: reply(messageReply({ texts: ['{"title": "来月から山田さんの基本'], stopReason: "max_tokens" })) }, "1 回再試行して続行"),
    spec("refused", "stop_reason: refusal", "RefusedResponseError", { kind: "5xx", reply: reply(messageReply({ texts: [], stopReason: "refusal", stopDetails: { type: "refusal", category: "cyber", explanation: "sandbox fault" } })) }, `再試行せず${quoted({ layer, error: "RefusedResponseError" })}`),
    ...(layer === "L2" ? [] : [spec("malformed", "JSON でない応答", "MalformedOutputError", { kind: "5xx", reply: reply(messageReply({ texts: ["承知しました。次のとおり計画します（JSON ではありません）"] })) }, `1 回再試行して続行${layer === "L3" ? "（検証エラーをプロンプトに入れて）" : ""}`)]),
    spec("529", "529 overloaded_error", "UpstreamServerError", { kind: "5xx" }, "最大 3 回再試行して続行"),
    spec("timeout", `応答なし（${layer}_TIMEOUT_MS = ${settings.layerTimeoutMs[layer]} ms を超える）`, "UpstreamTimeoutError", { kind: "timeout", holdMs: settings.layerTimeoutMs[layer] + 1_000 }, "最大 2 回再試行して続行"),
  ];
  return faults;
}

/** freee's API (accounting /api/1, HR /hr/api/v1, invoice /iv), not its OAuth endpoints (/public_api). */
const isApi = (r: ProxiedRequest) => !r.path.startsWith("/public_api/");
const fromMcp = (r: ProxiedRequest) => r.consumer === "mcp" && isApi(r);
const fromPreview = (r: ProxiedRequest) => r.consumer === "preview-process" && isApi(r);
const isWrite = (r: ProxiedRequest) => r.method === "POST" || r.method === "PUT" || r.method === "DELETE";
const freeeReply = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: { "content-type": "application/json", ...headers }, body });
const unauthorized = (code: Unauthorized) => freeeReply(401, unauthorizedBody(code));

type Failing = Extract<FaultOutcome, { layer: string }>;
const L4 = (error: string, reason?: Failing["reason"]): Failing => ({ layer: "L4", error, ...(reason === undefined ? {} : { reason }) });

function freeeFaults(): FaultSpec[] {
  const connection = `「${SlackMessages.freeeConnectionFailed}」`;
  const api = (id: string, label: string, outcome: FaultOutcome, rule: ProxyFault["rule"], persistent: string, once: string, retried = false, when = fromMcp): FaultSpec => ({ id: `freee.${id}`, family: "freee", label, outcome, persistent, once, retried, proxy: [{ dependency: "freee", when, rule }] });
  const auth = L4("AuthError");
  // The run stops incomplete, named by what freee refused (the ledger counts each apart).
  const forbidden = L4("FreeeForbiddenError");
  const notFound = L4("FreeeNotFoundError");
  const rateLimited = L4("FreeeRateLimitedError");
  const unknown = L4("WriteOutcomeUnknownError");
  const throttled = L4("FreeeThrottledError");
  return [
    api("401-expired", "401 expired_access_token", auth, { kind: "auth", reply: unauthorized("expired_access_token") }, `トークン更新後も 401 → ${quoted(auth)}`, "トークンを 1 回更新して再試行し、完了", true),
    api("401-permission", "401 user_do_not_have_permission", auth, { kind: "auth", reply: unauthorized("user_do_not_have_permission") }, `更新しない認証エラー → ${quoted(auth)}（理由つき）`, `${connection}（理由つき）`),
    api("401-company", "401 company_not_found", auth, { kind: "auth", reply: unauthorized("company_not_found") }, `${quoted(auth)}（事業所が見つからない理由つき）`, `${connection}（理由つき）`),
    api("403", "403 forbidden", forbidden, { kind: "auth", reply: freeeReply(403, forbiddenBody("hr")) }, `ツールの失敗を受けて${quoted(forbidden)}`, `ツールの失敗を受けて${quoted(forbidden)}`),
    api("404", "404 not found", notFound, { kind: "auth", reply: freeeReply(404, notFoundBody("hr")) }, `ツールの失敗を受けて${quoted(notFound)}`, `ツールの失敗を受けて${quoted(notFound)}`),
    api("429", "429 利用回数制限", rateLimited, { kind: "throttle" }, `制限が続き${quoted(rateLimited)}`, "リセット時刻まで待って再試行し、完了", true),
    // freee's other throttle: 403 for about ten minutes, longer than a run waits, so once is as good as every time.
    api("403-throttle", "403 過度のアクセス（アクセス制限、10 分ほど）", throttled, { kind: "throttle-403" }, `待たずに${quoted(throttled)}（エージェントには再実行できる時刻）`, `待たずに${quoted(throttled)}（エージェントには再実行できる時刻）`),
    // Every request: the read runs out of retries, the write is not sent twice (503 may hide a landed write) and
    // its read-back fails too, so the outcome stays unknown.
    api("5xx", "503 サーバーエラー", unknown, { kind: "5xx" }, `読み取りは再試行の上限、書き込みは再送せず読み戻しも 503 → ${quoted(unknown)}`, "再試行して完了", true),
    api("lost", "書き込みの応答が失われる（freee には反映）", { completes: true }, { kind: "lost" }, "読み戻しで反映を確かめて完了（二重登録なし）", "読み戻しで反映を確かめて完了（二重登録なし）", false, (r) => fromMcp(r) && isWrite(r)),
    {
      id: "freee.refresh-invalid-grant",
      family: "freee",
      label: "トークン更新が invalid_grant（401 expired の後）",
      outcome: auth,
      persistent: `${quoted(auth)}、App Home に再接続の案内`,
      once: `${quoted(auth)}、App Home に再接続の案内`,
      retried: false,
      proxy: [
        { dependency: "freee", when: fromMcp, rule: { kind: "auth", reply: unauthorized("expired_access_token") } },
        { dependency: "freee", when: (r) => r.path === "/public_api/token" && r.body.includes("grant_type=refresh_token"), rule: { kind: "auth", reply: freeeReply(400, { error: "invalid_grant", error_description: "リフレッシュトークンが無効です。" }) } },
      ],
    },
  ];
}

function previewFaults(settings: CatalogueSettings): FaultSpec[] {
  const spec = (id: string, label: string, error: string, rule: ProxyFault["rule"], persistent: (said: string) => string, once: string): FaultSpec => {
    const outcome = { layer: "L3", error } as const;
    // The preview's Retry rows cover freee's 5xx, timeouts and 429, not a refused token nor freee's ten-minute 403.
    return { id: `preview.${id}`, family: "preview", label: `プレビュー: ${label}`, outcome, persistent: persistent(quoted(outcome)), once, retried: error !== "AuthError" && error !== "FreeeThrottledError", proxy: [{ dependency: "freee", when: fromPreview, rule }] };
  };
  return [
    spec("5xx", "freee の読み取りが 503", "UpstreamServerError", { kind: "5xx" }, (said) => `再試行の上限で${said}`, "再試行して実行ステップのカードへ"),
    spec("timeout", "freee の読み取りに応答なし", "UpstreamTimeoutError", { kind: "timeout", holdMs: settings.previewReadTimeoutMs + 1_000 }, (said) => `再試行の上限で${said}`, "再試行して実行ステップのカードへ"),
    spec("401", "freee が 401 user_do_not_have_permission", "AuthError", { kind: "auth", reply: unauthorized("user_do_not_have_permission") }, (said) => said, `「${SlackMessages.freeeConnectionFailed}」`),
    spec("429", "freee の読み取りが 429", "RateLimitedError", { kind: "throttle" }, (said) => `制限が続き${said}`, "リセット時刻まで待って再試行し、実行ステップのカードへ"),
    spec("403-throttle", "freee の読み取りが 403 アクセス制限（過度のアクセス）", "FreeeThrottledError", { kind: "throttle-403" }, (said) => `待たずに${said}`, `待たずに「${failureMessageFor("L3", "FreeeThrottledError")}」`),
  ];
}

function agentFaults(settings: CatalogueSettings): FaultSpec[] {
  const sessionError = L4("AgentRunFailedError", "session_error");
  const waiting = L4("AgentRunFailedError", "requires_action");
  const timedOut = L4("RunTimeoutError");
  const overloaded = L4("UpstreamServerError");
  const rerun = "（[再実行] で回復）";
  return [
    { id: "agent.session-error", family: "agent", label: "セッションエラー（session.error, terminal）", outcome: sessionError, persistent: `${quoted(sessionError)}＋${AgentFailureMessages.session_error}`, once: `${quoted(sessionError)}＋理由${rerun}`, retried: false, session: "session_error" },
    { id: "agent.requires-action", family: "agent", label: "requires_action で停止", outcome: waiting, persistent: `${quoted(waiting)}＋${AgentFailureMessages.requires_action}`, once: `${quoted(waiting)}＋理由${rerun}`, retried: false, session: "requires_action" },
    { id: "agent.run-timeout", family: "agent", label: `実行タイムアウト（RUN_TIMEOUT_SECONDS = ${settings.runTimeoutSeconds} 秒）`, outcome: timedOut, persistent: quoted(timedOut), once: `${quoted(timedOut)}${rerun}`, retried: false, session: "run_timeout" },
    {
      id: "agent.create-529",
      family: "agent",
      label: "セッション作成が 529",
      outcome: overloaded,
      persistent: `再試行の上限で${quoted(overloaded)}`,
      once: "再試行してセッションを開始し、完了",
      retried: true,
      proxy: [{ dependency: "Anthropic Messages", when: (r) => r.consumer === "start-session" && r.method === "POST" && r.path === "/v1/sessions", rule: { kind: "5xx" } }],
    },
  ];
}

/**
 * The approval of a plan whose policy names a Slack user group (設定 or App Home): Slack cannot say whether the
 * clicker is in it. Nothing is granted or refused, the clicker is asked to click again, the failure is audited.
 */
function approvalFaults(): FaultSpec[] {
  const asked = `承認も拒否もせず「${PolicyMessages.membershipUnknown}」`;
  return [
    {
      id: "approval.usergroup-lookup",
      family: "approval",
      label: "ユーザーグループの承認者: usergroups.users.list が 503",
      outcome: { asksAgain: PolicyMessages.membershipUnknown },
      persistent: `${asked}（障害の間はクリックしても同じ）`,
      once: `${asked}、もう一度クリックすると承認`,
      retried: false,
      slack: { method: "usergroups.users.list", status: 503 },
    },
  ];
}

export function faultCatalogue(settings: CatalogueSettings): FaultSpec[] {
  return [...(["L1", "L2", "L3"] as const).flatMap((l) => layerFaults(l, settings)), ...previewFaults(settings), ...agentFaults(settings), ...freeeFaults(), ...approvalFaults()];
}

export const DEFAULT_CATALOGUE_SETTINGS: CatalogueSettings = {
  layerTimeoutMs: { L1: LAYER_DEFAULTS.L1.timeoutMs, L2: LAYER_DEFAULTS.L2.timeoutMs, L3: LAYER_DEFAULTS.L3.timeoutMs },
  runTimeoutSeconds: 360,
  previewReadTimeoutMs: 10_000,
};
