import * as z from "../core/zod";
import { TaskPipelineInputSchema } from "./machines/contracts";
import { taskIdFor, type SlackFileRef, type Task, type TaskSpec } from "../core/domain/records";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { heldState, refreshCard } from "./common";
import { requireUsableFreee } from "./freee-first";

export const CreateTaskInputSchema = z.object({
  ...TaskPipelineInputSchema.shape,
  /** The pipeline's whole input: where the fields an older state machine does not pass by name arrive. */
  request: z.optional(z.object({ attachments: TaskPipelineInputSchema.shape.attachments })),
  executionName: z.string().check(z.minLength(1)),
});
export type CreateTaskInput = z.infer<typeof CreateTaskInputSchema>;

/**
 * First state of TaskPipeline: the Task item (conditional create, the second dedupe guard) and its card. The
 * attachments, which never change, go to the state (`$.task`) for the steps that need no more of the task.
 */
export async function createTaskStep(deps: PipelineDeps, input: CreateTaskInput): Promise<{ taskId: string; attachments: SlackFileRef[] }> {
  const attachments = input.attachments ?? input.request?.attachments;
  const taskId = taskIdFor(input.thread);
  // The task item and its `task.created` entry in one transaction (a redelivery finds both, or repairs the entry).
  const { record: task } = await deps.audit.recordWith(
    {
      teamId: input.thread.teamId,
      taskId,
      action: "task.created",
      subject: "task",
      actor: input.requesterId,
      layer: "L1",
      details: { pipelineExecutionName: input.executionName, ...(attachments === undefined ? {} : { attachments: attachments.length }) },
    },
    (entry) =>
      deps.store.createTask(
        {
          thread: input.thread,
          requesterId: input.requesterId,
          requestText: input.requestText,
          ...(attachments === undefined ? {} : { attachments }),
          pipelineExecutionName: input.executionName,
        },
        entry,
      ),
  );
  await refreshCard(deps, task, { kind: "task" }, heldState(task));
  return { taskId: task.taskId, attachments: task.attachments ?? [] };
}

export const TaskRefSchema = z.object({ taskId: z.string().check(z.minLength(1)) });

/**
 * L1: the request → TaskSpec; task `analyzing → prompt_review`. A retry after the save does not ask the model again.
 * A workspace without a usable freee connection fails here before L1 (an AuthError: TaskPipeline's L1 failure path).
 * A message that asks for no work on freee (a greeting, a question) ends here: the task is `answered` with L1's
 * reply (one conditional write, so a retry finds it), the Task card becomes that reply, no plan is made.
 */
export async function analyzeTaskStep(deps: PipelineDeps, input: z.infer<typeof TaskRefSchema>): Promise<{ taskId: string; isRequest: boolean }> {
  let task = await deps.store.getTaskOrThrow(input.taskId);
  // freee first (lib/steps/freee-first.ts): without a usable connection no model is asked to plan.
  if (task.status === "analyzing" && task.spec === undefined) await requireUsableFreee(deps, task);
  let spec: TaskSpec | undefined;
  if (task.spec === undefined && task.status !== "answered") {
    const result = await deps.layers.analyzeTask({ task });
    if (result.kind === "not_a_request") {
      const answered = await deps.store.transitionTask(task.taskId, "answered", { from: ["analyzing"], set: { reply: result.reply } });
      task = answered.record;
      if (answered.applied) deps.metrics.taskEnded("answered");
    } else {
      spec = result.spec;
    }
  }
  if (task.status === "answered") {
    await deps.audit.record({
      teamId: task.thread.teamId,
      taskId: task.taskId,
      action: "task.answered",
      subject: "task",
      actor: PIPELINE_ACTOR,
      layer: "L1",
      details: { kind: "not_a_request", replyChars: task.reply?.length },
    });
    await refreshCard(deps, task, { kind: "task" }, heldState(task));
    return { taskId: task.taskId, isRequest: false };
  }
  const analyzedSpec = spec ?? task.spec;
  const analyzed = {
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: "task.analyzed",
    subject: "task",
    actor: PIPELINE_ACTOR,
    layer: "L1" as const,
    details: { title: analyzedSpec?.title, domain: analyzedSpec?.domain },
  };
  if (task.status === "analyzing") {
    // The spec, the status and the entry in one transaction: a retry finds all three, or none and asks the model
    // again. The task goes on as read above with the change applied (the Task card is drawn from it).
    const held = task;
    ({ record: task } = await deps.audit.recordWith(analyzed, (entry) =>
      deps.store.transitionTaskWithEntry(held, "prompt_review", { from: ["analyzing"], ...(spec === undefined ? {} : { set: { spec } }) }, entry),
    ));
  } else {
    if (spec !== undefined) task = await deps.store.updateTask(task.taskId, { spec });
    await deps.audit.record(analyzed);
  }
  await refreshCard(deps, task, { kind: "task" }, heldState(task));
  return { taskId: task.taskId, isRequest: true };
}
