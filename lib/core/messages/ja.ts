import type { FreeeAuthReason } from "../domain/freee-auth";

/**
 * User-facing Japanese messages, listed in docs/architecture.md (messages): Slack, and the admin surface (which lives
 * in App Home and the HTTP pages). No technical detail goes into these: the audit log holds that.
 */
export const SlackMessages = {
  l1Failed: "タスクの解析に失敗しました。もう一度お試しください。",
  l2Failed: "実行方針の生成に失敗しました。もう一度お試しください。",
  l3Failed: "実行ステップの生成に失敗しました。もう一度お試しください。",
  l4TimedOut: "実行がタイムアウトしました。[再実行] で再試行できます。",
  l4Failed: "実行中にエラーが発生しました。[再実行] で再試行できます。",
  freeeConnectionFailed: "freee への接続に失敗しました。管理画面で接続状態を確認してください。",
  regenerationLimit: "最大試行回数（5 回）に達しました。タスクを新しく作成してください。",
  rerunLimit: "最大再実行回数（3 回）に達しました。新しいタスクを作成してください。",
} as const;

/** Where a message may send the user besides Slack: the web admin (`…/admin`), when it is configured. */
export interface MessagePlaces {
  adminUrl?: string;
}

/**
 * The line under every freee connection message (docs/architecture.md, messages): where the connection is seen and
 * who fixes it — the ホーム tab, and the web admin's 設定 when it exists. The message above it stays word for word.
 */
export const FreeePlaceMessages = {
  home: "freee の接続状態は、Slack でこのアプリの「ホーム」タブを開くと確認できます。接続・再接続はワークスペースの管理者が行います。",
  homeOrAdmin: (adminUrl: string) =>
    `freee の接続状態は、Slack でこのアプリの「ホーム」タブ、または <${adminUrl}/settings|管理画面の設定> で確認できます。接続・再接続はワークスペースの管理者が行います。`,
} as const;

/** A freee message followed by the line that names the place. */
export function withFreeePlace(message: string, places: MessagePlaces = {}): string {
  return `${message}\n${places.adminUrl === undefined ? FreeePlaceMessages.home : FreeePlaceMessages.homeOrAdmin(places.adminUrl)}`;
}

/**
 * A request in a workspace whose freee connection is not usable (none, or one to reconnect): the task ends at the
 * Task card before any plan is made (no model call), saying what to do and who can do it.
 */
export const FreeeFirstMessages = {
  notUsable: "このワークスペースの freee との接続が使えないため（未接続、または再接続が必要）、この依頼は実行できません。実行計画は作成していません。",
  whatToDo: "ワークスペースの管理者が、Slack でこのアプリの「ホーム」タブを開いて freee に接続（再接続）してから、もう一度依頼してください。",
  whatToDoWithAdmin: (adminUrl: string) =>
    `ワークスペースの管理者が、Slack でこのアプリの「ホーム」タブ、または <${adminUrl}/settings|管理画面の設定> で freee に接続（再接続）してから、もう一度依頼してください。`,
} as const;

/**
 * A message L1 read as no request for work on freee (a greeting, a question): the reply is L1's; this line says
 * that nothing was planned. Its own row in docs/architecture.md (messages).
 */
export const NotARequestMessages = {
  noTask: "freee の操作の依頼ではないため、タスクは作成していません。freee で行いたいことを書いて送ると、実行計画を作って承認をお願いします。",
} as const;

