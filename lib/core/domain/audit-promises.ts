import type { CardState } from "./card-refresher";
import type { Decision, Execution, PendingAudit, VersionKind } from "./records";

/**
 * No effect without its audit (docs/CONTRACTS.md). Each user action's audit entry is built
 * here once, so the click that promises it, the step that resumes and every repairer write the same entry under
 * the same key (`action#subject`): written twice, stored once.
 */
export function decisionAudit(kind: VersionKind, version: number, decision: Pick<Decision, "decision" | "actorId" | "reason" | "via" | "decidedAt" | "rule" | "earlierApprovals">): PendingAudit {
  return {
    action: `${kind}.${decision.decision}`,
    subject: `${kind}#${version}`,
    actor: decision.actorId,
    layer: kind === "prompt" ? "L2" : "L3",
    details: { version, ...(decision.reason === undefined ? {} : { reason: decision.reason }), ...(decision.via === undefined ? {} : { via: decision.via }),
      ...(decision.rule === undefined ? {} : { rule: decision.rule }),
      ...(decision.earlierApprovals === undefined ? {} : { earlierApprovals: decision.earlierApprovals }),
    },
    at: decision.decidedAt,
  };
}

export function cancelAudit(executionNo: number, actorId: string, at: string): PendingAudit {
  return { action: "execution.cancelled", subject: `execution#${executionNo}`, actor: actorId, layer: "L4", details: { executionNo }, at };
}

export function startAudit(executionNo: number, processVersion: number, actorId: string, at: string): PendingAudit {
  return {
    action: "execution.started",
    subject: `execution#${executionNo}`,
    actor: actorId,
    layer: "L4",
    details: { executionNo, processVersion, rerun: executionNo > 1 },
    at,
  };
}

/** Every promise the task's records hold (decisions, run starts, cancels). */
export function pendingAuditsOf(state: Pick<CardState, "prompts" | "processes" | "executions">): PendingAudit[] {
  const fromExecution = (e: Execution) => [e.startAudit, e.cancelAudit];
  return [...state.prompts, ...state.processes]
    .map((v) => v.decisionAudit)
    .concat(state.executions.flatMap(fromExecution))
    .filter((p): p is PendingAudit => p !== undefined);
}
