import * as z from "../core/zod";
import { SlackThreadSchema, taskIdFor, type Task } from "../core/domain/records";
import { RecordNotFoundError, StateConflictError, IllegalTransitionError, TransientError } from "../core/errors/taxonomy";
import { failureMessageFor } from "../core/messages/ja";
import { logLayerError } from "../core/observability/logger";
import type { CardSubject } from "../core/domain/card-refresher";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { confirmAllAudits } from "../store/pending-audit";
import { CaughtErrorSchema, errorFromCatch, nowIso, refreshWithTaskCard } from "./common";

export const PipelineFailureInputSchema = z.object({
  layer: z.enum(["L1", "L2", "L3", "L4"]),
  thread: SlackThreadSchema,
  /** Absent when the task could not even be created. */
  taskId: z.optional(z.string().check(z.minLength(1))),
  kind: z.optional(z.enum(["prompt", "process"])),
  version: z.optional(z.int().check(z.positive())),
  error: CaughtErrorSchema,
});
export type PipelineFailureInput = z.infer<typeof PipelineFailureInputSchema>;

const CARD_OF_LAYER: Record<PipelineFailureInput["layer"], CardSubject> = {
  L1: { kind: "task" },
  L2: { kind: "prompt" },
  L3: { kind: "process" },
  // StartRun's: the decided Process card, which the run's first step would have refreshed (and the Task card).
  L4: { kind: "process" },
};

/**
 * TaskPipeline's one failure path (docs/architecture.md, error table): the version and the task become `failed` with the error
 * name, the `error.<layer>` audit entry is written, and the card shows the layer's message (docs/architecture.md, messages).
 */
export async function recordPipelineFailureStep(deps: PipelineDeps, input: PipelineFailureInput): Promise<{ layer: string; errorName: string }> {
  const error = errorFromCatch(input.error);
  const errorName = input.error.Error;
  const taskId = input.taskId ?? taskIdFor(input.thread);
  const task = await deps.store.getTask(taskId);
  if (task === undefined) {
    // The task item was never created: the audit entry goes under the workspace, and with no card to update
    // the user gets the layer's message as a plain reply in the thread (always give feedback).
    await deps.audit.recordError({ teamId: input.thread.teamId, layer: input.layer, subject: `pipeline#${taskId}`, actor: PIPELINE_ACTOR, error, details: { taskId } });
    deps.metrics.failure(input.layer, errorName);
    try {
      await deps.cards.notifyThread(input.thread, failureMessageFor(input.layer, errorName));
    } catch (err) {
      if (err instanceof TransientError) throw err;
      logLayerError(deps.log, "slack", err, { action: "notify thread" });
    }
    return { layer: input.layer, errorName };
  }
  if (input.kind !== undefined && input.version !== undefined) {
    await failVersion(deps, task, input.kind, input.version, errorName);
  }
  // StartRun may have claimed Execution N (task `executing`, execution `pending`) before StartExecution failed:
  // that run never started, so it is failed too and a rerun stays possible.
  if (input.layer === "L4" && task.status === "executing" && task.executionCount > 0) {
    const execution = await deps.store.getExecution(task.taskId, task.executionCount);
    if (execution?.status === "pending") {
      await deps.store.transitionExecution(task.taskId, execution.executionNo, "failed", {
        from: ["pending"],
        set: { errorName, errorMessage: error.message.slice(0, 500), endedAt: nowIso(deps) },
      });
    }
  }
  const { record: failedTask } = await settle(
    deps.store.transitionTask(task.taskId, "failed", {
      from: input.layer === "L4" ? ["process_review", "executing"] : ["analyzing", "prompt_review", "process_review"],
      set: { failure: { layer: input.layer, errorName, at: nowIso(deps) } },
    }),
    task,
  );
  await deps.audit.recordError({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    layer: input.layer,
    subject: input.kind !== undefined && input.version !== undefined ? `${input.kind}#${input.version}` : "task",
    actor: PIPELINE_ACTOR,
    error,
  });
  // A decision (or run start) whose resumed step died before it wrote the promised audit entry: written now.
  await confirmAllAudits(deps.audit, { teamId: task.thread.teamId, taskId: task.taskId }, await deps.store.loadHistory(task.taskId, { cardsOnly: true }));
  deps.metrics.failure(input.layer, errorName);
  if (failedTask.status === "failed" && task.status !== "failed") deps.metrics.taskEnded("failed");
  await refreshWithTaskCard(deps, failedTask, CARD_OF_LAYER[input.layer]);
  return { layer: input.layer, errorName };
}

async function failVersion(deps: PipelineDeps, task: Task, kind: "prompt" | "process", version: number, errorName: string): Promise<void> {
  try {
    await deps.store.transitionVersion(kind, task.taskId, version, "failed", {
      from: ["generating", "pending_approval"],
      set: { errorName },
      remove: ["taskToken"],
    });
  } catch (err) {
    // The version was never created (its createVersion is what failed): nothing to mark.
    if (err instanceof RecordNotFoundError) return;
    // Already decided (a step after the decision failed, e.g. HandleRejection): the decision stands as it is.
    if (err instanceof StateConflictError && !(err instanceof IllegalTransitionError)) return;
    throw err;
  }
}

/** A status another writer already moved on (e.g. the task was closed meanwhile) is left as it is. */
async function settle(write: Promise<{ record: Task }>, current: Task): Promise<{ record: Task }> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof StateConflictError && !(err instanceof IllegalTransitionError)) return { record: current };
    throw err;
  }
}
