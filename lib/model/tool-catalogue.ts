import { genericOperations } from "../freee/tools/generic-tools";
import { AGENT_DECIDE } from "../freee/tools/summaries";
import { FREEE_TOOLS } from "../freee/tools/registry";
import { fieldLines } from "../freee/tools/schema-text";

/**
 * The tools the model sees, rendered from the registry the MCP server serves: one source, so L2 and L3
 * can never plan what the server does not know. L2 and L3 get every typed tool's fields with the format freee expects, and every generic operation in one line. Deterministic, so the cached system blocks stay byte-identical between calls.
 */
export function renderToolCatalogue(): string {
  const typed = FREEE_TOOLS.filter((t) => t.method === undefined).map((t) =>
    [`### ${t.name}（${t.readOnly ? "読み取り専用" : "データを変更する"}）`, t.description, "入力:", ...fieldLines(t.inputSchema)].join("\n"),
  );
  // Every operation in one line (method, path, freee's summary, read or write): 300 schemas would not fit L3's
  // prompt. An operation's query and body fields reach the model with its validation issue (the retry).
  const generic = FREEE_TOOLS.filter((t) => t.method !== undefined).map((t) => {
    const body = t.method === "POST" || t.method === "PUT" || t.method === "PATCH" ? ', "body": {…}' : "";
    return `### ${t.name}（${t.readOnly ? "読み取り専用" : "データを変更する"}）: ${t.method} の操作。toolInput: {"path": …, "query": {…}${body}}`;
  });
  const operations = FREEE_TOOLS.filter((t) => t.method !== undefined).flatMap((t) =>
    genericOperations(t).map((e) => `${e.operation.method} ${e.operation.path} ${e.operation.summary}（${e.effect === "read" ? "読" : "書"}）`),
  );
  return [
    "## 利用できるツール",
    ...typed,
    "## 汎用ツール（上のツールにない freee の操作）",
    "path は下の一覧の操作のパスの {…} を実際の値にしたもの（事業所を表す {company_id} はそのまま）。company_id は query にも body にも入れません。各操作のクエリと body の項目は、入力が検証に通らなかったとき <validation_error> にその操作の入力として示されます。",
    ...generic,
    `### 操作一覧（メソッド パス 概要（読: 読み取り / 書: データを変更する））\n${operations.join("\n")}`,
    `### ${AGENT_DECIDE}`,
    "使うツールを実行時にエージェントが決める、または結果を確認・判断するステップ（effect: read）。tools に挙げた読み取り専用のツールだけを使えます。",
    'toolInput: {"instruction": "エージェントへの日本語の指示", "tools": ["使ってよい読み取り専用ツール名", …], "pathPrefixes": ["freee_api_get のときだけ: 読んでよいパスの先頭", …]}',
  ].join("\n\n");
}
