import { z } from "zod";
import { AGENT_DECIDE, FREEE_TOOLS } from "../tools/registry";

/**
 * The L3 system prompt's list of tools, rendered from the registry the MCP server serves: one source, so
 * L3 can never plan with a tool the server does not know. Deterministic, so the cached system block stays
 * byte-identical between calls.
 */
export function renderToolCatalogue(): string {
  const tools = FREEE_TOOLS.map((t) => {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(z.object(t.inputShape)) as Record<string, unknown>;
    return [
      `### ${t.name}（${t.readOnly ? "読み取り専用" : "データを変更する"}）`,
      t.description,
      `入力スキーマ: ${JSON.stringify(schema, dropSafeIntegerBounds)}`,
    ].join("\n");
  });
  return [
    "## 利用できるツール",
    ...tools,
    `### ${AGENT_DECIDE}`,
    "使うツールを実行時にエージェントが決める、または結果を確認・判断するステップ（effect: read）。tools に挙げた読み取り専用のツールだけを使えます。",
    'toolInput: {"instruction": "エージェントへの日本語の指示", "tools": ["使ってよい読み取り専用ツール名", …], "pathPrefixes": ["freee_api_get のときだけ: 読んでよいパスの先頭", …]}',
  ].join("\n\n");
}

/** zod writes the safe-integer range on every int; it says nothing to the model and costs tokens. */
function dropSafeIntegerBounds(key: string, value: unknown): unknown {
  if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) return undefined;
  if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) return undefined;
  return value;
}
