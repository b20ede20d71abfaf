/**
 * User-facing Japanese messages, word for word from seed 000 §9.1 (Slack) and §9.2 (admin surface, which lives
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

export const AdminMessages = {
  databaseUnreachable: "データベースに接続できません",
  notFound: "ページが見つかりません",
  settingsSaveFailed: "設定の保存に失敗しました",
  freeeAuthFailed: "freee の認証に失敗しました",
} as const;

/**
 * A freee write that may have reached freee and could not be confirmed by reading back (WriteOutcomeUnknownError,
 * DESIGN §3). Not a seed §9.1 row: the seed has no such case. The user must look in freee before a rerun; a rerun
 * reads back again before it writes.
 */
export const WriteOutcomeUnknownMessages = {
  slack: "freee への書き込みが反映されたか確認できませんでした。freee で登録内容を確認してから [再実行] してください（再実行のときも、書き込む前に freee を確認します）。",
  agent: "freee への書き込みの結果が不明です（応答が途中で失われ、読み戻しでも確認できませんでした）。二重登録を防ぐため再送しません。このステップは未完了のまま、ユーザーに freee での確認を求めてください。",
} as const;

export type SlackMessageKey = keyof typeof SlackMessages;
export type AdminMessageKey = keyof typeof AdminMessages;

/** The §9.1 message for a failure of one layer. */
export function failureMessageFor(layer: "L1" | "L2" | "L3" | "L4", errorName?: string): string {
  switch (layer) {
    case "L1":
      return SlackMessages.l1Failed;
    case "L2":
      return SlackMessages.l2Failed;
    case "L3":
      return SlackMessages.l3Failed;
    case "L4":
      if (errorName === "RunTimeoutError") return SlackMessages.l4TimedOut;
      if (errorName === "AuthError") return SlackMessages.freeeConnectionFailed;
      if (errorName === "WriteOutcomeUnknownError") return WriteOutcomeUnknownMessages.slack;
      return SlackMessages.l4Failed;
  }
}

/**
 * The §9.1 limit message for a LimitReachedError. `count` is the limit in force (MAX_REGENERATIONS /
 * MAX_RERUNS): at the DESIGN defaults (5 / 3) the text is the seed's, word for word; another setting shows its
 * own number rather than a wrong one.
 */
export function limitMessageFor(limit: "regenerations" | "reruns", count?: number): string {
  const [text, seedCount] = limit === "regenerations" ? [SlackMessages.regenerationLimit, 5] : [SlackMessages.rerunLimit, 3];
  if (count === undefined || count === seedCount) return text;
  return text.replace(`（${seedCount} 回）`, `（${count} 回）`);
}
