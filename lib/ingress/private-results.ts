import type { PrivateResults } from "../core/domain/card-refresher";
import { PrivacyTexts } from "../core/messages/policy";
import { header, inlineMrkdwn, quotedMrkdwn, section, type Card } from "./cards/blocks";
import { tableBlocks } from "./cards/execution-steps";

/**
 * A run's results with HR personal data, as the requester's DM shows them: the summary and each table the thread's
 * card withholds (the same table rendering as the card's; a long one's CSV follows in the DM).
 */
export function renderPrivateResults(results: PrivateResults): Card {
  const title = `実行 #${results.executionNo} の結果`;
  const blocks: Card["blocks"] = [header(title), section(PrivacyTexts.dmIntro(inlineMrkdwn(results.taskTitle)))];
  if (results.summary !== undefined) blocks.push(section(quotedMrkdwn(results.summary)));
  const lines = results.tables.map((t) => ({ step: { stepId: t.stepId, order: t.order, tool: "", toolInput: {} }, state: "done" as const, table: t.table }));
  blocks.push(...tableBlocks(lines, new Set(results.tables.filter((t) => t.inCsv).map((t) => t.stepId)), "dm"));
  return { text: `${title}（${results.taskTitle}）`, blocks };
}
