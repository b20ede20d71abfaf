import type { Decision, ProcessVersion } from "../core/domain/records";
import { READS_AFTER_PROMPT_RULE, snapshotRule, type ApprovalRule } from "../core/domain/approval-policy";
import type { ApprovalOutcome } from "./machines/contracts";
import { planFacts, planWarnings } from "./approval-facts";
import type { PipelineDeps } from "./ports";

/**
 * A plan that only reads, judged when its preview is stored (docs/architecture.md, who may approve): the approval
 * policy is snapshotted then, and when it lets every domain the plan reads run on the 実行方針 approval
 * (default: accounting and invoices yes, HR personal data no), the Process is approved by that approval — the
 * 実行方針's approver, the rule named — and its card is information, not a second gate. Only a first plan after
 * the 実行方針 was approved: a plan L3 regenerated after its Process was rejected waits for a person, and so does
 * one no view can show whole (nothing runs that a person could not see). A plan that writes is judged when its
 * card asks (AwaitApproval), where its channel decides what the card shows.
 */
export async function readOnlyJudgement(
  deps: Pick<PipelineDeps, "settings" | "clock">,
  teamId: string,
  record: ProcessVersion,
  promptApproval: ApprovalOutcome | undefined,
): Promise<{ approvalRule?: ApprovalRule; decision?: Decision }> {
  const facts = planFacts(record, planWarnings(record));
  if (facts.writeDomains.length > 0) return {};
  const at = deps.clock().toISOString();
  const rule = snapshotRule((await deps.settings.get(teamId)).approvalPolicy, facts, at);
  const seen = record.preview?.status === "ready" && (record.approvableVia ?? []).length > 0;
  const afterPrompt = promptApproval?.decision === "approved" && record.regeneratedFor === undefined;
  if (!rule.autoApproved || !seen || !afterPrompt) return { approvalRule: { ...rule, autoApproved: false } };
  return { approvalRule: rule, decision: { decision: "approved", actorId: promptApproval.actorId, rule: READS_AFTER_PROMPT_RULE, decidedAt: at } };
}

/** What TaskPipeline's StartRun gets for a Process the policy approved with its 実行方針 (else the click's). */
export function readOnlyOutcome(record: ProcessVersion): ApprovalOutcome | undefined {
  const d = record.decision;
  if (record.status !== "approved" || d === undefined || d.rule !== READS_AFTER_PROMPT_RULE) return undefined;
  return { decision: "approved", actorId: d.actorId, rule: d.rule };
}
