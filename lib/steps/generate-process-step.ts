import * as z from "../core/zod";
import { decisionAudit } from "../core/domain/audit-promises";
import { SlackThreadSchema, type AuditEntry, type ProcessVersion, type PromptVersion, type Task } from "../core/domain/records";
import { RecordNotFoundError } from "../core/errors/taxonomy";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { validateSteps } from "./validate-steps";
import { auditDecision, CaughtErrorSchema, causeMessage, heldState, nowIso, refreshCard } from "./common";

export const GenerateProcessInputSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  process: z.object({
    version: z.int().check(z.positive()),
    basedOnPromptVersion: z.int().check(z.positive()),
    regeneratedFor: z.optional(z.string().check(z.minLength(1))),
    /** Set by the MalformedOutputError Catch: the retry carries the validation error into the prompt. */
    malformed: z.optional(CaughtErrorSchema),
  }),
  /** TaskPipeline's thread (it never changes): the Prompt approval's entry needs the workspace before any read. */
  thread: z.optional(SlackThreadSchema),
});
export type GenerateProcessInput = z.infer<typeof GenerateProcessInputSchema>;

/** L3: Process vN (steps validated before they are stored); the task moves to `process_review`. */
export async function generateProcessStep(deps: PipelineDeps, input: GenerateProcessInput): Promise<{ taskId: string; version: number }> {
  const { taskId } = input;
  const { version, basedOnPromptVersion, regeneratedFor, malformed } = input.process;
  // The approved Prompt and the task in one read: the Process version's pointer then rides its creation.
  const { task: read, version: based } = await deps.store.readSnapshot(taskId, { version: { kind: "prompt", version: basedOnPromptVersion } });
  const prompt = based as PromptVersion | undefined;
  if (prompt === undefined) throw new RecordNotFoundError(`prompt v${basedOnPromptVersion} of task ${taskId} not found`, { details: { taskId, kind: "prompt", version: basedOnPromptVersion } });
  if (prompt.text === undefined) throw new RecordNotFoundError(`prompt v${basedOnPromptVersion} has no text`, { details: { taskId } });
  // The Prompt's approval (the entry its decision write promised) is confirmed by the first Process version's
  // creation, in the same transaction; a retry that finds the version writes a missing entry on its own.
  const decision = version === 1 && malformed === undefined ? prompt.decision : undefined;
  const approval =
    decision === undefined ? undefined : { teamId: input.thread?.teamId, taskId, ...decisionAudit("prompt", basedOnPromptVersion, { ...decision, decidedAt: decision.decidedAt ?? nowIso(deps) }) };
  const create = (entry?: AuditEntry) => deps.store.createVersion("process", taskId, version, { regeneratedFor, basedOnPromptVersion }, entry, read);
  const { record, task: pointed } = approval?.teamId === undefined ? await create() : await deps.audit.recordWith({ ...approval, teamId: approval.teamId }, create);
  // The task as the pointer write left it; when that was refused (a retry, or a later version is current), as read.
  let task = pointed ?? read;
  const spec = task.spec;
  if (spec === undefined) throw new RecordNotFoundError(`task ${taskId} has no L1 spec`, { details: { taskId } });
  if (decision !== undefined) {
    // The decided Prompt card is drawn from what this step read (the task, the decided version); the entry is
    // confirmed here when the payload carried no workspace (an older state machine).
    const decided = task.currentPromptVersion === basedOnPromptVersion ? heldState(task, { prompts: [prompt] }) : undefined;
    if (approval?.teamId === undefined) await auditDecision(deps, task, { kind: "prompt", version: basedOnPromptVersion, decision }, true, decided);
    else await refreshCard(deps, task, { kind: "prompt" }, decided);
  }
  const generated = {
    teamId: task.thread.teamId,
    taskId,
    action: "process.generated",
    subject: `process#${version}`,
    actor: PIPELINE_ACTOR,
    layer: "L3" as const,
    details: { version, basedOnPromptVersion, regenerated: version > 1, retriedAfterMalformed: malformed !== undefined },
  };
  let movedTask: Task | undefined;
  if ((record as ProcessVersion).steps === undefined) {
    await refreshCard(deps, task, { kind: "process" }, pointed && heldState(task, { processes: [record as ProcessVersion] }));
    let previous: { steps: ProcessVersion["steps"] & object; rejectionReason: string } | undefined;
    if (version > 1) {
      const prev = await deps.store.getVersionOrThrow("process", taskId, version - 1);
      if (prev.steps === undefined || regeneratedFor === undefined) {
        throw new RecordNotFoundError(`process v${version - 1} has no steps or rejection reason to regenerate from`, { details: { taskId, version } });
      }
      previous = { steps: prev.steps, rejectionReason: withPreviewProblems(regeneratedFor, prev) };
    }
    const raw = await deps.layers.generateProcess({
      task,
      spec,
      promptText: prompt.text,
      previous,
      validationError: malformed === undefined ? undefined : causeMessage(malformed.Cause),
    });
    const steps = validateSteps(raw, { attachments: task.attachments ?? [] });
    // The steps, their entry and (the first time) the task's move to process_review in one transaction: a retry
    // that finds the steps finds the rest too. The task is then the one this step holds, moved.
    const held = task;
    const moveTask = held.status === "prompt_review" ? { held, to: "process_review" as const, from: ["prompt_review" as const] } : undefined;
    ({ task: movedTask } = await deps.audit.recordWith(generated, (entry) => deps.store.saveVersionContentWithEntry("process", taskId, version, { steps }, entry, moveTask)));
  } else {
    await deps.audit.record(generated);
  }
  if (movedTask !== undefined) {
    await refreshCard(deps, movedTask, { kind: "task" }, heldState(movedTask));
  } else if (task.status === "prompt_review") {
    ({ record: task } = await deps.store.transitionTask(taskId, "process_review", { from: ["prompt_review"] }));
    await refreshCard(deps, task, { kind: "task" }, heldState(task));
  }
  return { taskId, version };
}

/**
 * What L3 is told was wrong with the previous version: the approver's reason, and the names its preview could not
 * resolve (the card showed them; the reason usually answers them, and L3 needs both to get the names right).
 */
function withPreviewProblems(reason: string, previous: ProcessVersion): string {
  const problems = (previous.preview?.steps ?? []).flatMap((s) => s.problems.map((p) => `${s.stepId}: ${p.message}`));
  return problems.length === 0 ? reason : `${reason}\n\n前の版のプレビューで見つかった問題（freee で名前を確かめた結果）:\n${problems.join("\n")}`;
}
