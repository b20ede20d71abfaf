import { FREEE_RATE_LIMITED_HEAD } from "./ja";

/**
 * What the freee MCP server tells the agent when freee refused a tool call (lib/mcp/call-context.ts), and the
 * refusal read back from that text where the run ends (lib/steps/complete-run.ts): one wording, so the ledger's
 * class of an incomplete run (403 / 404 / 429, lib/core/errors/taxonomy.ts) follows what the agent was told.
 */
export const FreeeRefusalTexts = {
  forbidden: "freee API が権限不足のためリクエストを拒否しました (403)。アプリの権限（スコープ）か、freee 上のユーザーの権限が足りません。",
  notFound: "freee に該当するデータが見つかりません (404)。ID や日付を確認してください。",
  rejected: (status: number) => `freee API がリクエストを受け付けませんでした (${status})。入力を確認してください。`,
} as const;

export type FreeeRefusalKind = "forbidden" | "not_found" | "rate_limited";

/** The refusal a tool result's text names, or undefined (another error, or a success). */
export function refusalKindOf(text: string): FreeeRefusalKind | undefined {
  if (text.startsWith(FreeeRefusalTexts.forbidden)) return "forbidden";
  if (text.startsWith(FreeeRefusalTexts.notFound)) return "not_found";
  if (text.startsWith(FREEE_RATE_LIMITED_HEAD)) return "rate_limited";
  return undefined;
}
