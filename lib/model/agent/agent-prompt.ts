import type { ProcessStep } from "../../core/domain/records";
import { AGENT_DECIDE, effectOfStep } from "../../freee/tools/summaries";

/**
 * What the agent is told. The system prompt lives on the agent (created once); bump the version when it
 * changes so a new agent is created (the version is part of the setup fingerprint).
 * The step marker `[step:<stepId>]` is how the Execution card knows which step is running.
 */
export const AGENT_SYSTEM_PROMPT_VERSION = "2026-12-01.2";

export const STEP_MARKER = /\[step:([A-Za-z0-9_.-]+)\]/g;

/**
 * The result line that ends the agent's final message (the L4 completion contract, lib/steps/run-completion.ts):
 * `[result:done]` only when every step was carried out, `[result:incomplete]` otherwise. A final message without
 * one — cut off, or a turn that ends with a question — is not a completed run.
 */
export const RESULT_DONE = "[result:done]";
export const RESULT_INCOMPLETE = "[result:incomplete]";

export const AGENT_SYSTEM_PROMPT = [
  "あなたは freee（人事労務・会計）を操作する実行エージェントです。",
  "ユーザーが承認した実行ステップを、指定された順番どおりに freee MCP ツールで実行します。",
  "ルール:",
  "- 使ってよいのは、このセッションで有効になっている freee ツールだけです。ステップにない書き込みはしないでください。",
  "- 書き込みのステップは、承認された入力をそのまま使って 1 回だけ呼び出してください。値を変えたり補ったりした書き込みは freee MCP サーバーが拒否します。",
  "- company_id は指定しないでください。事業所は常にワークスペースが接続した事業所です。",
  "- 各ステップを始める直前に、そのステップ ID を `[step:<ステップID>]` の形式で 1 行だけ書いてください。",
  "- 「agent_decide」のステップでは、そのステップに挙げられた読み取り専用のツール（と、freee_api_get ならそのパス）だけで情報を集めて判断してください。",
  "- 書き込みの結果が不明というエラーが返ったら、同じ書き込みを繰り返さず、そのステップを未完了として報告してください。",
  "- ツールがエラーを返したら、入力を見直して 1 回だけやり直すか、そのステップを飛ばして理由を記録してください。",
  "- 全ステップが終わったら、何を実行し、何が成功し、何が失敗したかを日本語で簡潔にまとめて最後のメッセージにしてください。",
  `- 最後のメッセージの最終行には、すべてのステップを実行できたときだけ \`${RESULT_DONE}\`、1 つでも実行できなかったときは \`${RESULT_INCOMPLETE}\` と書いてください。`,
  "- ユーザーに質問して返事を待つことはできません。情報が足りないステップは実行せず、理由を書いて未完了として報告してください。",
].join("\n");

/**
 * The task sent as the session's first user.message: the approved steps still to do, in order. On a rerun the
 * write steps an earlier run completed (the MCP server's ledger) are left out and named, so they are not redone.
 */
export function buildTaskMessage(steps: readonly ProcessStep[], done: readonly string[] = []): string {
  const ordered = [...steps].sort((a, b) => a.order - b.order);
  const lines = ordered.map((step, index) => {
    const tool = step.tool === AGENT_DECIDE ? `agent_decide（読み取りで判断: ${scopeText(step)}）` : effectOfStep(step) === "write" ? `${step.tool}（書き込み）` : step.tool;
    return `${index + 1}. [step:${step.stepId}] ツール: ${tool}\n   入力: ${JSON.stringify(step.toolInput)}`;
  });
  const earlier = done.length === 0 ? [] : ["", `ステップ ${done.join(", ")} は前回の実行で freee への書き込みが完了しているため、このリストにはありません。実行しないでください。`];
  return [
    done.length === 0 ? `承認済みの実行ステップ（全 ${ordered.length} 件）を、次の順番で実行してください。` : `承認済みの実行ステップのうち、まだ完了していない ${ordered.length} 件を、次の順番で実行してください。`,
    ...earlier,
    "",
    ...lines,
    "",
    `各ステップの開始時に [step:<ステップID>] と書き、最後に結果の要約を日本語で書き、最終行に ${RESULT_DONE} または ${RESULT_INCOMPLETE} と書いてください。要約はそのまま利用者に表示されます。ステップは上の番号（1. 2. …）で示し、ツール名・ステップ ID・JSON は書かないでください。`,
  ].join("\n");
}

/** The read tools (and free-form GET paths) an agent_decide step may use, as the MCP server enforces them. */
function scopeText(step: ProcessStep): string {
  const tools = step.readScope?.tools ?? [];
  if (tools.length === 0) return "使えるツールなし";
  const paths = step.readScope?.pathPrefixes ?? [];
  return paths.length === 0 ? tools.join(", ") : `${tools.join(", ")}; パス ${paths.join(", ")}`;
}
