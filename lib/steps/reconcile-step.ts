import * as z from "../core/zod";
import { SlackThreadSchema, taskIdFor, type Execution, type Task } from "../core/domain/records";
import type { TaskStatus } from "../core/domain/status";
import { IllegalTransitionError, StateConflictError, TransientError } from "../core/errors/taxonomy";
import { failureMessageFor } from "../core/messages/ja";
import { appendInvocationKeys, logLayerError } from "../core/observability/logger";
import type { CardSubject } from "../core/domain/card-refresher";
import { ExecutionRunInputSchema } from "./machines/contracts";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { nowIso } from "./common";
import { confirmAllAudits } from "../store/pending-audit";
import { agentFailureDetails } from "./run-failure-step";

/**
 * The second line of every failure (docs/architecture.md, shape on AWS): EventBridge's "Step Functions Execution Status Change" for a
 * TaskPipeline or ExecutionRun that ended FAILED, TIMED_OUT or ABORTED starts this. Whatever the machine's own
 * failure path managed to do before it died, this brings the table, the audit log and the cards to the truth:
 * a task or run still "live" in the table is failed (or its cancel finalised), its `error.<layer>` entry is
 * written under the same key the failure path uses (so it exists once), the agent session is interrupted (the
 * MCP server refuses every call of a run that is no longer pending/running) and every card is rendered again.
 * Idempotent: a second delivery finds the truth in place and only re-renders. A transient fault throws, so the
 * event is delivered again (Lambda's asynchronous retries; the local runner's emitter retries the same way).
 */
export const ExecutionStatusChangeSchema = z.object({
  source: z.literal("aws.states"),
  "detail-type": z.literal("Step Functions Execution Status Change"),
  detail: z.object({
    executionArn: z.string().check(z.minLength(1)),
    stateMachineArn: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    status: z.enum(["FAILED", "TIMED_OUT", "ABORTED"]),
    input: z.nullish(z.string()),
    error: z.nullish(z.string()),
    cause: z.nullish(z.string()),
  }),
});
export type ExecutionStatusChange = z.infer<typeof ExecutionStatusChangeSchema>;

const PipelineInputSchema = z.object({ thread: SlackThreadSchema });

export interface Reconciled {
  machine: "TaskPipeline" | "ExecutionRun";
  taskId: string;
  /** What had to be repaired (empty: the failure path had done it all; the cards were rendered again). */
  repaired: string[];
}

export async function reconcileExecutionStep(deps: PipelineDeps, event: ExecutionStatusChange): Promise<Reconciled> {
  const input: unknown = event.detail.input === undefined || event.detail.input === null ? {} : JSON.parse(event.detail.input);
  const run = ExecutionRunInputSchema.safeParse(input);
  if (run.success) return reconcileRun(deps, event, run.data);
  const pipeline = PipelineInputSchema.safeParse(input);
  if (pipeline.success) return reconcilePipeline(deps, event, pipeline.data.thread);
  // Neither machine's input: nothing of ours ran (the rule matches our two machines only) — say so loudly.
  throw new IllegalTransitionError("status change of an execution whose input names no task", { details: { executionArn: event.detail.executionArn } });
}

/** The error the machine ended with, named as Step Functions reports it. */
function errorOf(event: ExecutionStatusChange): Error {
  const name = event.detail.error ?? (event.detail.status === "TIMED_OUT" ? "States.Timeout" : event.detail.status === "ABORTED" ? "ExecutionAborted" : "States.Runtime");
  const err = new Error(`${event.detail.status}: ${event.detail.cause ?? "(no cause given)"}`.slice(0, 1000));
  err.name = name;
  return err;
}

const reconcileDetails = (event: ExecutionStatusChange) => ({ reconciled: true, machineStatus: event.detail.status, executionArn: event.detail.executionArn });

// ------------------------------------------------------------------ ExecutionRun

