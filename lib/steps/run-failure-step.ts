import * as z from "../core/zod";
import type { Execution } from "../core/domain/records";
import { IllegalTransitionError, StateConflictError } from "../core/errors/taxonomy";
import { ExecutionRunInputSchema } from "./machines/contracts";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { confirmAllAudits } from "../store/pending-audit";
import { CaughtErrorSchema, errorFromCatch, nowIso, refreshWithTaskCard } from "./common";
import { cancelOnFailurePath, interruptBestEffort, writesOrNone } from "./run-cancel";

/** The failed session's reason, as the poll stored it: for the error.L4 entry (the card reads the record). */
export function agentFailureDetails(execution: Execution): Record<string, unknown> {
  return execution.agentFailure === undefined ? {} : { agentFailureReason: execution.agentFailure.reason, agentFailure: execution.agentFailure.details ?? {} };
}

export const RunFailureInputSchema = z.object({
  ...ExecutionRunInputSchema.shape,
  sessionId: z.optional(z.string().check(z.minLength(1))),
  error: CaughtErrorSchema,
});
export type RunFailureInput = z.infer<typeof RunFailureInputSchema>;

/**
 * ExecutionRun's one failure path: the Execution becomes `timed_out` (RunTimeoutError) or `failed`, the task
 * `failed` (a rerun is possible), `error.L4` is audited and the card shows the message (docs/architecture.md, messages) with [再実行].
 */
export async function recordRunFailureStep(deps: PipelineDeps, input: RunFailureInput): Promise<{ status: Execution["status"]; errorName: string }> {
  const { taskId, executionNo } = input;
  const error = errorFromCatch(input.error);
  const errorName = input.error.Error;
  const task = await deps.store.getTaskOrThrow(taskId);
  let execution = await deps.store.getExecutionOrThrow(taskId, executionNo);
  const to = errorName === "RunTimeoutError" ? "timed_out" : "failed";
  if (execution.status === "pending" || execution.status === "running") {
    try {
      // `pending → timed_out` is no transition: a run that never started is `failed`.
      const target = execution.status === "pending" ? "failed" : to;
      const writes = (await writesOrNone(deps, task, execution))?.writes;
      ({ record: execution } = await deps.store.transitionExecution(taskId, executionNo, target, {
        from: [execution.status],
        set: { errorName, errorMessage: error.message.slice(0, 500), ...(writes === undefined ? {} : { writes }), endedAt: nowIso(deps) },
      }));
    } catch (err) {
      if (!(err instanceof StateConflictError) || err instanceof IllegalTransitionError) throw err;
      execution = await deps.store.getExecutionOrThrow(taskId, executionNo);
    }
    await interruptBestEffort(deps, input.sessionId ?? execution.sessionId);
  } else if (execution.status === "cancelled" && execution.cancelFinalizedAt === undefined) {
    // The poll could not get the interrupt through: once more here, else the reconciler (this machine fails).
    await cancelOnFailurePath(deps, task, execution, input.sessionId ?? execution.sessionId);
  }
  let current = task;
  if ((execution.status === "failed" || execution.status === "timed_out") && task.status === "executing") {
    ({ record: current } = await deps.store.transitionTask(taskId, "failed", {
      from: ["executing"],
      set: { failure: { layer: "L4", errorName, at: nowIso(deps) } },
    }));
    deps.metrics.failure("L4", errorName);
    deps.metrics.taskEnded("failed");
  }
  await deps.audit.recordError({
    teamId: task.thread.teamId,
    taskId,
    layer: "L4",
    subject: `execution#${executionNo}`,
    actor: PIPELINE_ACTOR,
    error,
    details: { executionStatus: execution.status, ...agentFailureDetails(execution) },
  });
  // The run's promised entries (its start, a cancel) whose confirmation a dying step may have lost.
  await confirmAllAudits(deps.audit, { teamId: task.thread.teamId, taskId }, { prompts: [], processes: [], executions: [execution] });
  await refreshWithTaskCard(deps, current, { kind: "execution", executionNo });
  return { status: execution.status, errorName };
}
