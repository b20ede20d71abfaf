import { SlackMessages } from "../../lib/messages/ja";
import { LAYER_DEFAULTS, type LayerName } from "../../lib/layers/settings";
import type { Dependency } from "../chaos/faults";
import type { FaultRule, ProxiedRequest } from "../chaos/fault-proxy";
import { messageReply } from "../fakes/anthropic/messages";
import { layerOf } from "../fakes/anthropic/scripted-layers";
import { unauthorizedBody, forbiddenBody, notFoundBody, type Unauthorized } from "../fakes/freee/errors";

/**
 * The sandbox's fault panel: every fault a click can arm, grouped by family, each with what the user should
 * then see (a seed §9.1 message, or the retry row that recovers). A fault is one or more rules for dev/chaos's
 * fault proxies (the same machinery and the same service-shaped replies as `npm run chaos`), or a way the
 * scripted Managed Agents session ends.
 */
export type FaultFamily = "layer" | "preview" | "agent" | "freee";

export interface ProxyFault {
  dependency: Extract<Dependency, "Anthropic Messages" | "freee">;
  when: (request: ProxiedRequest) => boolean;
  rule: Omit<FaultRule, "when" | "times">;
}

/** How the scripted session ends instead of playing the approved steps. */
export type SessionFault = "session_error" | "requires_action" | "run_timeout";

export interface FaultSpec {
  id: string;
  family: FaultFamily;
  label: string;
  /** What the user sees when the fault stays for every attempt (the §9.1 message, or a card line). */
  persistent: string;
  /** What the user sees when it hits once: the retry row that recovers, or the same message when nothing retries. */
  once: string;
  proxy?: ProxyFault[];
  session?: SessionFault;
}

export interface CatalogueSettings {
  /** Each layer's request timeout (the stack's L1_TIMEOUT_MS …): a timeout fault holds the reply past it. */
  layerTimeoutMs: Record<LayerName, number>;
  runTimeoutSeconds: number;
  /** The preview's freee read timeout (FREEE_READ_TIMEOUT_MS). */
  previewReadTimeoutMs: number;
}

