import type { KnownBlock, View } from "@slack/web-api";
import { LEDGER_OUTCOME_LABELS, type Ledger, type LedgerOutcome } from "../store/ledger";
import type { Task } from "../core/domain/records";
import { AdminMessages, freeeAuthMessageFor, freeeLapseMessage, HomeTexts } from "../core/messages/ja";
import { context, escapeMrkdwn, header, inlineMrkdwn, section, truncate } from "./cards/blocks";
import { jstMinutes } from "../core/domain/jst";
import { errorClassName, layerName } from "../core/messages/error-names";
import type { ApprovalPolicy } from "../core/domain/approval-policy";
import { PolicyEditorTexts } from "../core/messages/policy";
import { policySummary } from "./policy-modal";

export const HomeActionIds = {
  admins: "home_settings_admins",
  externalTeams: "home_settings_external_teams",
  freeeConnect: "home_freee_connect",
  freeeDisconnect: "home_freee_disconnect",
  policyEdit: "home_policy_edit",
} as const;
export const HOME_SETTINGS_BLOCK_ID = "home_settings";
export const HOME_EXTERNAL_TEAMS_BLOCK_ID = "home_settings_external_teams";
export const HOME_POLICY_BLOCK_ID = "home_settings_policy";
/** The admins besides Slack's own: they reject, cancel and rerun, and approve the writes of a domain with no approvers named. */
const ADMINS_LABEL = `*管理者*（${HomeTexts.adminsRole}）`;

export interface FreeeStatusView {
  /** connected / reauth_required / not_connected; unknown when the freee module is not wired in. */
  status: "connected" | "reauth_required" | "not_connected" | "unknown";
  companyName?: string;
  connectUrl?: string;
  /** The connection will lapse soon, or its age is unknown (shown to admins; see home-service.ts). */
  lapse?: FreeeLapse;
  /** Why a reconnect is needed (a FreeeAuthReason), for the reauth_required line. */
  reauthReason?: string;
}

export type FreeeLapse = { kind: "lapsing"; expiresAt: string; daysLeft: number } | { kind: "unknown_age" };

export interface HomeData {
  viewerIsAdmin: boolean;
  freee: FreeeStatusView;
  /** The web admin: a task's whole trail, the audit log, the month's dashboard, the settings. */
  adminUrl?: string;
  adminUserIds: string[];
  /** Who may approve what (lib/core/domain/approval-policy.ts): shown to all, edited by admins in a modal. */
  approvalPolicy: ApprovalPolicy;
  /** Other organisations' workspaces allowed to use the app here (Slack Connect); shown to admins. */
  allowedExternalTeamIds: string[];
  /** An admin's: the workspace's recent tasks; a member's: their own only (a DM request included, nobody else's). */
  recentTasks: Task[];
  /** Each recent task's thread, by task id (Slack's permalink); a task without one is shown unlinked. */
  threadLinks?: Record<string, string>;
  /** The ledger of the last 30 days (lib/store/ledger.ts): what `npm run report` prints for this workspace. */
  ledger: Pick<Ledger, "byOutcome" | "failuresByClass">;
}

export type HomeState = { kind: "ok"; data: HomeData; notice?: string } | { kind: "error"; message: string };

const TASK_STATUS: Record<Task["status"], string> = {
  analyzing: "解析中",
  prompt_review: "実行方針レビュー中",
  process_review: "実行ステップレビュー中",
  executing: "実行中",
  completed: "完了",
  failed: "失敗",
  cancelled: "中止",
  closed: "終了",
  answered: "返信済み（依頼ではない）",
};

const FREEE_STATUS: Record<FreeeStatusView["status"], string> = {
  connected: ":large_green_circle: 接続済み",
  reauth_required: ":warning: 再接続が必要です",
  not_connected: ":white_circle: 未接続",
  unknown: ":grey_question: 確認できません",
};

