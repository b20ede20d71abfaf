import type { ProcessVersion, Task } from "../../core/domain/records";
import { ActionIds, actions, context, escapeMrkdwn, section, wholeSection, type ButtonSpec, type Card } from "./blocks";
import { FreeeCompanyChangedMessages } from "../../core/messages/ja";
import { planLayout, planSummary, PlanMessages, type PlanSection } from "../../preview/plan";

/**
 * The Process card's content: the plan in words (lib/preview/plan.ts), each step with its
 * 「入力 JSON」 button, and — while it awaits approval — the buttons the plan allows: [承認] when the card shows
 * all of it, [全文を確認して承認] when only a modal can, [却下] only when it cannot be approved as it is.
 */

/** Sections of a plan shown on a card that cannot hold it (the rest is in the full-plan modal). */
const OVERFLOW_SHOWN = 43;

export function processContentBlocks(task: Task, record: ProcessVersion): Card["blocks"] {
  if (record.steps === undefined) return [];
  const layout = planLayout(record);
  const blocks: Card["blocks"] = [context(`${planSummary(record)}。承認すると、この内容だけが実行されます。${companyLine(record)}`)];
  if (layout.kind === "too_large") return [...blocks, section(`:no_entry: ${PlanMessages.tooLarge}`)];
  const shown = layout.kind === "card" ? layout.sections : layout.sections.slice(0, OVERFLOW_SHOWN);
  blocks.push(...shown.map((s) => planSection(task.taskId, record.version, s)));
  if (layout.kind === "modal") {
    const rest = layout.sections.length - shown.length;
    const note = rest > 0 ? `ここまでは一部です（残り ${rest} セクション）。` : "";
    blocks.push(section(`:page_facing_up: ${note}このプランはカードに収まらないため、全文は「全文を確認して承認」で確認できます。`));
  }
  return blocks;
}

/** The company the plan was previewed against, in the summary's block (the card's block budget is the steps'). */
function companyLine(record: ProcessVersion): string {
  const company = record.preview?.company;
  if (company === undefined) return "";
  // The approval is of this company's data; the run acts on it only (lib/mcp/tool-call.ts).
  const name = company.name ?? FreeeCompanyChangedMessages.unnamed(company.id);
  return `\n*${escapeMrkdwn(FreeeCompanyChangedMessages.target(name))}*　${escapeMrkdwn(FreeeCompanyChangedMessages.cardNote)}`;
}

export function planSection(taskId: string, version: number, s: PlanSection) {
  const button: ButtonSpec | undefined = s.button ? { actionId: ActionIds.showInput, text: "入力 JSON", value: { taskId, version, stepIds: s.stepIds } } : undefined;
  return wholeSection(s.text, button);
}

/** Status line and buttons of a Process version awaiting approval. */
export function processApprovalBlocks(task: Task, record: ProcessVersion): Card["blocks"] {
  const ref = { taskId: task.taskId, kind: "process" as const, version: record.version };
  const reject: ButtonSpec = { actionId: ActionIds.reject, text: "却下", style: "danger", value: ref };
  const v = `v${record.version}`;
  const blocks: Card["blocks"] = [];
  if (record.preview === undefined) {
    blocks.push(section(`:no_entry: ${PlanMessages.notPreviewed}`), section(`*承認待ち (${v})*`), actions(`process_approval_${record.version}`, [reject]));
    return blocks;
  }
  if (record.preview.status === "blocked") {
    const problems = record.preview.steps.flatMap((s) => s.problems.map(() => s.stepId));
    blocks.push(section(`:no_entry: ${escapeMrkdwn(PlanMessages.blocked)}（ステップ ${[...new Set(problems)].join(", ")}）`));
    blocks.push(section(`*承認待ち (${v})* — 却下のみできます`), actions(`process_approval_${record.version}`, [reject]));
    return blocks;
  }
  const layout = planLayout(record);
  blocks.push(section(`*承認待ち (${v})*`));
  switch (layout.kind) {
    case "card":
      blocks.push(actions(`process_approval_${record.version}`, [{ actionId: ActionIds.approve, text: "承認", style: "primary", value: ref }, reject]));
      break;
    case "modal":
      blocks.push(actions(`process_approval_${record.version}`, [{ actionId: ActionIds.reviewPlan, text: "全文を確認して承認", style: "primary", value: ref }, reject]));
      break;
    case "too_large":
      blocks.push(actions(`process_approval_${record.version}`, [reject]));
      break;
  }
  return blocks;
}
