import type { ProcessVersion, Task } from "../core/domain/records";
import { PrivacyTexts } from "../core/messages/policy";
import { planSummary, PlanMessages } from "../preview/plan";
import { ActionIds, actions, context, escapeMrkdwn, section, type ButtonSpec, type Card } from "./cards/blocks";

/**
 * An HR write plan's Process card in a public channel (its snapshot says `maskAmounts`: lib/core/domain/approval-policy.ts):
 * each change by whom and what, without its amounts or inputs — 「山田 太郎 基本給の変更 — 金額は承認できる人にだけ
 * 表示されます」 — and approval only through the private full-plan modal (lib/ingress/plan-modal.ts), which shows
 * the whole change table to the approver alone. A private channel or a DM gets the full card.
 */
export function isMasked(record: ProcessVersion): boolean {
  return record.approvalRule?.maskAmounts === true;
}

export function maskedContentBlocks(record: ProcessVersion): Card["blocks"] {
  return [context(`${planSummary(record)}。承認すると、この内容だけが実行されます。`), ...maskedChangeBlocks(record), context(PrivacyTexts.maskedNote)];
}

/** Each write step's change by whom and what (the Execution card uses it too, after the run). */
export function maskedChangeBlocks(record: ProcessVersion): Card["blocks"] {
  return (record.preview?.steps ?? []).map((step) => {
    const who = [...new Set(step.resolved.map((r) => r.label))].join("・");
    return section(escapeMrkdwn(PrivacyTexts.maskedChange(`${who === "" ? "" : `${who} `}${step.title}`)));
  });
}

/** While it waits: the private review (which approves) and [却下]; no [承認] on the public card. */
export function maskedApprovalBlocks(task: Task, record: ProcessVersion): Card["blocks"] {
  const ref = { taskId: task.taskId, kind: "process" as const, version: record.version };
  const reject: ButtonSpec = { actionId: ActionIds.reject, text: "却下", style: "danger", value: ref };
  const approvable = record.preview?.status === "ready" && (record.approvableVia ?? []).includes("full_plan");
  // Why only 却下 is offered (the problems' own words may quote amounts: which steps, not what they say).
  const blocked = record.preview?.status === "blocked" ? [section(`:no_entry: ${escapeMrkdwn(PlanMessages.blocked)}（ステップ ${[...new Set(record.preview.steps.filter((s) => s.problems.length > 0).map((s) => s.stepId))].join(", ")}）`)] : [];
  return [
    ...blocked,
    section(`*承認待ち (v${record.version})*`),
    actions(`process_approval_${record.version}`, approvable ? [{ actionId: ActionIds.reviewPlan, text: "全体を確認して承認", style: "primary", value: ref }, reject] : [reject]),
  ];
}