/** The Execution card's words: step results, what changed in freee, what a stopped run did. */
export const ExecutionCardTexts = {
  written: "freee に書き込みました",
  doneEarlier: "前回の実行で完了（再送していません）",
  writeUnknown: "書き込まれたか確認できません。freee で確認してください",
  notRecorded: "freee への書き込みの記録がありません",
  stoppedByCancel: "中止により中断しました",
  stoppedByFailure: "途中で終了しました",
  changedHead: "freee で変わったこと",
  writtenBeforeStopHead: "止まるまでに freee へ書き込んだこと",
  noWrites: "freee への書き込みはありません。",
  nothingElse: "このほかに freee への書き込みはありません。",
  writesUnreadable: "freee への書き込みの記録を読めませんでした。freee で登録内容を確認してください。",
  /** Under the change table when a write may have reached freee: never beside 「freee への書き込みはありません」. */
  unknownWrites: "⚠️ 「確認が必要」の書き込みは、freee に届いたか確認できませんでした。「freee で開く」から登録内容を確かめてください。",
  dropped: (steps: readonly string[]) => `プランから外したステップ（freee の現在の値と同じため実行していません）: ${steps.join("、")}`,
  /** The outcome of a row of the change table. */
  outcome: { done: "✓", failed: "✗", unknown: "確認が必要", notRun: "未実行" },
  currentStep: (step: string) => `実行中のステップ: ${step}`,
  missingWrites: (missing: readonly string[], done: readonly string[]) =>
    `完了していない書き込みステップ: ${missing.join("、")}${done.length > 0 ? `（完了済み: ${done.join("、")}。再実行では繰り返しません）` : ""}`,
  openInFreee: "freee で開く",
  emptyResult: "該当するデータはありません。",
  restInCsv: (rest: number) => `ほか ${rest} 件はスレッドの CSV ファイルにあります。`,
  /** The requester's DM of results with HR personal data: the CSV follows there, not in the thread. */
  restInDmCsv: (rest: number) => `ほか ${rest} 件はこの DM の CSV ファイルにあります。`,
  restNotShown: (rest: number) => `ほか ${rest} 件は表示していません。`,
  moreSteps: (rest: number) => `（ステップの一覧の続き ${rest} セクションは省略しました）`,
  moreSections: (rest: number) => `（続き ${rest} セクションは省略しました）`,
  moreTables: (rest: number) => `（ほか ${rest} 件の読み取り結果は省略しました）`,
  /** A stopped run: the steps by their numbers on the card; a step freee refused did not run. */
  ranSummary: (groups: { ran: readonly number[]; failed: readonly number[]; unknown: readonly number[]; notRun: readonly number[] }) =>
    [
      `*実行したステップ*: ${groups.ran.length === 0 ? "なし" : groups.ran.join(", ")}`,
      ...(groups.failed.length === 0 ? [] : [`*失敗したステップ*: ${groups.failed.join(", ")}`]),
      ...(groups.unknown.length === 0 ? [] : [`*freee で確認が必要なステップ*: ${groups.unknown.join(", ")}`]),
      `*実行しなかったステップ*: ${groups.notRun.length === 0 ? "なし" : groups.notRun.join(", ")}`,
    ].join("\n"),
  csvComment: (label: string, total: number, rows: number) => (rows >= total ? `読み取り結果「${label}」全 ${total} 件（CSV）` : `読み取り結果「${label}」全 ${total} 件のうち先頭 ${rows} 件（CSV）`),
} as const;

/** Answers to a click, shown to the clicking user only (ephemeral, or inside the reject modal). */
export const ActionReplyMessages = {
  reasonTooLong: (max: number) => `却下理由は ${max} 文字以内で入力してください。`,
  /** A click on a card that no longer showed the truth: the card was drawn again from the database. */
  cardRefreshed: "カードの表示が古くなっていたため、最新の状態に更新しました。",
} as const;

export const AdminMessages = {
  databaseUnreachable: "データベースに接続できません",
  notFound: "ページが見つかりません",
  settingsSaveFailed: "設定の保存に失敗しました",
  freeeAuthFailed: "freee の認証に失敗しました",
} as const;