const LAYER_MESSAGE: Record<LayerName, string> = { L1: SlackMessages.l1Failed, L2: SlackMessages.l2Failed, L3: SlackMessages.l3Failed };

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
  const fail = LAYER_MESSAGE[layer];
  const reply = (r: ReturnType<typeof messageReply>) => ({ status: r.status, headers: { "content-type": "application/json", ...r.headers }, body: r.body });
  const spec = (kind: string, label: string, rule: ProxyFault["rule"], once: string): FaultSpec => ({
    id: `${layer}.${kind}`,
    family: "layer",
    label: `${layer}: ${label}`,
    persistent: fail,
    once,
    proxy: [{ dependency: "Anthropic Messages", when, rule }],
  });
  const faults = [
    spec("empty", "200 OK で本文が空", { kind: "5xx", reply: reply(messageReply({ texts: [] })) }, `EmptyResponseError: 1 回再試行して続行（毎回なら「${fail}」）`),
    spec("truncated", "max_tokens で途中まで", { kind: "5xx", reply: reply(messageReply({ texts: ['{"title": "来月から山田さんの基本'], stopReason: "max_tokens" })) }, "TruncatedResponseError: 1 回再試行して続行"),
    spec("refused", "stop_reason: refusal", { kind: "5xx", reply: reply(messageReply({ texts: [], stopReason: "refusal", stopDetails: { type: "refusal", category: "cyber", explanation: "sandbox fault" } })) }, `RefusedResponseError: 再試行せず「${fail}」`),
    ...(layer === "L2" ? [] : [spec("malformed", "JSON でない応答", { kind: "5xx", reply: reply(messageReply({ texts: ["承知しました。次のとおり計画します（JSON ではありません）"] })) }, `MalformedOutputError: 1 回再試行して続行${layer === "L3" ? "（検証エラーをプロンプトに入れて）" : ""}`)]),
    spec("529", "529 overloaded_error", { kind: "5xx" }, "UpstreamServerError: 最大 3 回再試行して続行"),
    spec("timeout", `応答なし（${layer}_TIMEOUT_MS = ${settings.layerTimeoutMs[layer]} ms を超える）`, { kind: "timeout", holdMs: settings.layerTimeoutMs[layer] + 1_000 }, "UpstreamTimeoutError: 最大 2 回再試行して続行"),
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

function freeeFaults(): FaultSpec[] {
  const l4 = SlackMessages.l4Failed;
  const connection = SlackMessages.freeeConnectionFailed;
  const api = (id: string, label: string, rule: ProxyFault["rule"], persistent: string, once: string, when = fromMcp): FaultSpec => ({ id: `freee.${id}`, family: "freee", label, persistent, once, proxy: [{ dependency: "freee", when, rule }] });
  return [
    api("401-expired", "401 expired_access_token", { kind: "auth", reply: unauthorized("expired_access_token") }, `トークン更新後も 401 → 「${connection}」`, "トークンを 1 回更新して再試行し、完了"),
    api("401-permission", "401 user_do_not_have_permission", { kind: "auth", reply: unauthorized("user_do_not_have_permission") }, `更新しない認証エラー → 「${connection}」（理由つき）`, `「${connection}」（理由つき）`),
    api("401-company", "401 company_not_found", { kind: "auth", reply: unauthorized("company_not_found") }, `「${connection}」（事業所が見つからない理由つき）`, `「${connection}」（理由つき）`),
    api("403", "403 forbidden", { kind: "auth", reply: freeeReply(403, forbiddenBody("hr")) }, `ツールの失敗を受けて「${l4}」`, `ツールの失敗を受けて「${l4}」`),
    api("404", "404 not found", { kind: "auth", reply: freeeReply(404, notFoundBody("hr")) }, `ツールの失敗を受けて「${l4}」`, `ツールの失敗を受けて「${l4}」`),
    api("429", "429 利用回数制限", { kind: "throttle" }, `制限が続き「${l4}」`, "リセット時刻まで待って再試行し、完了"),
    api("5xx", "503 サーバーエラー", { kind: "5xx" }, `再試行の上限で「${l4}」`, "再試行して完了"),
    api("lost", "書き込みの応答が失われる（freee には反映）", { kind: "lost" }, "読み戻しで反映を確かめて完了（二重登録なし）", "読み戻しで反映を確かめて完了（二重登録なし）", (r) => fromMcp(r) && isWrite(r)),
    {
      id: "freee.refresh-invalid-grant",
      family: "freee",
      label: "トークン更新が invalid_grant（401 expired の後）",
      persistent: `「${connection}」、App Home に再接続の案内`,
      once: `「${connection}」、App Home に再接続の案内`,
      proxy: [
        { dependency: "freee", when: fromMcp, rule: { kind: "auth", reply: unauthorized("expired_access_token") } },
        { dependency: "freee", when: (r) => r.path === "/public_api/token" && r.body.includes("grant_type=refresh_token"), rule: { kind: "auth", reply: freeeReply(400, { error: "invalid_grant", error_description: "リフレッシュトークンが無効です。" }) } },
      ],
    },
  ];
}

function previewFaults(settings: CatalogueSettings): FaultSpec[] {
  const spec = (id: string, label: string, rule: ProxyFault["rule"], persistent: string, once: string): FaultSpec => ({ id: `preview.${id}`, family: "preview", label: `プレビュー: ${label}`, persistent, once, proxy: [{ dependency: "freee", when: fromPreview, rule }] });
  return [
    spec("5xx", "freee の読み取りが 503", { kind: "5xx" }, `再試行の上限で「${SlackMessages.l3Failed}」`, "再試行して実行ステップのカードへ"),
    spec("timeout", "freee の読み取りに応答なし", { kind: "timeout", holdMs: settings.previewReadTimeoutMs + 1_000 }, `再試行の上限で「${SlackMessages.l3Failed}」`, "再試行して実行ステップのカードへ"),
    spec("401", "freee が 401 user_do_not_have_permission", { kind: "auth", reply: unauthorized("user_do_not_have_permission") }, `「${SlackMessages.freeeConnectionFailed}」`, `「${SlackMessages.freeeConnectionFailed}」`),
    spec("429", "freee の読み取りが 429", { kind: "throttle" }, `制限が続き「${SlackMessages.l3Failed}」`, "リセット時刻まで待って再試行し、実行ステップのカードへ"),
  ];
}

function agentFaults(settings: CatalogueSettings): FaultSpec[] {
  const l4 = SlackMessages.l4Failed;
  return [
    { id: "agent.session-error", family: "agent", label: "セッションエラー（session.error, terminal）", persistent: `「${l4}」＋エージェントのセッションでエラー`, once: `「${l4}」＋理由（[再実行] で回復）`, session: "session_error" },
    { id: "agent.requires-action", family: "agent", label: "requires_action で停止", persistent: `「${l4}」＋確認待ちで停止`, once: `「${l4}」＋理由（[再実行] で回復）`, session: "requires_action" },
    { id: "agent.run-timeout", family: "agent", label: `実行タイムアウト（RUN_TIMEOUT_SECONDS = ${settings.runTimeoutSeconds} 秒）`, persistent: `「${SlackMessages.l4TimedOut}」`, once: `「${SlackMessages.l4TimedOut}」（[再実行] で回復）`, session: "run_timeout" },
    {
      id: "agent.create-529",
      family: "agent",
      label: "セッション作成が 529",
      persistent: `再試行の上限で「${l4}」`,
      once: "再試行してセッションを開始し、完了",
      proxy: [{ dependency: "Anthropic Messages", when: (r) => r.consumer === "start-session" && r.method === "POST" && r.path === "/v1/sessions", rule: { kind: "5xx" } }],
    },
  ];
}

export function faultCatalogue(settings: CatalogueSettings): FaultSpec[] {
  return [...(["L1", "L2", "L3"] as const).flatMap((l) => layerFaults(l, settings)), ...previewFaults(settings), ...agentFaults(settings), ...freeeFaults()];
}

export const DEFAULT_CATALOGUE_SETTINGS: CatalogueSettings = {
  layerTimeoutMs: { L1: LAYER_DEFAULTS.L1.timeoutMs, L2: LAYER_DEFAULTS.L2.timeoutMs, L3: LAYER_DEFAULTS.L3.timeoutMs },
  runTimeoutSeconds: 360,
  previewReadTimeoutMs: 10_000,
};
