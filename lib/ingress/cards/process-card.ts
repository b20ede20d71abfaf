import type { PreviewWarning } from "../../core/domain/preview";
import type { ProcessVersion, Task } from "../../core/domain/records";
import { ActionIds, actions, context, escapeMrkdwn, inlineMrkdwn, section, wholeSection, type ButtonSpec, type Card, type ConfirmSpec } from "./blocks";
import { FreeeCompanyChangedMessages } from "../../core/messages/ja";
import { slackLength } from "../../core/messages/mrkdwn";
import { BLOCKED_MARK, planLayout, planSummary, PlanMessages, WARNING_MARK, type PlanSection } from "../../preview/plan";
import { rowText } from "../../preview/rows";

/**
 * The Process card's content: the plan in words (lib/preview/plan.ts) — each write as rows of the change table
 * with its warnings, each step with its 「入力 JSON」 button — the steps the preview took out because they change
 * nothing, and — while it awaits approval — the buttons the plan allows: [承認] when the card shows all of it
 * (with Slack's confirm dialog repeating the warnings), [全文を確認して承認] when only a modal can, [却下] only
 * when it cannot be approved as it is.
 */

/** Sections of a plan shown on a card that cannot hold it (the rest is in the full-plan modal). */
const OVERFLOW_SHOWN = 42;
/** Slack's limit for a confirm dialog's text. */
const CONFIRM_TEXT_MAX = 300;

export const ProcessCardTexts = {
  warningCount: (n: number) => `${WARNING_MARK} 確認が必要な点が ${n} 件あります（各ステップと、承認の確認画面に表示します）。`,
  droppedHead: "*プランから外したステップ*（freee の現在の値と同じで、何も変わらないため実行しません）",
  confirmTitle: "警告を確認してください",
  confirmLead: "次の点を確認してから承認してください。",
  confirmMore: (n: number) => `ほか ${n} 件はカードに表示しています。`,
  confirmApprove: "承認する",
  confirmDeny: "戻る",
} as const;

export function processContentBlocks(task: Task, record: ProcessVersion): Card["blocks"] {
  if (record.steps === undefined) return [];
  const warnings = record.preview?.warnings ?? [];
  const count = warnings.filter((w) => w.kind !== "no_op").length;
  const blocks: Card["blocks"] = [context(`${planSummary(record)}。承認すると、この内容だけが実行されます。${count > 0 ? `\n${ProcessCardTexts.warningCount(count)}` : ""}${companyLine(record)}`)];
  const dropped = droppedBlocks(record);
  if (record.preview?.status === "no_changes") return [...blocks, ...dropped];
  const layout = planLayout(record);
  if (layout.kind === "too_large") return [...blocks, section(`${BLOCKED_MARK} ${PlanMessages.tooLarge}`), ...dropped];
  const shown = layout.kind === "card" ? layout.sections : layout.sections.slice(0, OVERFLOW_SHOWN);
  blocks.push(...shown.map((s) => planSection(task.taskId, record.version, s)));
  if (layout.kind === "modal") {
    const rest = layout.sections.length - shown.length;
    const note = rest > 0 ? `ここまでは一部です（残り ${rest} セクション）。` : "";
    blocks.push(section(`📄 ${note}このプランはカードに収まらないため、全文は「全文を確認して承認」で確認できます。`));
  }
  return [...blocks, ...dropped];
}

/** The write steps taken out of the plan, each with why: what the approver did not need to approve. */
function droppedBlocks(record: ProcessVersion): Card["blocks"] {
  const dropped = record.preview?.dropped ?? [];
  if (dropped.length === 0) return [];
  const notes = (record.preview?.warnings ?? []).filter((w) => w.kind === "no_op");
  const lines = dropped.map((d) => {
    const note = notes.find((w) => w.stepId === d.stepId);
    return note === undefined ? `${d.order}. ${inlineMrkdwn(d.title)}: ${d.rows.map((r) => inlineMrkdwn(rowText(r, "read"))).join("、")}` : `${WARNING_MARK} ${inlineMrkdwn(note.message)}`;
  });
  return [section([ProcessCardTexts.droppedHead, ...lines].join("\n"))];
}

/** The company the plan was previewed against, in the summary's block (the card's block budget is the steps'). */
export function companyLine(record: ProcessVersion): string {
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

/**
 * The approve button's confirm dialog: every warning of the plan again, one a line, as many as Slack's 300
 * characters hold (the rest counted). None when the plan has no warnings.
 */
export function approvalConfirm(warnings: readonly PreviewWarning[]): ConfirmSpec | undefined {
  if (warnings.length === 0) return undefined;
  const lines: string[] = [ProcessCardTexts.confirmLead];
  for (const [i, w] of warnings.entries()) {
    const line = `${WARNING_MARK} ${w.short}`;
    const rest = warnings.length - i - 1;
    const tail = rest > 0 ? `\n${ProcessCardTexts.confirmMore(rest)}` : "";
    if (slackLength([...lines, line].join("\n") + tail) > CONFIRM_TEXT_MAX) {
      lines.push(ProcessCardTexts.confirmMore(warnings.length - i));
      break;
    }
    lines.push(line);
  }
  return { title: ProcessCardTexts.confirmTitle, text: lines.join("\n"), confirm: ProcessCardTexts.confirmApprove, deny: ProcessCardTexts.confirmDeny };
}

/** Status line and buttons of a Process version awaiting approval. */
export function processApprovalBlocks(task: Task, record: ProcessVersion): Card["blocks"] {
  const ref = { taskId: task.taskId, kind: "process" as const, version: record.version };
  const reject: ButtonSpec = { actionId: ActionIds.reject, text: "却下", style: "danger", value: ref };
  const v = `v${record.version}`;
  const blocks: Card["blocks"] = [];
  if (record.preview === undefined) {
    blocks.push(section(`${BLOCKED_MARK} ${PlanMessages.notPreviewed}`), section(`*承認待ち (${v})*`), actions(`process_approval_${record.version}`, [reject]));
    return blocks;
  }
  if (record.preview.status === "blocked" || record.preview.status === "no_changes") {
    // Which steps, by the number the card shows them under (the step ids are internal).
    const problems = record.preview.steps.filter((s) => s.problems.length > 0).map((s) => record.steps?.find((x) => x.stepId === s.stepId)?.order);
    const where = problems.length === 0 ? "" : `（ステップ ${problems.filter((n) => n !== undefined).join(", ")}）`;
    const message = record.preview.status === "blocked" ? `${escapeMrkdwn(PlanMessages.blocked)}${where}` : escapeMrkdwn(PlanMessages.noChanges);
    blocks.push(section(`${BLOCKED_MARK} ${message}`));
    blocks.push(section(`*承認待ち (${v})* — 却下のみできます`), actions(`process_approval_${record.version}`, [reject]));
    return blocks;
  }
  const layout = planLayout(record);
  blocks.push(section(`*承認待ち (${v})*`));
  const confirm = approvalConfirm(record.preview.warnings ?? []);
  switch (layout.kind) {
    case "card":
      blocks.push(actions(`process_approval_${record.version}`, [{ actionId: ActionIds.approve, text: "承認", style: "primary", value: ref, ...(confirm === undefined ? {} : { confirm }) }, reject]));
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