/** The web admin's own words beside the four above (its sign-in, roles and the outcome of a change). */
export const WebAdminMessages = {
  signInTitle: "管理画面にサインイン",
  signInWithSlack: "Slack でサインイン",
  signInFailed: "サインインに失敗しました。もう一度お試しください。",
  /** The id token's workspace has not installed the app (or uninstalled it). */
  notInstalled: "このワークスペースにはアプリがインストールされていません。",
  signInNotConfigured: "Slack でのサインインが設定されていません（SLACK_CLIENT_ID / SLACK_CLIENT_SECRET / WEB_SESSION_SECRET）。",
  signedOut: "サインアウトしました。",
  forbidden: "この画面を表示する権限がありません",
  /** A POST whose CSRF token is missing or not this session's: nothing was changed. */
  csrfRefused: "フォームの有効期限が切れました。画面を開き直してから、もう一度保存してください。",
  settingsSaved: "設定を保存しました",
  freeeConnected: "freee と接続しました",
  freeeDisconnected: "freee との接続を解除しました。",
  /** 設定's policy form: the label of a domain's approvers, and of the amount above which two must approve. */
  approversLabel: (domain: string) => `${domain}の承認者（空なら管理者）`,
  aboveYenLabel: "この金額（円）を超える書き込みは 2 人の承認（空なら無効）",
  badApproverId: (id: string) => `「${id}」はユーザー ID（例: U0123ABCD）でもユーザーグループ ID（例: S0123ABCD）でもありません。`,
  badAdminId: "ユーザー ID の形式が正しくありません（例: U0123ABCD）。",
  /** A field refused: which one and why; nothing was saved and the form keeps what was typed. */
  fieldRefused: (label: string, why: string) => `「${label}」: ${why}設定は変更されていません。入力した内容はフォームに残っています。`,
  /** The policy was saved by another admin after this page was opened: nothing saved, what to do next. */
  policyConflict: "この画面を開いた後に、他の管理者が承認のポリシーを保存しました。この変更は保存していません。入力した内容はフォームに残っています。下の「現在保存されている承認のポリシー」と見比べ、必要なら直してから、もう一度保存してください（保存すると、他の管理者が保存した内容を置き換えます）。",
  /** The table refused the save: nothing saved, the typed form kept. */
  saveUnavailable: "データベースに保存できませんでした。入力した内容はフォームに残っています。しばらくしてから、もう一度保存してください。",
  /** The approver fields could not list the workspace's people: the id fields instead, and why. */
  peopleUnavailable: "Slack からメンバーとユーザーグループの一覧を取得できなかったため、承認者は ID で入力してください。しばらくしてから開き直すと、一覧から選べます。",
  peopleTooMany: (limit: number) => `このワークスペースのメンバーは ${limit} 人を超えるため、一覧の代わりに ID で入力してください（Slack でプロフィールを開き「メンバー ID をコピー」で確認できます）。`,
  idsHint: "Slack のユーザー ID、カンマまたは改行区切り",
  idsHintWithGroups: "ユーザー ID・ユーザーグループ ID、カンマ区切り",
  pickerHint: "Ctrl（Mac は ⌘）を押しながらクリックすると複数選べます。",
  unlistedId: (id: string) => `${id}（一覧にないユーザーまたはグループ）`,
} as const;

/**
 * Who may do what (docs/architecture.md, who may act): shown in App Home, the connect pages
 * and as ephemeral refusals. None names another user, team or id.
 */
export const AccessMessages = {
  /** A member of another organisation (Slack Connect) made a request or clicked: refused, nothing changes. */
  externalUser: "このワークスペースの外部の組織のユーザーは、このアプリを利用できません。利用が必要な場合は、このワークスペースの管理者に外部組織の許可を依頼してください。",
  /** The freee connect page or its callback, opened by someone who is not (or no longer) an admin. */
  freeeAdminOnly: "freee の接続はワークスペースの管理者のみ行えます",
  freeeAdminOnlyDetail: "このリンクを開いたユーザーは、このワークスペースの管理者ではありません（または管理者ではなくなりました）。接続は保存されていません。管理者が Slack の App Home から接続してください。",
  /** App Home: a change only admins may make was refused. */
  adminOnlyChange: "この操作は管理者のみ行えます。",
  externalTeamsInvalid: "ワークスペース ID の形式が正しくありません（例: T0123ABCD）。設定は変更されていません。",
} as const;

