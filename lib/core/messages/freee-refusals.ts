import { FREEE_RATE_LIMITED_HEAD } from "./ja";

/**
 * What the freee MCP server tells the agent when freee refused a tool call (lib/mcp/call-context.ts), and the
 * refusal read back from that text — from the whole tool result where the run ends (lib/steps/complete-run.ts),
 * from a step's note (its first sentence) on the card: one wording, so the ledger's class of an incomplete run
 * (403 / 404 / 429, lib/core/errors/taxonomy.ts) and the card's guidance follow what the agent was told.
 */
const HEADS = {
  forbidden: "freee API が権限不足のためリクエストを拒否しました (403)。",
  not_found: "freee に該当するデータが見つかりません (404)。",
  rate_limited: FREEE_RATE_LIMITED_HEAD,
} as const;

export const FreeeRefusalTexts = {
  forbidden: `${HEADS.forbidden}アプリの権限（スコープ）か、freee 上のユーザーの権限が足りません。`,
  notFound: `${HEADS.not_found}ID や日付を確認してください。`,
  rejected: (status: number) => `freee API がリクエストを受け付けませんでした (${status})。入力を確認してください。`,
} as const;

export type FreeeRefusalKind = keyof typeof HEADS;

/** The refusal a tool result or a step's note names (its first sentence is enough), or undefined. */
export function refusalKindOf(text: string): FreeeRefusalKind | undefined {
  return (Object.keys(HEADS) as FreeeRefusalKind[]).find((kind) => text.includes(HEADS[kind]));
}
