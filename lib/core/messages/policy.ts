import { DOMAIN_LABEL, type ApprovalRule, type PolicyDomain } from "../domain/approval-policy";

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
} as const;
