import type { CardState as TaskHistory } from "../../core/domain/card-refresher";
import { failureMessageFor, limitMessageFor, NotARequestMessages } from "../../core/messages/ja";
import type { CardLinks } from "./admin-link";
import { context, escapeMrkdwn, header, inlineMrkdwn, quotedMrkdwn, section, user, type Card } from "./blocks";

const STATUS_LABEL: Record<TaskHistory["task"]["status"], string> = {
  analyzing: "解析中...",
  prompt_review: "実行方針のレビュー中",
  process_review: "実行ステップのレビュー中",
  executing: "実行中",
  completed: "完了",
  failed: "失敗",
  cancelled: "中止",
  closed: "終了",
  answered: "返信済み",
};

/** The Task card: what was asked, L1's reading of it, and where the task stands. */
export function renderTaskCard(history: TaskHistory, links: CardLinks = {}): Card {
  const { task } = history;
  if (task.status === "answered" && task.reply !== undefined) return renderReply(task.reply);
  const blocks: Card["blocks"] = [header("タスク")];
  blocks.push(section(`*依頼*\n${quotedMrkdwn(task.requestText)}`));
  if (task.spec !== undefined) {
    const lines = [`*タイトル*: ${inlineMrkdwn(task.spec.title)}`, `*目的*: ${inlineMrkdwn(task.spec.intent)}`];
    if (task.spec.missingInformation.length > 0) {
      lines.push(`*不足している情報*: ${task.spec.missingInformation.map(inlineMrkdwn).join("、")}`);
    }
    blocks.push(section(lines.join("\n")));
  }
  let statusText = `*状態*: ${STATUS_LABEL[task.status]}`;
  if (task.status === "failed" && task.failure !== undefined && task.failure.layer === "L1") {
    statusText = `*状態*: 失敗\n${failureMessageFor("L1", task.failure.errorName, links)}`;
  } else if (task.status === "closed" && task.closedReason === "regeneration_limit") {
    // Whichever review hit the limit sits at 1 + the regenerations allowed; the other cannot be beyond it.
    const regenerations = Math.max(task.currentPromptVersion, task.currentProcessVersion) - 1;
    statusText = `*状態*: 終了\n${limitMessageFor("regenerations", regenerations)}`;
  } else if (task.status === "closed" && task.closedReason === "approval_expired") {
    statusText = "*状態*: 終了\n承認期限が切れました。タスクを新しく作成してください。";
  }
  blocks.push(section(statusText));
  blocks.push(context(`依頼者: ${user(task.requesterId)}`));
  const text = task.spec === undefined ? `タスク: ${STATUS_LABEL[task.status]}` : `タスク「${task.spec.title}」: ${STATUS_LABEL[task.status]}`;
  return { text, blocks };
}

/** A message that asked for no work on freee: L1's short reply, and that no task was made (nothing to approve). */
function renderReply(reply: string): Card {
  return { text: escapeMrkdwn(reply), blocks: [section(escapeMrkdwn(reply)), context(NotARequestMessages.noTask)] };
}
