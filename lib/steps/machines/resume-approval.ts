import type { Logger } from "@aws-lambda-powertools/logger";
import { SendTaskSuccessCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { AuditLog } from "../../store/audit-log";
import type { VersionKind } from "../../core/domain/records";
import { classifyAwsError } from "../../core/errors/classify";
import { registerSecret } from "../../core/redaction/secret-registry";
import type { TaskStore } from "../../store/task-store";
import type { ApprovalOutcome } from "./contracts";

export interface ResumeApprovalDeps {
  store: TaskStore;
  sfn: Pick<SFNClient, "send">;
  audit: AuditLog;
  log: Logger;
}

/** A decision already written (`pending_approval → approved|rejected`), with the token read from the old item. */
export interface DecidedApproval {
  taskId: string;
  teamId: string;
  kind: VersionKind;
  version: number;
  /** From the version item the decision replaced; the wait state stores it before the card shows buttons. */
  taskToken: string | undefined;
  outcome: ApprovalOutcome;
  /** The decision's own timestamp: the reopen applies only to this decision, never to a later one. */
  decidedAt: string;
}

/** Step Functions answers these when the wait is already over (expired, or the token was used). */
const WAIT_GONE = new Set(["TaskTimedOut", "TaskDoesNotExist", "InvalidToken"]);

/**
 * Resume the waiting approval state with the decision (SendTaskSuccess). When Step Functions did not hear it,
 * the decision is undone (the version is pending again with its token) and audited, so the user's next click
 * resumes the pipeline instead of meeting "already decided" while it waits for days; the error is rethrown for
 * the click to answer with. A wait that already ended (timeout) is not an error: the pipeline's Catch closes the
 * task and shows it; "wait_gone" tells the caller no step will run to audit the decision.
 */
export async function resumeApproval(deps: ResumeApprovalDeps, approval: DecidedApproval): Promise<"resumed" | "wait_gone"> {
  const { taskId, teamId, kind, version, taskToken, outcome, decidedAt } = approval;
  const task = { taskId, thread: { teamId } };
  const subject = `${kind}#${version}`;
  if (taskToken === undefined) {
    // A pending version without a token is a bug upstream: nothing here can resume the pipeline.
    deps.log.error("pending version had no task token; the pipeline cannot be resumed", { taskId: task.taskId, subject });
    return "wait_gone";
  }
  // The redactor removes it from whatever this click logs or audits.
  registerSecret(taskToken);
  try {
    await deps.sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(outcome) }));
  } catch (err) {
    if (err instanceof Error && WAIT_GONE.has(err.name)) {
      deps.log.warn("approval wait had already ended", { taskId: task.taskId, subject, error_type: err.name });
      return "wait_gone";
    }
    const classified = classifyAwsError(err, "SendTaskSuccess") ?? err;
    await deps.store.reopenApproval(kind, task.taskId, version, { taskToken, decidedAt });
    await deps.audit.recordError({
      teamId: task.thread.teamId,
      taskId: task.taskId,
      layer: "ingress",
      subject: `${subject}#resume#${decidedAt}`,
      actor: outcome.actorId,
      error: classified,
      details: { decision: outcome.decision, reopened: true },
    });
    throw classified;
  }
  return "resumed";
}
