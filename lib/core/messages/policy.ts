import { DOMAIN_LABEL, type ApprovalRule, type PolicyDomain } from "../domain/approval-policy";
import type { PreviewWarningKind } from "../domain/preview";

/**
 * The approval policy's words (docs/architecture.md, messages): the reply to a click the policy does not allow,
 * the first of two approvals, and the card's lines of who may approve, who has, and what is still needed.
 */
export const PolicyMessages = {
  refused(reason: "self_approval" | "not_approver" | "already_approved", rule: ApprovalRule): string {
    if (reason === "self_approval") return "依頼者本人はこの計画を承認できません（承認ルール: 依頼者による承認は不可）。承認できる人に依頼してください。";
    if (reason === "already_approved") return "あなたはこの計画を既に承認しています。同じ人の承認は 2 回目を数えません。別の承認者の承認が必要です。";
    const domains = rule.writeDomains.map((d) => DOMAIN_LABEL[d]).join("・");
    return `あなたはこの計画を承認できません（承認ルール: ${domains === "" ? "管理者" : `${domains}の承認者`}のみ）。承認できる人に依頼してください。`;
  },
  /** Slack could not say whether the clicker is in the policy's user group: nothing is recorded, they may click again. */
  membershipUnknown: "ユーザーグループに所属しているかを Slack に確認できませんでした。承認は記録していません。しばらくしてから、もう一度承認してください。",
  approveInPrivate: "この計画の金額は公開チャンネルには表示していません。「全体を確認して承認」から金額を確認して承認してください。",
  recorded(left: number): string {
    return `承認を記録しました。実行にはあと ${left} 人、別の承認者の承認が必要です。`;
  },
  /** The card: who may approve (names as Slack mentions), who approved, what is still needed, which rules apply. */
  whoMay(rule: ApprovalRule): string {
    const people = [...rule.approverUserIds.map((u) => `<@${u}>`), ...rule.approverUsergroupIds.map((g) => `<!subteam^${g}>`)];
    const who = rule.writes && people.length > 0 ? people.join(" ") : "依頼者または管理者";
    const self = rule.writes && !rule.selfApproval ? "（依頼者本人を除く）" : "";
    return `*承認できる人:* ${who}${self}`;
  },
  progress(rule: ApprovalRule, approvedBy: readonly string[]): string {
    const done = approvedBy.length > 0 ? `承認済み: ${approvedBy.map((u) => `<@${u}>`).join(" ")}。` : "";
    const left = rule.required - approvedBy.length;
    const because = rule.twoBecause.map((b) => (b === "amount" ? "合計金額が基準を超える" : "注意事項がある")).join("・");
    const need = rule.required === 2 ? `この計画は${because}ため、別々の 2 人の承認が必要です。` : "";
    return `${need}${done}${left > 0 ? `あと ${left} 人の承認が必要です。` : ""}`;
  },
  /** A plan that only reads, run on its 実行方針 approval: the Process card is shown as information. */
  readsAfterPrompt(actorId: string): string {
    return `実行方針の承認（<@${actorId}>）で実行します — 読み取りだけの計画のため、実行ステップの承認は不要です`;
  },
  readsAfterPromptNote(domains: readonly PolicyDomain[]): string {
    const what = domains.map((d) => DOMAIN_LABEL[d]).join("・");
    return `承認ルール: ${what === "" ? "" : `${what}の`}読み取りは実行方針の承認だけで実行できます（管理者が App Home で変更できます）。この表示は確認用です。`;
  },
  snapshot(rule: ApprovalRule): string {
    const at = (rule.policyUpdatedAt ?? rule.snapshotAt).slice(0, 16).replace("T", " ");
    return rule.policyUpdatedAt === undefined
      ? "この計画は投稿時の承認ルール（既定の設定）で判定されます。後で設定が変わってもこの計画には適用されません。"
      : `この計画は投稿時の承認ルール（${at} UTC 保存の設定）で判定されます。後で設定が変わってもこの計画には適用されません。`;
  },
} as const;

