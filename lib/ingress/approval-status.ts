import type { ProcessVersion } from "../core/domain/records";
import { PolicyMessages } from "../core/messages/policy";
import { context, section, type Card } from "./cards/blocks";

/**
 * The Process card's approval lines under the approval policy (lib/core/domain/approval-policy.ts): who may
 * approve, who has, what is still needed, and that the plan is judged by the rules it was posted under. Nothing
 * for a version posted before the policy existed (it is decided as before).
 */
export function approvalStatusBlocks(record: ProcessVersion): Card["blocks"] {
  const rule = record.approvalRule;
  if (rule === undefined) return [];
  if (record.status === "approved") {
    const earlier = record.decision?.earlierApprovals ?? [];
    return earlier.length === 0 ? [] : [context(`承認者: ${[...earlier.map((a) => a.actorId), record.decision!.actorId].map((u) => `<@${u}>`).join(" ")}（別々の ${rule.required} 人）`)];
  }
  if (record.status !== "pending_approval") return [];
  return [section(`${PolicyMessages.whoMay(rule)}\n${PolicyMessages.progress(rule, record.approvedBy ?? [])}`), context(PolicyMessages.snapshot(rule))];
}
