import type { CardState } from "../core/domain/card-refresher";
import { pendingAuditsOf } from "../core/domain/audit-promises";
import type { PendingAudit } from "../core/domain/records";
import type { AuditLog } from "./audit-log";

/** Write one promised entry (the confirmation); `applied` false when it was already there. */
export async function confirmAudit(audit: AuditLog, owner: { teamId: string; taskId: string }, pending: PendingAudit): Promise<boolean> {
  const { applied } = await audit.record({ teamId: owner.teamId, taskId: owner.taskId, ...pending });
  return applied;
}

/**
 * The repair: write every promised entry of a task (a failure path, the reconciler). Returns the ones that were
 * missing, i.e. whose confirmation had been lost.
 */
export async function confirmAllAudits(audit: AuditLog, owner: { teamId: string; taskId: string }, state: Pick<CardState, "prompts" | "processes" | "executions">): Promise<string[]> {
  const repaired: string[] = [];
  for (const pending of pendingAuditsOf(state)) {
    if (await confirmAudit(audit, owner, pending)) repaired.push(`${pending.action}#${pending.subject}`);
  }
  return repaired;
}