export const HomeTexts = {
  freeeAdminOnly: "freee の接続・接続解除はワークスペースの管理者のみ行えます。",
  disconnectConfirm: "このワークスペースの freee の接続を解除します。保存されている freee のトークンは削除され、再接続するまで freee を使うタスクは実行できません。",
  disconnected: "freee との接続を解除しました。",
  externalTeamsLabel: "利用を許可する外部組織のワークスペース ID（Slack コネクト）",
  /** What the admin list grants (App Home and the web admin's 設定 say the same). */
  adminsRole: "依頼者のほか却下・中止・再実行ができ、承認者を指定していない領域の書き込みを承認します",
  externalTeamsHint: "カンマ区切りで入力し、Enter で保存します。空にすると外部組織のユーザーはすべて拒否されます。",
} as const;

/**
 * A freee write that may have reached freee and could not be confirmed by reading back (WriteOutcomeUnknownError,
 * docs/architecture.md, error table). The user must look in freee before a rerun; a rerun
 * reads back again before it writes.
 */
export const WriteOutcomeUnknownMessages = {
  slack: "freee への書き込みが反映されたか確認できませんでした。freee で登録内容を確認してから [再実行] してください（再実行のときも、書き込む前に freee を確認します）。",
  agent: "freee への書き込みの結果が不明です（応答が途中で失われ、読み戻しでも確認できませんでした）。二重登録を防ぐため再送しません。このステップは未完了のまま、ユーザーに freee での確認を求めてください。",
} as const;

/**
 * Why freee refused (the `details.reason` of a freee `AuthError`, lib/freee/freee-response.ts), in words the
 * agent passes on and an admin can act on. Each names who fixes it and where; none carries a token or an id.
 */
export const FreeeAuthMessages = {
  user_do_not_have_permission:
    "freee に接続したユーザーに、この操作に必要な権限がありません。事業所の管理者が freee の「設定 > メンバー招待・権限管理 > メンバー管理」で権限を割り当ててください。",
  company_not_found: "接続している freee の事業所が見つかりません（存在しないか削除されています）。App Home から freee に再接続し、事業所を選び直してください。",
  freee_plan_limit: "ご利用中の freee のプランではこの機能の API を利用できません。freee のプランをご確認ください。",
  source_ip_address_limit: "freee の IP アドレス制限により、このアプリからのアクセスが拒否されました。事業所のシステム管理者に freee の IP 制限の設定を確認してもらってください。",
  re_authorization_required: "freee アプリのデータアクセス範囲が変わったため、再度の認可が必要です。App Home から freee に再接続してください。",
  not_available_plan_limited_app: "ご契約中の freee のプランではこのアプリを利用できません。freee のプランをご確認ください。",
  unrecognized: "freee が認証エラーを返しました。App Home で freee の接続状態を確認してください。",
  not_connected: "このワークスペースは freee に接続されていません。App Home から freee に接続してください。",
  reauth_required: "freee との接続の更新が必要です。App Home から freee に再接続してください。",
  refresh_rejected: "freee の接続の有効期限が切れたか、接続が取り消されました。App Home から freee に再接続してください。",
  code_rejected: "freee の認可コードが無効か期限切れです。もう一度 freee に接続してください。",
  token_rejected_after_refresh: "freee のアクセストークンを更新しても認証されませんでした。App Home から freee に再接続してください。",
} as const satisfies Record<FreeeAuthReason, string>;

/** The text for a freee AuthError's reason; an unknown reason gets the general one. */
export function freeeAuthMessageFor(reason: unknown): string {
  return typeof reason === "string" && Object.hasOwn(FreeeAuthMessages, reason)
    ? FreeeAuthMessages[reason as FreeeAuthReason]
    : FreeeAuthMessages.unrecognized;
}

/**
 * The freee connection acts on another company than the one the approved plan was previewed against
 * (FreeeCompanyChangedError): the run stops, and the plan must be previewed again — a rerun would meet the same.
 */
