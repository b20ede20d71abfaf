import * as z from "../core/zod";
import type { TaskStatus } from "../core/domain/status";
import { FatalConfigError, RecordNotFoundError } from "../core/errors/taxonomy";
import { registerSecret } from "../core/redaction/secret-registry";
import { ApprovalOutcomeSchema } from "./machines/contracts";
import { SlackThreadSchema } from "../core/domain/records";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { startExecutionRun } from "./machines/start-execution-run";
import { decisionAudit } from "../core/domain/audit-promises";
import { snapshotRule, type ApprovalRule } from "../core/domain/approval-policy";
import { planFacts, planWarnings } from "./approval-facts";
import { auditDecision, heldState, nowIso, refreshCard, refreshWithTaskCard } from "./common";

const VersionKindSchema = z.enum(["prompt", "process"]);
const reviewStatus = (kind: "prompt" | "process"): TaskStatus => (kind === "prompt" ? "prompt_review" : "process_review");

export const VersionRefSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  kind: VersionKindSchema,
  version: z.int().check(z.positive()),
});
export type VersionRef = z.infer<typeof VersionRefSchema>;

export const AwaitApprovalInputSchema = z.extend(VersionRefSchema, { taskToken: z.string().check(z.minLength(1)) });
export type AwaitApprovalInput = z.infer<typeof AwaitApprovalInputSchema>;

/**
 * The waitForTaskToken state's Lambda: the token goes on the version item (never into a button), the version
 * becomes `pending_approval`, the card shows [承認] [却下]. The state then waits for SendTaskSuccess from the ingress.
 */
export async function awaitApprovalStep(deps: PipelineDeps, input: AwaitApprovalInput): Promise<{ awaiting: true }> {
  registerSecret(input.taskToken);
  // The task (the workspace and requester the approval is bound to, the card's slot and pointer) and the version,
  // in one read; the token write and its entry in one transaction, the version drawn from the one read.
  const { task, version: held } = await deps.store.readSnapshot(input.taskId, { version: { kind: input.kind, version: input.version } });
  if (held === undefined) throw new RecordNotFoundError(`${input.kind} v${input.version} of ${input.taskId} not found`, { details: { taskId: input.taskId, kind: input.kind, version: input.version } });
  // A Process is judged by the workspace's approval policy as it stands now, when its card asks for approval.
  const approvalRule: { approvalRule?: ApprovalRule } =
    held.kind === "process" && held.approvalRule === undefined
      ? await (async () => {
          const facts = planFacts(held, planWarnings(held));
          // Whether the card goes to a public channel matters only for an HR write plan (its amounts are masked there).
          const publicChannel = facts.writeDomains.includes("hr") && (await deps.cards.audienceOf(task.thread)) === "public";
          return { approvalRule: snapshotRule((await deps.settings.get(task.thread.teamId)).approvalPolicy, facts, nowIso(deps), { publicChannel }) };
        })()
      : {};
  const { record: pending } = await deps.audit.recordWith(
    {
      teamId: task.thread.teamId,
      taskId: task.taskId,
      action: `${input.kind}.approval_requested`,
      subject: `${input.kind}#${input.version}`,
      actor: PIPELINE_ACTOR,
      layer: input.kind === "prompt" ? "L2" : "L3",
      details: { version: input.version, ...(approvalRule.approvalRule === undefined ? {} : { approvalRule: approvalRule.approvalRule }) },
    },
    (entry) => deps.store.openApproval(input.kind, input.taskId, input.version, input.taskToken, { teamId: task.thread.teamId, requesterId: task.requesterId, ...approvalRule }, { held, entry }),
  );
  // Drawn from the task read above and the version as this write left it, when the task still points at it.
  const current = input.kind === "prompt" ? task.currentPromptVersion : task.currentProcessVersion;
  const known = current !== input.version ? undefined : heldState(task, pending.kind === "prompt" ? { prompts: [pending] } : { processes: [pending] });
  await refreshCard(deps, task, { kind: input.kind }, known);
  return { awaiting: true };
}

export const HandleRejectionInputSchema = z.extend(VersionRefSchema, {
  teamId: z.string().check(z.minLength(1)),
  approval: z.object({ ...ApprovalOutcomeSchema.shape, reason: z.string().check(z.trim(), z.minLength(1)) }),
});
export type HandleRejectionInput = z.infer<typeof HandleRejectionInputSchema>;

export type RejectionOutcome =
  | { action: "regenerate"; nextVersion: number; reason: string }
  | { action: "closed"; reason: "regeneration_limit" };