/** Where results with HR personal data went (docs/slack.md, results with HR personal data). */
export const PrivacyTexts = {
  dmIntro: (taskTitle: string) => `タスク「${taskTitle}」の結果です。人事の個人情報を含むため、依頼者のあなたにだけ送っています。`,
  /** The thread's card, in place of those results. */
  sentByDm: (requesterId: string) => `:lock: 結果には人事の個人情報（給与・住所・口座・家族など）が含まれるため、このチャンネルには表示しません。依頼者 <@${requesterId}> に DM で送りました。`,
  dmFailed: (requesterId: string) => `:lock: 結果には人事の個人情報が含まれるため、このチャンネルには表示しません。依頼者 <@${requesterId}> への DM の送信に失敗しました。[再実行] でもう一度送れます。`,
  /** A public channel's Process card of an HR plan: each change without its amounts. */
  maskedChange: (line: string) => `${line} — 金額は承認できる人にだけ表示されます`,
  maskedNote: "このチャンネルは公開チャンネルのため、人事の変更内容（金額）は表示していません。承認できる人は「全体を確認して承認」から全体を確認して承認できます。",
  /** A step's warnings on the masked card: their kinds only (the warnings' own words quote amounts). */
  maskedWarnings: (kinds: readonly string[]) => `確認が必要な点: ${kinds.join("、")}（内容は「全体を確認して承認」で表示されます）`,
  /** The steps the preview took out, by number and whom (their rows hold amounts). */
  maskedDropped: (steps: readonly string[]) => `プランから外したステップ（freee の現在の値と同じで、何も変わらないため実行しません）: ${steps.join("、")}`,
} as const;

/** A warning's kind in a few words, where its message cannot be shown (a masked card). */
export const WARNING_KIND_WORDS: Readonly<Record<PreviewWarningKind, string>> = {
  decrease: "減額",
  pay_type_change: "給与形態の変更",
  large_change: "大きな変更",
  no_op: "変更なし",
  past_date: "過去の日付",
  retired_employee: "退職した従業員",
};

/** The App Home editor of the approval policy (lib/ingress/policy-modal.ts): labels, the checks' words, the outcomes. */
export const PolicyEditorTexts = {
  heading: "*承認のポリシー（職務の分離）*",
  editButton: "ポリシーを編集",
  title: "承認のポリシー",
  loadingTitle: "読み込み中",
  loading: "承認のポリシーとユーザーグループを読み込んでいます…",
  save: "保存",
  close: "閉じる",
  cancel: "キャンセル",
  intro: "書き込みの計画を誰が承認できるかを決めます。保存した設定は、これから承認を求める計画に適用されます（承認待ちの計画は投稿時の設定のまま判定されます）。",
  selfLabel: "依頼者本人による承認",
  selfOption: "依頼者本人が自分の書き込みの計画を承認できる",
  usersLabel: (domain: string) => `${domain}の書き込みを承認できるユーザー`,
  groupsLabel: (domain: string) => `${domain}の書き込みを承認できるユーザーグループ`,
  approversHint: "ユーザーもユーザーグループも空のときは、ワークスペースの管理者が承認します。",
  groupsPlaceholder: "ユーザーグループを選択",
  usersPlaceholder: "ユーザーを選択",
  noUsergroups: "このワークスペースにはユーザーグループがありません。承認者はユーザーで指定してください。",
  usergroupsUnavailable: "このワークスペースのプランではユーザーグループを使えません。承認者はユーザーで指定してください。",
  moreUsergroups: (shown: number, total: number) => `ユーザーグループは ${total} 件のうち ${shown} 件を表示しています（選択済みのものを先に表示）。`,
  twoLabel: "2 人の承認が必要な計画",
  twoOnWarning: "変更表に注意事項がある書き込み",
  aboveLabel: "この金額（円）を超える書き込みは別々の 2 人の承認（空なら金額では判定しない）",
  readsLabel: "実行方針の承認だけで実行する読み取り専用の計画",
  readsOption: (domain: string) => `${domain}の読み取り`,
  badAmount: "0 以上の整数（円）を入力してください。",
  badUser: "ユーザーの指定が正しくありません。選び直してください。",
  unknownUsergroup: (ids: readonly string[]) => `ユーザーグループ ${ids.join(", ")} が見つかりません（削除された可能性があります）。選び直してください。`,
  refused: "承認のポリシーは管理者だけが変更できます。設定は変更されていません。",
  conflict: "他の管理者が先に承認のポリシーを保存しました。この変更は保存していません。閉じてから App Home で開き直し、もう一度変更してください。",
  loadFailed: "承認のポリシーの編集画面を開けませんでした。しばらくしてから、もう一度お試しください。",
  saved: "承認のポリシーを保存しました。これから承認を求める計画に適用されます。",
} as const;
