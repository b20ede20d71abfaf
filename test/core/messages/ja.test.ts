import { describe, expect, it } from "vitest";
import { AdminMessages, failureMessageFor, limitMessageFor, SlackMessages, WriteOutcomeUnknownMessages } from "../../../lib/core/messages/ja";

// The messages of docs/architecture.md, word for word: one test per message.
describe("Slack messages", () => {
  it("L1 失敗", () => expect(failureMessageFor("L1")).toBe("タスクの解析に失敗しました。もう一度お試しください。"));
  it("L2 失敗", () => expect(failureMessageFor("L2")).toBe("実行方針の生成に失敗しました。もう一度お試しください。"));
  it("L3 失敗", () => expect(failureMessageFor("L3")).toBe("実行ステップの生成に失敗しました。もう一度お試しください。"));
  it("L4 タイムアウト", () =>
    expect(failureMessageFor("L4", "RunTimeoutError")).toBe("実行がタイムアウトしました。[再実行] で再試行できます。"));
  it("L4 エラー", () =>
    expect(failureMessageFor("L4", "AgentRunFailedError")).toBe("実行中にエラーが発生しました。[再実行] で再試行できます。"));
  it("freee 接続エラー: the listed text word for word, then a second line naming the place (the ホーム tab; the web admin when configured)", () => {
    for (const layer of ["L3", "L4"] as const) {
      const [first, second, ...rest] = failureMessageFor(layer, "AuthError").split("\n");
      expect(first).toBe("freee への接続に失敗しました。管理画面で接続状態を確認してください。");
      expect(second).toContain("「ホーム」タブ");
      expect(second).toContain("管理者");
      expect(rest).toEqual([]);
      const withAdmin = failureMessageFor(layer, "AuthError", { adminUrl: "https://web.example/admin" }).split("\n");
      expect(withAdmin[0]).toBe(first);
      expect(withAdmin[1]).toContain("「ホーム」タブ");
      expect(withAdmin[1]).toContain("<https://web.example/admin/settings|管理画面の設定>");
    }
  });
  it("freee への書き込み結果が不明 (WriteOutcomeUnknownError, not a seed row): check freee before [再実行]", () => {
    expect(failureMessageFor("L4", "WriteOutcomeUnknownError")).toBe(WriteOutcomeUnknownMessages.slack);
    expect(WriteOutcomeUnknownMessages.slack).toContain("freee で登録内容を確認してから [再実行]");
  });
  it("再生成上限", () => expect(limitMessageFor("regenerations")).toBe("最大試行回数（5 回）に達しました。タスクを新しく作成してください。"));
  it("再実行上限", () => expect(limitMessageFor("reruns")).toBe("最大再実行回数（3 回）に達しました。新しいタスクを作成してください。"));
  it("a limit configured away from its default shows its own number, the rest word for word", () => {
    expect(limitMessageFor("regenerations", 5)).toBe(SlackMessages.regenerationLimit);
    expect(limitMessageFor("regenerations", 2)).toBe("最大試行回数（2 回）に達しました。タスクを新しく作成してください。");
    expect(limitMessageFor("reruns", 3)).toBe(SlackMessages.rerunLimit);
    expect(limitMessageFor("reruns", 1)).toBe("最大再実行回数（1 回）に達しました。新しいタスクを作成してください。");
  });
  it("messages carry no technical detail", () => {
    for (const text of Object.values(SlackMessages)) expect(text).not.toMatch(/Error|HTTP|[0-9]{3}|stack|exception/i);
  });
});

describe("admin messages (shown in App Home and the HTTP pages)", () => {
  it("DB 接続エラー", () => expect(AdminMessages.databaseUnreachable).toBe("データベースに接続できません"));
  it("404", () => expect(AdminMessages.notFound).toBe("ページが見つかりません"));
  it("設定保存失敗", () => expect(AdminMessages.settingsSaveFailed).toBe("設定の保存に失敗しました"));
  it("OAuth 失敗", () => expect(AdminMessages.freeeAuthFailed).toBe("freee の認証に失敗しました"));
});