export const FreeeCompanyChangedMessages = {
  slack: "freee の接続先の事業所が、この計画をプレビューしたときから変わったため、実行を止めました。計画は接続先の事業所でプレビューし直す必要があります。もう一度依頼してください。",
  /** A plan awaiting approval when freee was reconnected to another company: its card, and a click on its 承認. */
  invalidated: "freee の接続先の事業所が、この計画をプレビューしたときから変わったため、この計画は承認できなくなりました。計画は接続先の事業所でプレビューし直す必要があります。もう一度依頼してください。",
  agent: "freee の接続先の事業所が、承認された計画の事業所から変わっています。この実行では freee のツールは使えません。ほかのツールは呼ばずに、事業所が変わったため実行できなかったと報告して終えてください。",
  /** On a Process card: the company the plan was previewed against, and what a reconnect to another one does. */
  target: (name: string) => `対象の事業所: ${name}`,
  unnamed: (id: number) => `事業所 ID ${id}`,
  cardNote: "freee の接続先を別の事業所に切り替えると、この計画は承認できなくなり、承認済みでも freee を操作せずに止まります（新しい事業所でプレビューし直すため、もう一度依頼してください）。",
} as const;

/**
 * freee's 403 throttle (FreeeThrottledError): freee stopped the app's API access for about ten minutes after too many
 * calls. The run ends (no freee call can succeed until then); the card says to run it again later.
 */
export const FreeeThrottledMessages = {
  slack: "freee のアクセス制限中です。短時間に多くのアクセスがあったため、freee が API の利用を 10 分ほど止めています。時間をおいてから [再実行] してください（済んだ手順は繰り返しません）。",
} as const;

/** HH:MM in Japan time of an ISO instant, undefined when it is not one. */
function jstClock(iso: string | undefined): string | undefined {
  const at = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(at) ? undefined : new Date(at + 9 * 3_600_000).toISOString().slice(11, 16);
}

/** The throttle with the time it lifts (JST, from freee's ten minutes), for the agent and the audit log. */
export function freeeThrottledMessage(resetAt: string | undefined): string {
  const clock = jstClock(resetAt);
  const when = clock === undefined ? "10 分ほど経ってから" : `${clock}（日本時間）以降に`;
  return `freee のアクセス制限中です。${when}再実行してください。この実行では freee のツールを呼ばずに、アクセス制限のため実行できなかったと報告して終えてください。`;
}

/** Under FreeeThrottledMessages.slack on the run's card: when freee lifts the throttle, when the run knows it. */
export function freeeThrottleLiftsLine(resetAt: string | undefined): string | undefined {
  const clock = jstClock(resetAt);
  return clock === undefined ? undefined : `freee の制限が解ける目安: ${clock}（日本時間）。それ以降に [再実行] してください。`;
}

/** freee's rate limit, with when it resets when freee said so. */
/** The opening of every freee rate-limit message (lib/core/messages/freee-refusals.ts reads it back). */
export const FREEE_RATE_LIMITED_HEAD = "freee API の利用回数制限に達しました。";

export function freeeRateLimitedMessage(retryAfterSeconds: number | undefined): string {
  const head = FREEE_RATE_LIMITED_HEAD;
  if (retryAfterSeconds === undefined) return `${head}時間をおいて実行してください。`;
  const wait = retryAfterSeconds >= 120 ? `約 ${Math.ceil(retryAfterSeconds / 60)} 分` : `約 ${Math.max(1, Math.ceil(retryAfterSeconds))} 秒`;
  return `${head}制限は${wait}後に解除されます。それ以降に実行してください。`;
}

/**
 * App Home, to admins: the freee connection will lapse (its 90-day refresh token is close to its end, so the daily
 * refresh has been failing), or its age is unknown (stored before the issue time was recorded).
 */
