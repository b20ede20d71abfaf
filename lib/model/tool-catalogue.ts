import { genericOperations } from "../freee/tools/generic-tools";
import { AGENT_DECIDE } from "../freee/tools/summaries";
import { FREEE_TOOLS } from "../freee/tools/registry";
import { fieldLines, queryLine } from "../freee/tools/schema-text";

/**
 * The tools the model sees, rendered from the registry the MCP server serves: one source, so L2 and L3
 * can never plan what the server does not know. L2 and L3 get every field with the format freee expects. Deterministic, so the cached system blocks stay byte-identical between calls.
 */
export function renderToolCatalogue(): string {
  const typed = FREEE_TOOLS.filter((t) => t.method === undefined).map((t) =>
    [`### ${t.name}（${t.readOnly ? "読み取り専用" : "データを変更する"}）`, t.description, "入力:", ...fieldLines(t.inputSchema)].join("\n"),
  );
  const generic = FREEE_TOOLS.filter((t) => t.method !== undefined).map((t) => {
    const operations = genericOperations(t).map((entry) => {
      const op = entry.operation;
      const lines = [`#### ${op.method} ${op.path} — ${op.summary}`];
      const query = queryLine(op);
      if (query !== undefined) lines.push(query);
      if (op.requestBody !== undefined) lines.push("body:", ...fieldLines(op.requestBody.schema));
      return lines.join("\n");
    });
    const kind = t.readOnly ? "読み取り専用" : "データを変更する";
    return [
      `### ${t.name}（${kind}）`,
      `toolInput: {"path": "下のパスの {…} を実際の値にしたもの", "query": {…}${t.method === "POST" || t.method === "PUT" ? ', "body": {…}' : ""}}。company_id は入れません。`,
      ...operations,
    ].join("\n");
  });
  return [
    "## 利用できるツール",
    ...typed,
    "## 汎用ツール（上のツールにない freee の操作）",
    ...generic,
    `### ${AGENT_DECIDE}`,
    "使うツールを実行時にエージェントが決める、または結果を確認・判断するステップ（effect: read）。tools に挙げた読み取り専用のツールだけを使えます。",
    'toolInput: {"instruction": "エージェントへの日本語の指示", "tools": ["使ってよい読み取り専用ツール名", …], "pathPrefixes": ["freee_api_get のときだけ: 読んでよいパスの先頭", …]}',
  ].join("\n\n");
}