async function reconcileRun(deps: PipelineDeps, event: ExecutionStatusChange, ref: { taskId: string; executionNo: number }): Promise<Reconciled> {
  const { taskId, executionNo } = ref;
  // The event names the run only inside its input: from here on the log lines carry it.
  appendInvocationKeys({ taskId, executionNo });
  const repaired: string[] = [];
  const error = errorOf(event);
  let task = await deps.store.getTaskOrThrow(taskId);
  let execution = await deps.store.getExecutionOrThrow(taskId, executionNo);

  if (execution.status === "pending" || execution.status === "running") {
    const to = execution.status === "running" && event.detail.status === "TIMED_OUT" ? "timed_out" : "failed";
    execution = await settle(
      deps.store.transitionExecution(taskId, executionNo, to, {
        from: [execution.status],
        set: { errorName: error.name, errorMessage: error.message.slice(0, 500), endedAt: nowIso(deps) },
      }),
      () => deps.store.getExecutionOrThrow(taskId, executionNo),
    );
    repaired.push(`execution #${executionNo} ${to}`);
  }
  if (execution.status !== "completed") await interrupt(deps, task, execution);
  if (execution.status === "cancelled" && execution.cancelFinalizedAt === undefined) {
    const { applied } = await deps.store.finalizeCancel(taskId, executionNo);
    if (applied) {
      repaired.push(`execution #${executionNo} cancel finalised`);
      deps.metrics.cancel();
    }
  }

  // The task follows its latest run only.
  if (task.status === "executing" && task.executionCount === executionNo && execution.status !== "completed") {
    const to: TaskStatus = execution.status === "cancelled" ? "cancelled" : "failed";
    task = await settle(
      deps.store.transitionTask(taskId, to, {
        from: ["executing"],
        ...(to === "failed" ? { set: { failure: { layer: "L4", errorName: execution.errorName ?? error.name, at: nowIso(deps) } } } : {}),
      }),
      () => deps.store.getTaskOrThrow(taskId),
    );
    if (task.status === to) {
      repaired.push(`task ${to}`);
      if (to === "failed") deps.metrics.failure("L4", execution.errorName ?? error.name);
      deps.metrics.taskEnded(to);
    }
  }
  if (execution.status === "failed" || execution.status === "timed_out") {
    const { applied } = await deps.audit.recordError({
      teamId: task.thread.teamId,
      taskId,
      layer: "L4",
      subject: `execution#${executionNo}`,
      actor: PIPELINE_ACTOR,
      error: execution.errorName === undefined ? error : named(execution.errorName, execution.errorMessage ?? error.message),
      details: { executionStatus: execution.status, ...agentFailureDetails(execution), ...reconcileDetails(event) },
    });
    if (applied) repaired.push("error.L4 audited");
  }
  repaired.push(...(await confirmAllAudits(deps.audit, { teamId: task.thread.teamId, taskId }, { prompts: [], processes: [], executions: [execution] })));
  await refreshAll(deps, task, [{ kind: "execution", executionNo }, { kind: "task" }]);
  return { machine: "ExecutionRun", taskId, repaired };
}

/** The session of a run that did not complete must stop working (best effort by the failure path, sure here). */
async function interrupt(deps: PipelineDeps, task: Task, execution: Execution): Promise<void> {
  if (execution.sessionId === undefined) return;
  try {
    await deps.agent.interrupt(execution.sessionId);
  } catch (err) {
    if (err instanceof TransientError) throw err;
    // A session that already ended refuses the interrupt: it is not working, which is what we need.
    logLayerError(deps.log, "L4", err, { action: "reconcile interrupt" });
  }
}

// ------------------------------------------------------------------ TaskPipeline

const LAYER_OF: Partial<Record<TaskStatus, "L1" | "L2" | "L3" | "L4">> = { analyzing: "L1", prompt_review: "L2", process_review: "L3", executing: "L4" };
const CARD_OF: Record<"L1" | "L2" | "L3" | "L4", CardSubject> = { L1: { kind: "task" }, L2: { kind: "prompt" }, L3: { kind: "process" }, L4: { kind: "task" } };