/** App Home = the admin surface (docs/architecture.md, messages): freee connection, settings, recent tasks, failures by class. */
export function buildHomeView(state: HomeState): View {
  const blocks: KnownBlock[] = [header("Slack MCP Agent 管理")];
  if (state.kind === "error") {
    blocks.push(section(`:warning: *${state.message}*`));
    return { type: "home", blocks };
  }
  const { data } = state;
  if (state.notice !== undefined) blocks.push(section(`:warning: *${escapeMrkdwn(state.notice)}*`));
  if (data.adminUrl !== undefined) blocks.push(context(`<${data.adminUrl}|管理画面を開く>（タスクの記録・監査ログ・ダッシュボード・設定）`));

  blocks.push(header("freee 接続"));
  const freeeLine = `${FREEE_STATUS[data.freee.status]}${data.freee.companyName ? ` (${inlineMrkdwn(data.freee.companyName)})` : ""}`;
  // Connect and disconnect are admins' (the connect pages check again): a member sees the status only.
  if (data.viewerIsAdmin && data.freee.connectUrl !== undefined && data.freee.status !== "connected") {
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: freeeLine, verbatim: true },
      accessory: { type: "button", action_id: HomeActionIds.freeeConnect, text: { type: "plain_text", text: "freee に接続" }, url: data.freee.connectUrl, style: "primary" },
    });
  } else {
    blocks.push(section(freeeLine));
  }
  if (data.viewerIsAdmin && (data.freee.status === "connected" || data.freee.status === "reauth_required")) {
    blocks.push({ type: "actions", block_id: "home_freee_actions", elements: [disconnectButton()] });
  }
  if (!data.viewerIsAdmin) blocks.push(context(HomeTexts.freeeAdminOnly));
  if (data.freee.status === "reauth_required" && data.freee.reauthReason !== undefined) blocks.push(context(freeeAuthMessageFor(data.freee.reauthReason)));
  if (data.viewerIsAdmin && data.freee.status === "connected" && data.freee.lapse !== undefined) blocks.push(section(`:warning: ${freeeLapseMessage(data.freee.lapse)}`));

  blocks.push(header("設定"));
  if (data.viewerIsAdmin) {
    blocks.push({
      type: "section",
      block_id: HOME_POLICY_BLOCK_ID,
      text: { type: "mrkdwn", text: policySummary(data.approvalPolicy), verbatim: true },
      accessory: { type: "button", action_id: HomeActionIds.policyEdit, text: { type: "plain_text", text: PolicyEditorTexts.editButton } },
    });
    blocks.push({
      type: "section",
      block_id: HOME_SETTINGS_BLOCK_ID,
      text: { type: "mrkdwn", text: ADMINS_LABEL, verbatim: true },
      accessory: {
        type: "multi_users_select",
        action_id: HomeActionIds.admins,
        placeholder: { type: "plain_text", text: "ユーザーを選択" },
        ...(data.adminUserIds.length > 0 ? { initial_users: data.adminUserIds } : {}),
      },
    });
    blocks.push({
      type: "input",
      block_id: HOME_EXTERNAL_TEAMS_BLOCK_ID,
      dispatch_action: true,
      optional: true,
      label: { type: "plain_text", text: HomeTexts.externalTeamsLabel },
      hint: { type: "plain_text", text: HomeTexts.externalTeamsHint },
      element: {
        type: "plain_text_input",
        action_id: HomeActionIds.externalTeams,
        placeholder: { type: "plain_text", text: "T0123ABCD, T0456EFGH" },
        ...(data.allowedExternalTeamIds.length > 0 ? { initial_value: data.allowedExternalTeamIds.join(", ") } : {}),
      },
    });
  } else {
    const who = data.adminUserIds.length > 0 ? data.adminUserIds.map((u) => `<@${u}>`).join(" ") : "(なし)";
    blocks.push(section(`${ADMINS_LABEL}: ${who}`));
    blocks.push(section(policySummary(data.approvalPolicy)));
    blocks.push(context("設定の変更は管理者のみ行えます。"));
  }

  blocks.push(header(data.viewerIsAdmin ? "最近のタスク（ワークスペース全体）" : "あなたの最近のタスク"));
  if (data.recentTasks.length === 0) blocks.push(section("タスクはまだありません。"));
  else {
    const lines = data.recentTasks.slice(0, 10).map((t) => {
      const title = inlineMrkdwn(truncate(t.spec?.title ?? t.requestText, 60));
      const link = data.threadLinks?.[t.taskId];
      // Who asked, and when in JST: the channel beside it shows JST too.
      return `• ${link === undefined ? title : `<${link}|${title}>`} — ${TASK_STATUS[t.status]} — 依頼者 <@${t.requesterId}> (${jstMinutes(t.createdAt)})`;
    });
    blocks.push(section(lines.join("\n")));
    blocks.push(context("時刻は日本時間（JST）です。"));
  }

  blocks.push(header("直近 30 日のタスクの結果"));
  const outcomes = (Object.entries(data.ledger.byOutcome) as [LedgerOutcome, number][]).filter(([, count]) => count > 0);
  if (outcomes.length === 0) blocks.push(section("記録されたタスクはありません。"));
  else blocks.push(section(outcomes.map(([outcome, count]) => `• ${OUTCOME_LABEL[outcome]}: ${count} 件`).join("\n")));

  // Failed tasks by the failure that ended each: every task once, so these add up to 失敗 + タイムアウト above.
  blocks.push(header("失敗したタスクの原因"));
  if (data.ledger.failuresByClass.length === 0) blocks.push(section("記録されたエラーはありません。"));
  else {
    blocks.push(section(data.ledger.failuresByClass.map((f) => `• ${escapeMrkdwn(layerName(f.layer))}: ${escapeMrkdwn(errorClassName(f.errorClass, f.service))} — ${f.count} 件`).join("\n")));
  }
  return { type: "home", blocks };
}

// A reply that was no request is said with what the bot did, since Home lists it beside real outcomes.
const OUTCOME_LABEL: Record<LedgerOutcome, string> = { ...LEDGER_OUTCOME_LABELS, not_a_request: "依頼ではない（返信のみ）" };

function disconnectButton() {
  return {
    type: "button",
    action_id: HomeActionIds.freeeDisconnect,
    text: { type: "plain_text", text: "freee との接続を解除" },
    style: "danger",
    confirm: {
      title: { type: "plain_text", text: "freee との接続を解除" },
      text: { type: "plain_text", text: HomeTexts.disconnectConfirm },
      confirm: { type: "plain_text", text: "解除する" },
      deny: { type: "plain_text", text: "キャンセル" },
      style: "danger",
    },
  } as const;
}

export const HomeErrors = {
  databaseUnreachable: AdminMessages.databaseUnreachable,
  settingsSaveFailed: AdminMessages.settingsSaveFailed,
} as const;