export function freeeLapseMessage(lapse: { kind: "lapsing"; expiresAt: string; daysLeft: number } | { kind: "unknown_age" }): string {
  if (lapse.kind === "unknown_age") {
    return "freee との接続の有効期限を確認できません。自動更新の対象にするため、App Home から freee に再接続してください。";
  }
  const date = new Date(Date.parse(lapse.expiresAt) + 9 * 3_600_000).toISOString().slice(0, 10);
  const when = lapse.daysLeft <= 0 ? "本日" : `あと ${lapse.daysLeft} 日（${date}）`;
  return `freee との接続は${when}で期限切れになります（自動更新に失敗しています）。期限までに App Home から freee に再接続してください。`;
}

export type SlackMessageKey = keyof typeof SlackMessages;
export type AdminMessageKey = keyof typeof AdminMessages;

/**
 * Why a Managed Agents run failed (AgentRunFailedError.reason), shown under the user message on the Execution card
 * and kept in the error.L4 audit entry. Not the failure message itself (one serves every L4 failure).
 */
export const AgentFailureMessages = {
  session_error: "エージェントのセッションでエラーが発生しました。",
  requires_action: "エージェントが確認待ちのまま停止しました。",
  retries_exhausted: "エージェントが再試行の上限に達しました。",
  budget_reached: "実行の上限（トークン予算）に達しました。",
  terminated: "エージェントのセッションが終了しました。",
  mcp_unreachable: "freee 連携サーバーに接続できませんでした。",
  model_overloaded: "AI モデルが混雑していたため実行できませんでした。",
} as const;

/** The line for a failure reason; an unknown reason (a newer runner) gets none rather than a wrong one. */
export function agentFailureMessageFor(reason: string | undefined): string | undefined {
  return reason !== undefined && Object.hasOwn(AgentFailureMessages, reason) ? AgentFailureMessages[reason as keyof typeof AgentFailureMessages] : undefined;
}

/** The user message for a failure of one layer. */
export function failureMessageFor(layer: "L1" | "L2" | "L3" | "L4", errorName?: string, places: MessagePlaces = {}): string {
  switch (layer) {
    case "L1":
      // L1 itself never calls freee: an AuthError here is the freee-first check (lib/steps/freee-first.ts).
      if (errorName === "AuthError") {
        return `${FreeeFirstMessages.notUsable}\n${places.adminUrl === undefined ? FreeeFirstMessages.whatToDo : FreeeFirstMessages.whatToDoWithAdmin(places.adminUrl)}`;
      }
      return SlackMessages.l1Failed;
    case "L2":
      return SlackMessages.l2Failed;
    case "L3":
      // The preview reads freee with the workspace's connection before the Process card asks for approval.
      if (errorName === "AuthError") return withFreeePlace(SlackMessages.freeeConnectionFailed, places);
      // A plan (not yet run) previewed against another company than the connection's now: it must be previewed again.
      if (errorName === "FreeeCompanyChangedError") return FreeeCompanyChangedMessages.invalidated;
      if (errorName === "FreeeThrottledError") return FreeeThrottledMessages.slack;
      return SlackMessages.l3Failed;
    case "L4":
      if (errorName === "RunTimeoutError") return SlackMessages.l4TimedOut;
      if (errorName === "AuthError") return withFreeePlace(SlackMessages.freeeConnectionFailed, places);
      if (errorName === "FreeeCompanyChangedError") return FreeeCompanyChangedMessages.slack;
      if (errorName === "WriteOutcomeUnknownError") return WriteOutcomeUnknownMessages.slack;
      if (errorName === "FreeeThrottledError") return FreeeThrottledMessages.slack;
      return SlackMessages.l4Failed;
  }
}

/**
 * The limit message for a LimitReachedError. `count` is the limit in force (MAX_REGENERATIONS /
 * MAX_RERUNS): at the defaults (5 / 3) the text is the one listed in docs/architecture.md; another setting shows its
 * own number rather than a wrong one.
 */
export function limitMessageFor(limit: "regenerations" | "reruns", count?: number): string {
  const [text, seedCount] = limit === "regenerations" ? [SlackMessages.regenerationLimit, 5] : [SlackMessages.rerunLimit, 3];
  if (count === undefined || count === seedCount) return text;
  return text.replace(`（${seedCount} 回）`, `（${count} 回）`);
}
