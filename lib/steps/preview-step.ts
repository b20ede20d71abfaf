import * as z from "../core/zod";
import { AttachmentsSchema, SlackThreadSchema, type ProcessVersion } from "../core/domain/records";
import type { ProcessPreview } from "../core/domain/preview";
import { RecordNotFoundError } from "../core/errors/taxonomy";
import { buildPreview } from "../preview/build";
import { isWriteStep } from "../freee/tools/summaries";
import { FreeeReader } from "../preview/reader";
import { approvableVia } from "../preview/plan";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { ApprovalOutcomeSchema, type ApprovalOutcome } from "./machines/contracts";
import { readOnlyJudgement, readOnlyOutcome } from "./read-only-approval";

export const PreviewProcessInputSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  version: z.int().check(z.positive()),
  /** TaskPipeline's thread and CreateTask's attachments (they never change): the task is not read for them. */
  thread: z.optional(SlackThreadSchema),
  attachments: z.optional(AttachmentsSchema),
  /**
   * The decision TaskPipeline last received (`$.approval`): the 実行方針's approval for a first plan, a Process
   * rejection for a regenerated one. A plan that only reads may run on the first (lib/steps/read-only-approval.ts).
   */
  promptApproval: z.optional(ApprovalOutcomeSchema),
});
export type PreviewProcessInput = z.infer<typeof PreviewProcessInputSchema>;

/**
 * The preview state (docs/architecture.md, pipeline), between L3 and the Process card: read from freee what each write step will
 * change, resolve the request's names to the ids the writes will use, and store both on the Process version.
 * A plan without write steps reads nothing. freee's AuthError and transient errors leave this step by name, for
 * the state's Retry / Catch rows (the freee connection message on AuthError); a value freee will not give is stored as
 * unreadable and shown so. Retried after a stored preview, it reads nothing again.
 */
export async function previewProcessStep(deps: PipelineDeps, input: PreviewProcessInput): Promise<{ taskId: string; version: number; status: ProcessPreview["status"]; approval?: ApprovalOutcome }> {
  const { taskId, version } = input;
  const task =
    input.thread === undefined || input.attachments === undefined
      ? await deps.store.getTaskOrThrow(taskId)
      : { taskId, thread: input.thread, attachments: input.attachments };
  let record = await deps.store.getVersionOrThrow("process", taskId, version);
  if (record.steps === undefined) throw new RecordNotFoundError(`process v${version} has no steps to preview`, { details: { taskId, version } });
  const event = (held: ProcessVersion) => {
    const preview = held.preview!;
    return {
      teamId: task.thread.teamId,
      taskId,
      action: "process.previewed",
      subject: `process#${version}`,
      actor: PIPELINE_ACTOR,
      layer: "L3" as const,
      details: {
        version,
        status: preview.status,
        writeSteps: held.steps!.filter(isWriteStep).length,
        unreadable: preview.steps.filter((s) => s.current === "unreadable").map((s) => s.stepId),
        problems: preview.steps.flatMap((s) => s.problems.map((p) => ({ stepId: s.stepId, kind: p.kind, field: p.field }))),
        warnings: (preview.warnings ?? []).map((w) => ({ stepId: w.stepId, kind: w.kind })),
        dropped: (preview.dropped ?? []).map((d) => d.stepId),
        reads: preview.reads,
      },
    };
  };
  if (record.preview === undefined) {
    const outcome = await buildPreview(record.steps, new FreeeReader(deps.freee(task.thread.teamId)), deps.clock(), {
      attachments: task.attachments ?? [],
      thresholds: { percent: deps.limits.warnChangePercent, yen: deps.limits.warnChangeYen },
    });
    const via = approvableVia({ ...record, steps: outcome.steps, preview: outcome.preview });
    const previewed: ProcessVersion = { ...record, steps: outcome.steps, preview: outcome.preview, approvableVia: via };
    // A plan that only reads is judged by the approval policy now, and may be approved by its 実行方針 approval.
    const judged = await readOnlyJudgement(deps, task.thread.teamId, previewed, input.promptApproval);
    const stored: ProcessVersion = { ...previewed, ...judged, ...(judged.decision === undefined ? {} : { status: "approved" as const }) };
    // The preview (and a read-only plan's decision) with its entry in one transaction; refused, the preview an
    // earlier attempt stored is the one shown.
    const saved = await deps.audit.recordWith(event(stored), (entry) => deps.store.saveProcessPreview(taskId, version, { ...outcome, approvableVia: via, ...judged }, entry));
    record = saved.record ?? stored;
  } else {
    await deps.audit.record(event(record));
  }
  const preview = record.preview!;
  const approval = readOnlyOutcome(record);
  return { taskId, version, status: preview.status, ...(approval === undefined ? {} : { approval }) };
}
