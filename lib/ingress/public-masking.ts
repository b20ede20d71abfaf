import type { ProcessVersion, Task } from "../core/domain/records";
import { PrivacyTexts, WARNING_KIND_WORDS } from "../core/messages/policy";
import { BLOCKED_MARK, planSummary, PlanMessages, WARNING_MARK } from "../preview/plan";
import { ActionIds, actions, context, escapeMrkdwn, section, type ButtonSpec, type Card } from "./cards/blocks";
import { companyLine } from "./cards/process-card";

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
  const dropped = (record.preview?.dropped ?? []).map((d) => `${d.order}. ${d.title}（${[...new Set(d.rows.map((r) => r.target))].join("、")}）`);
  return [
    context(`${planSummary(record)}。承認すると、この内容だけが実行されます。${companyLine(record)}`),
    ...maskedChangeBlocks(record),
    ...(dropped.length === 0 ? [] : [section(escapeMrkdwn(PrivacyTexts.maskedDropped(dropped)))]),
    context(PrivacyTexts.maskedNote),
  ];
}

/**
 * Each write step's change by number, whom and what, with its warnings' kinds (their words quote amounts): the
 * Execution card says the same after the run, with each row's outcome.
 */
function maskedChangeBlocks(record: ProcessVersion): Card["blocks"] {
  const warnings = record.preview?.warnings ?? [];
  return (record.preview?.steps ?? []).map((step) => {
    const order = record.steps?.find((s) => s.stepId === step.stepId)?.order;
    const names = step.resolved.length > 0 ? step.resolved.map((r) => r.label) : (step.rows ?? []).map((r) => r.target);
    const who = [...new Set(names)].join("・");
    const lines = [escapeMrkdwn(PrivacyTexts.maskedChange(`${order === undefined ? "" : `${order}. `}${who === "" ? "" : `${who} `}${step.title}`))];
    const kinds = [...new Set(warnings.filter((w) => w.stepId === step.stepId && w.kind !== "no_op").map((w) => WARNING_KIND_WORDS[w.kind]))];
    if (kinds.length > 0) lines.push(`${WARNING_MARK} ${escapeMrkdwn(PrivacyTexts.maskedWarnings(kinds))}`);
    return section(lines.join("\n"));
  });
}

/** While it waits: the private review (which approves) and [却下]; no [承認] on the public card. */
export function maskedApprovalBlocks(task: Task, record: ProcessVersion): Card["blocks"] {
  const ref = { taskId: task.taskId, kind: "process" as const, version: record.version };
  const reject: ButtonSpec = { actionId: ActionIds.reject, text: "却下", style: "danger", value: ref };
  const approvable = record.preview?.status === "ready" && (record.approvableVia ?? []).includes("full_plan");
  return [
    ...notApprovable(record),
    section(`*承認待ち (v${record.version})*${approvable ? "" : " — 却下のみできます"}`),
    actions(`process_approval_${record.version}`, approvable ? [{ actionId: ActionIds.reviewPlan, text: "全体を確認して承認", style: "primary", value: ref }, reject] : [reject]),
  ];
}

/** Why only 却下 is offered: which steps by the number the card shows (the problems' own words may quote amounts). */
function notApprovable(record: ProcessVersion): Card["blocks"] {
  const preview = record.preview;
  if (preview?.status === "no_changes") return [section(`${BLOCKED_MARK} ${escapeMrkdwn(PlanMessages.noChanges)}`)];
  if (preview?.status !== "blocked") return [];
  const orders = preview.steps.filter((s) => s.problems.length > 0).map((s) => record.steps?.find((x) => x.stepId === s.stepId)?.order).filter((n) => n !== undefined);
  return [section(`${BLOCKED_MARK} ${escapeMrkdwn(PlanMessages.blocked)}${orders.length === 0 ? "" : `（ステップ ${[...new Set(orders)].join(", ")}）`}`)];
}