async function reconcilePipeline(deps: PipelineDeps, event: ExecutionStatusChange, thread: z.infer<typeof SlackThreadSchema>): Promise<Reconciled> {
  const taskId = taskIdFor(thread);
  appendInvocationKeys({ taskId });
  const repaired: string[] = [];
  const error = errorOf(event);
  const found = await deps.store.getTask(taskId);
  if (found === undefined) {
    // Not even created: the failure path's entry (same key) tells whether the user was told already.
    const { applied } = await deps.audit.recordError({ teamId: thread.teamId, layer: "L1", subject: `pipeline#${taskId}`, actor: PIPELINE_ACTOR, error, details: { taskId, ...reconcileDetails(event) } });
    if (applied) {
      deps.metrics.failure("L1", error.name);
      await deps.cards.notifyThread(thread, failureMessageFor("L1", error.name));
      repaired.push("error.L1 audited, thread told");
    }
    return { machine: "TaskPipeline", taskId, repaired };
  }
  let task = found;
  const layer = LAYER_OF[task.status];
  const subjects: CardSubject[] = [{ kind: "task" }];
  if (layer !== undefined && !(layer === "L4" && (await latestRunIsLive(deps, task)))) {
    const kind = layer === "L2" ? "prompt" : layer === "L3" ? "process" : undefined;
    const version = kind === "prompt" ? task.currentPromptVersion : kind === "process" ? task.currentProcessVersion : undefined;
    if (kind !== undefined && version !== undefined) {
      const { applied } = await settleApplied(
        deps.store.transitionVersion(kind, taskId, version, "failed", { from: ["generating", "pending_approval"], set: { errorName: error.name }, remove: ["taskToken"] }),
      );
      if (applied) repaired.push(`${kind} v${version} failed`);
      subjects.push({ kind });
    }
    if (layer === "L4" && task.executionCount > 0) {
      const { applied } = await settleApplied(
        deps.store.transitionExecution(taskId, task.executionCount, "failed", {
          from: ["pending"],
          set: { errorName: error.name, errorMessage: error.message.slice(0, 500), endedAt: nowIso(deps) },
        }),
      );
      if (applied) repaired.push(`execution #${task.executionCount} failed`);
      subjects.push({ kind: "execution", executionNo: task.executionCount });
    }
    task = await settle(
      deps.store.transitionTask(taskId, "failed", { from: [task.status], set: { failure: { layer, errorName: error.name, at: nowIso(deps) } } }),
      () => deps.store.getTaskOrThrow(taskId),
    );
    if (task.status === "failed") {
      repaired.push("task failed");
      deps.metrics.failure(layer, error.name);
      deps.metrics.taskEnded("failed");
    }
    const { applied } = await deps.audit.recordError({
      teamId: task.thread.teamId,
      taskId,
      layer,
      subject: kind !== undefined && version !== undefined ? `${kind}#${version}` : "task",
      actor: PIPELINE_ACTOR,
      error,
      details: reconcileDetails(event),
    });
    if (applied) repaired.push(`error.${layer} audited`);
    if (CARD_OF[layer].kind !== "task") subjects.push(CARD_OF[layer]);
  }
  // Decisions whose resumed step never ran (or died before it wrote the entry the decision write promised).
  repaired.push(...(await confirmAllAudits(deps.audit, { teamId: task.thread.teamId, taskId }, await deps.store.loadHistory(taskId, { cardsOnly: true }))));
  await refreshAll(deps, task, dedupe(subjects));
  return { machine: "TaskPipeline", taskId, repaired };
}

/** A pipeline that died after its run started leaves the task to the run (its own status change reconciles it). */
async function latestRunIsLive(deps: PipelineDeps, task: Task): Promise<boolean> {
  if (task.executionCount === 0) return false;
  const latest = await deps.store.getExecution(task.taskId, task.executionCount);
  return latest?.status === "running";
}

// ------------------------------------------------------------------ helpers

/** Render the cards again; a Slack fault throws, so the event is delivered again and the card heals later. */
async function refreshAll(deps: PipelineDeps, task: Task, subjects: CardSubject[]): Promise<void> {
  for (const subject of subjects) await deps.cards.refresh(task.taskId, subject);
}

function dedupe(subjects: CardSubject[]): CardSubject[] {
  const seen = new Set<string>();
  return subjects.filter((s) => {
    const key = JSON.stringify(s);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A conditional write another writer got to first: read what is there now. */
async function settle<T>(write: Promise<{ record: T }>, reread: () => Promise<T>): Promise<T> {
  try {
    return (await write).record;
  } catch (err) {
    if (err instanceof StateConflictError && !(err instanceof IllegalTransitionError)) return reread();
    throw err;
  }
}

async function settleApplied(write: Promise<{ applied: boolean }>): Promise<{ applied: boolean }> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof StateConflictError && !(err instanceof IllegalTransitionError)) return { applied: false };
    if (err instanceof Error && err.name === "RecordNotFoundError") return { applied: false };
    throw err;
  }
}

function named(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}