/**
 * After a rejection (already written and audited by the ingress): regenerate vN+1 with the reason, or — when
 * the regenerations are used up (5) — close the task with the limit message and make no new version.
 */
export async function handleRejectionStep(deps: PipelineDeps, input: HandleRejectionInput): Promise<RejectionOutcome> {
  const regenerationsUsed = input.version - 1;
  // The card shows the rejection with the next version's 再生成中 (GeneratePrompt/Process) or the limit (below).
  await auditDecision(deps, { taskId: input.taskId, thread: { teamId: input.teamId } }, { kind: input.kind, version: input.version, decision: input.approval }, false);
  if (regenerationsUsed < deps.limits.maxRegenerations) {
    deps.metrics.regeneration(input.kind);
    return { action: "regenerate", nextVersion: input.version + 1, reason: input.approval.reason };
  }
  const { record: task, applied: closedNow } = await deps.store.transitionTask(input.taskId, "closed", {
    from: [reviewStatus(input.kind)],
    set: { closedReason: "regeneration_limit" },
  });
  if (closedNow) deps.metrics.taskEnded("closed");
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: `${input.kind}.regeneration_limit`,
    subject: `${input.kind}#${input.version}`,
    actor: PIPELINE_ACTOR,
    layer: input.kind === "prompt" ? "L2" : "L3",
    details: { maxRegenerations: deps.limits.maxRegenerations, lastRejectedBy: input.approval.actorId },
  });
  await refreshWithTaskCard(deps, task, { kind: input.kind });
  return { action: "closed", reason: "regeneration_limit" };
}

/** The approval wait timed out (States.Timeout): version `expired`, task `closed`, the card says so. */
export async function expireApprovalStep(deps: PipelineDeps, input: VersionRef): Promise<{ closed: true }> {
  await deps.store.transitionVersion(input.kind, input.taskId, input.version, "expired", {
    from: ["pending_approval"],
    remove: ["taskToken"],
  });
  const { record: task, applied: closedNow } = await deps.store.transitionTask(input.taskId, "closed", {
    from: [reviewStatus(input.kind)],
    set: { closedReason: "approval_expired" },
  });
  if (closedNow) deps.metrics.taskEnded("closed");
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: `${input.kind}.approval_expired`,
    subject: `${input.kind}#${input.version}`,
    actor: PIPELINE_ACTOR,
    layer: input.kind === "prompt" ? "L2" : "L3",
    details: { approvalTimeoutSeconds: deps.limits.approvalTimeoutSeconds },
  });
  await refreshWithTaskCard(deps, task, { kind: input.kind });
  return { closed: true };
}

export const StartRunInputSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  version: z.int().check(z.positive()),
  approval: ApprovalOutcomeSchema,
  /** TaskPipeline's thread: the decision's entry needs the workspace, which never changes — no task read. */
  thread: z.optional(SlackThreadSchema),
});
export type StartRunInput = z.infer<typeof StartRunInputSchema>;

/**
 * Process approved: remember which version runs, then the first Execution (same path as a rerun). The decided
 * Process card is refreshed by the run's first step, which holds the task and the Process (StartSession), or by
 * the failure path if this start fails.
 */
export async function startRunStep(deps: PipelineDeps, input: StartRunInput): Promise<{ taskId: string; executionNo: number }> {
  const owner = input.thread === undefined ? await deps.store.getTaskOrThrow(input.taskId) : { taskId: input.taskId, thread: input.thread };
  const executionRunArn = deps.executionRunArn;
  if (executionRunArn === undefined) {
    throw new FatalConfigError("start-run needs EXECUTION_RUN_ARN", { details: { setting: "EXECUTION_RUN_ARN" } });
  }
  // The approved version is remembered by the write that claims the first run (a retry finds both done; the
  // write applies only with the claim, from process_review). The approval's promised entry is written with the
  // first Execution, in one transaction; if the run cannot be created, the failure path writes it (confirmAllAudits).
  const started = await deps.audit.recordWith(
    { teamId: owner.thread.teamId, taskId: input.taskId, ...decisionAudit("process", input.version, { ...input.approval, decidedAt: nowIso(deps) }) },
    (entry) =>
      startExecutionRun(
        { store: deps.store, sfn: deps.sfn, executionRunArn },
        { taskId: input.taskId, from: ["process_review"], actorId: input.approval.actorId, maxExecutions: 1 + deps.limits.maxReruns, set: { approvedProcessVersion: input.version }, entry },
      ),
  );
  return { taskId: input.taskId, executionNo: started.execution.executionNo };
}
