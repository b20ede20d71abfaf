import * as z from "../core/zod";
import type { Task } from "../core/domain/records";
import { TransientError } from "../core/errors/taxonomy";
import type { CardState, CardSubject } from "../core/domain/card-refresher";
import { redactString } from "../core/redaction/redact";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { confirmAudit } from "../store/pending-audit";
import { decisionAudit } from "../core/domain/audit-promises";

/** What a Catch block puts at its ResultPath: `{ Error, Cause }`. */
export const CaughtErrorSchema = z.object({ Error: z.string().check(z.minLength(1)), Cause: z.optional(z.unknown()) });
export type CaughtError = z.infer<typeof CaughtErrorSchema>;

/**
 * Rebuild the error a Catch block caught, for the audit log: the name is the taxonomy class the Lambda threw;
 * the message is Lambda's `errorMessage` when Cause is Lambda's JSON error envelope (on AWS), or Cause itself
 * (the local runner passes the message as is).
 */
export function errorFromCatch(caught: CaughtError): Error {
  // The message is stored on the record and shown in the audit trail: redacted, whatever the Lambda threw.
  const err = new Error(redactString(causeMessage(caught.Cause)));
  err.name = caught.Error;
  return err;
}

export function causeMessage(cause: unknown): string {
  if (typeof cause !== "string") return cause === undefined ? "(no cause given)" : JSON.stringify(cause);
  if (!cause.trimStart().startsWith("{")) return cause;
  let parsed: unknown;
  try {
    parsed = JSON.parse(cause);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // Not Lambda's JSON envelope after all: the raw text is the message (nothing is lost).
    return cause;
  }
  if (parsed !== null && typeof parsed === "object" && typeof (parsed as { errorMessage?: unknown }).errorMessage === "string") {
    return (parsed as { errorMessage: string }).errorMessage;
  }
  return cause;
}

/**
 * What a step needs of a task that never changes: its id and thread (the workspace, the channel). A step that
 * needs no more (the poll) takes it from the state machine's payload instead of reading the task.
 */
export type TaskRef = Pick<Task, "taskId" | "thread">;

/**
 * Refresh a card. Slack being down for a moment is transient (Step Functions retries the step, whose writes are
 * idempotent); any other Slack failure is logged and audited but does not fail the layer (docs/architecture.md, error table: notifying
 * the user is best effort, the DB state is the truth and the next refresh shows it).
 */
export async function refreshCard(deps: PipelineDeps, task: TaskRef, subject: CardSubject, known?: CardState): Promise<void> {
  try {
    await deps.cards.refresh(task.taskId, subject, known);
  } catch (err) {
    if (err instanceof TransientError) throw err;
    await deps.audit.recordError({
      teamId: task.thread.teamId,
      taskId: task.taskId,
      layer: "slack",
      subject: subject.kind === "execution" ? `card#execution#${subject.executionNo}` : `card#${subject.kind}`,
      actor: PIPELINE_ACTOR,
      error: err,
    });
  }
}

/** The task's status changed: refresh the subject's card and the Task card, whose status line shows it. */
export async function refreshWithTaskCard(deps: PipelineDeps, task: TaskRef, subject: CardSubject, known?: CardState): Promise<void> {
  await refreshCard(deps, task, subject, known);
  if (subject.kind !== "task") await refreshCard(deps, task, { kind: "task" }, known);
}

/**
 * What a step holds right after its own writes (ALL_NEW), as the card refresher's `known` state: the card is
 * rendered from it instead of reading the task's items again. Only the records the card shows are needed (the
 * Task card: the task; a version card: the task and its current version; an Execution card: the execution and
 * its Process version).
 */
export function heldState(task: Task, records: Partial<Omit<CardState, "task">> = {}): CardState {
  return { task, prompts: records.prompts ?? [], processes: records.processes ?? [], executions: records.executions ?? [] };
}

/**
 * A click's decision, audited by the step it resumed (the ingress acks after one write and SendTaskSuccess:
 * lib/ingress/actions/decide.ts). The entry has the key the ingress would have used, so a retry or the ingress's own
 * fallback writes it once; the decided card is refreshed here, not on the click's 3 s path.
 */
export async function auditDecision(
  deps: PipelineDeps,
  task: Pick<Task, "taskId"> & { thread: Pick<Task["thread"], "teamId"> },
  decided: { kind: "prompt" | "process"; version: number; decision: { decision: "approved" | "rejected"; actorId: string; reason?: string; via?: "card" | "full_plan"; rule?: string; earlierApprovals?: { actorId: string; rule: string; at: string }[]; decidedAt?: string } },
  refresh = true,
  known?: CardState,
): Promise<void> {
  const { kind, version, decision } = decided;
  // The entry the decision write promised (version.decisionAudit): same key, so it is stored once.
  await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId: task.taskId }, decisionAudit(kind, version, { ...decision, decidedAt: decision.decidedAt ?? nowIso(deps) }));
  if (refresh) await refreshCard(deps, task as Task, { kind }, known);
}

export function nowIso(deps: Pick<PipelineDeps, "clock">): string {
  return deps.clock().toISOString();
}
