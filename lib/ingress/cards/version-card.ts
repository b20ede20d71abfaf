import type { ProcessVersion, PromptVersion, Task, VersionKind } from "../../core/domain/records";
import type { CardLinks } from "./admin-link";
import { failureMessageFor, limitMessageFor } from "../../core/messages/ja";
import type { CardState as TaskHistory } from "../../core/domain/card-refresher";
import { ActionIds, actions, context, escapeMrkdwn, header, inlineMrkdwn, quote, section, truncate, user, wholeSection, type Card } from "./blocks";
import { chunk } from "../../preview/plan";
import { processApprovalBlocks, processContentBlocks } from "./process-card";
import { approvalStatusBlocks } from "../approval-status";
import { READS_AFTER_PROMPT_RULE } from "../../core/domain/approval-policy";
import { PolicyMessages } from "../../core/messages/policy";
import { isMasked, maskedApprovalBlocks, maskedContentBlocks } from "../public-masking";

const TITLE: Record<VersionKind, string> = { prompt: "実行方針", process: "実行ステップ" };
const LAYER: Record<VersionKind, "L2" | "L3"> = { prompt: "L2", process: "L3" };
export const APPROVAL_EXPIRED_TEXT = "承認期限が切れました。タスクを新しく作成してください。";

/** The Prompt or Process card: the current version in whatever state the table says. */
export function renderVersionCard(history: TaskHistory, kind: VersionKind, links: CardLinks = {}): Card {
  const { task } = history;
  const versions: (PromptVersion | ProcessVersion)[] = kind === "prompt" ? history.prompts : history.processes;
  const current = kind === "prompt" ? task.currentPromptVersion : task.currentProcessVersion;
  // The task's pointer moves to vN a moment before vN's record is written: until then the card keeps showing
  // v(N-1) (e.g. 却下 → 再生成中...), which is what is happening.
  const record = versions.find((v) => v.version === current) ?? versions.find((v) => v.version === current - 1);
  const title = TITLE[kind];
  const blocks: Card["blocks"] = [];
  if (record === undefined) {
    blocks.push(header(title), section("生成中..."));
    return { text: `${title}: 生成中...`, blocks };
  }
  const v = `v${record.version}`;
  blocks.push(header(`${title} ${v}`));
  let text: string;
  switch (record.status) {
    case "generating":
      if (record.regeneratedFor !== undefined) {
        blocks.push(section(`却下理由を反映して再生成中... (${v})\n${quote(record.regeneratedFor)}`));
        text = `${title} ${v}: 再生成中...`;
      } else {
        blocks.push(section(`生成中... (${v})`));
        text = `${title} ${v}: 生成中...`;
      }
      break;
    case "pending_approval":
      blocks.push(...contentBlocks(task, record));
      if (record.kind === "process") {
        blocks.push(...approvalStatusBlocks(record), ...(isMasked(record) ? maskedApprovalBlocks(task, record) : processApprovalBlocks(task, record)));
        text = `${title} ${v}: 承認待ち`;
        break;
      }
      blocks.push(section(`*承認待ち (${v})*`));
      blocks.push(
        actions(`${kind}_approval_${record.version}`, [
          { actionId: ActionIds.approve, text: "承認", style: "primary", value: { taskId: task.taskId, kind, version: record.version } },
          { actionId: ActionIds.reject, text: "却下", style: "danger", value: { taskId: task.taskId, kind, version: record.version } },
        ]),
      );
      text = `${title} ${v}: 承認待ち`;
      break;
    case "approved":
      blocks.push(...contentBlocks(task, record));
      if (record.kind === "process" && record.decision?.rule === READS_AFTER_PROMPT_RULE) {
        // Approved by the 実行方針 approval under the policy: this card informs, it asks nothing.
        blocks.push(section(`:information_source: *${PolicyMessages.readsAfterPrompt(record.decision.actorId)}*`), context(PolicyMessages.readsAfterPromptNote(record.approvalRule?.readDomains ?? [])));
      } else {
        blocks.push(section(`:white_check_mark: *承認済み (${v})*${record.decision ? ` — ${user(record.decision.actorId)}` : ""}`));
      }
      if (record.kind === "process") blocks.push(...approvalStatusBlocks(record));
      text = `${title} ${v}: 承認済み`;
      break;
    case "rejected": {
      blocks.push(...contentBlocks(task, record));
      const reason = record.decision?.reason;
      blocks.push(section(`:x: *却下 (${v})*${record.decision ? ` — ${user(record.decision.actorId)}` : ""}${reason ? `\n${quote(reason)}` : ""}`));
      if (task.status === "closed" && task.closedReason === "regeneration_limit") {
        // The version that hit the limit is 1 + the regenerations allowed.
        blocks.push(section(limitMessageFor("regenerations", record.version - 1)));
        text = limitMessageFor("regenerations", record.version - 1);
      } else {
        blocks.push(section("却下理由を反映して再生成中..."));
        text = `${title} ${v}: 却下 → 再生成中...`;
      }
      break;
    }
    case "failed":
      blocks.push(section(`:warning: ${failureMessageFor(LAYER[kind], record.errorName, links)}`));
      text = failureMessageFor(LAYER[kind], record.errorName, links);
      break;
    case "expired":
      blocks.push(...contentBlocks(task, record));
      blocks.push(section(`:hourglass: ${APPROVAL_EXPIRED_TEXT}`));
      text = `${title} ${v}: 承認期限切れ`;
      break;
  }
  if (record.regeneratedFor !== undefined && record.status !== "generating") {
    blocks.push(context(`前バージョンの却下理由: ${inlineMrkdwn(truncate(record.regeneratedFor, 300))}`));
  }
  return { text, blocks };
}

function contentBlocks(task: Task, record: PromptVersion | ProcessVersion): Card["blocks"] {
  if (record.kind === "prompt") {
    // The approver approves this text: long text continues in the next section, never cut.
    return record.text === undefined ? [] : chunk(escapeMrkdwn(record.text)).map((text) => wholeSection(text));
  }
  return isMasked(record) ? maskedContentBlocks(record) : processContentBlocks(task, record);
}
