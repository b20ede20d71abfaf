import { z } from "zod";
import type { Execution, ExecutionProgress, ProcessVersion, Task } from "../../domain/records";
import { AgentRunFailedError, RecordNotFoundError, RunTimeoutError, StateConflictError, IllegalTransitionError, TransientError } from "../../errors/taxonomy";
import { logLayerError } from "../../observability/logger";
import { allowedToolsForSteps } from "../../tools/registry";
import { ExecutionRunInputSchema } from "../../workflow/contracts";
import { PIPELINE_ACTOR, type PipelineDeps } from "../ports";
import { confirmAllAudits, confirmAudit } from "../../audit/pending-audit";
import { cancelAudit } from "../../domain/audit-promises";
import { asIncomplete, faultError } from "../run-completion";
import { CaughtErrorSchema, errorFromCatch, nowIso, refreshCard, heldState, refreshWithTaskCard } from "./common";
import { judgeCompletion, stepsToRun } from "./complete-run";
import { attachReadResults, writesAtEnd } from "./run-writes";

export { ExecutionRunInputSchema };
export type RunState = "running" | "completed" | "cancelled";
export interface RunStateOutput {
  /** Absent only when a rerun found nothing left to do (no session was needed): ExecutionRun ends at once. */
  sessionId?: string;
  elapsedSeconds: number;
  state: RunState;
}

const EMPTY_PROGRESS: ExecutionProgress = { seenEventIds: [], completedSteps: 0, toolErrors: [] };

/**
 * ExecutionRun's first state: `pending → running`, then one Managed Agents session with the approved steps.
 * A retried start finds the session id it already stored and creates no second session.
 */
export async function startSessionStep(deps: PipelineDeps, input: z.infer<typeof ExecutionRunInputSchema>): Promise<RunStateOutput> {
  const { taskId, executionNo } = input;
  const task = await deps.store.getTaskOrThrow(taskId);
  let execution = await deps.store.getExecutionOrThrow(taskId, executionNo);
  if (execution.status === "pending") {
    let applied: boolean;
    ({ record: execution, applied } = await deps.store.transitionExecution(taskId, executionNo, "running", {
      from: ["pending"],
      set: { startedAt: nowIso(deps) },
    }));
    if (applied && executionNo > 1) deps.metrics.rerun();
  }
  // The start's promised entry: written here, once (its click and StartRun only promise it: start-execution-run.ts).
  if (execution.startAudit !== undefined) await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId }, execution.startAudit);
  if (execution.sessionId !== undefined) {
    return { sessionId: execution.sessionId, elapsedSeconds: 0, state: "running" };
  }
  // A retried start after a rerun found nothing to do: it is done already.
  if (execution.status === "completed") return { elapsedSeconds: 0, state: "completed" };
  const process = await deps.store.getVersionOrThrow("process", taskId, execution.processVersion);
  if (process.steps === undefined) {
    throw new RecordNotFoundError(`process v${execution.processVersion} has no steps`, { details: { taskId } });
  }
  const { remaining, done } = await stepsToRun(deps, execution, process.steps);
  if (remaining.length === 0) return completeWithoutSession(deps, task, execution, process, done);
  // Both cards from what this step holds: the task, the running execution and its Process version.
  await refreshWithTaskCard(deps, task, { kind: "execution", executionNo }, heldState(task, { executions: [execution], processes: [process] }));
  const started = await deps.agent.start({
    teamId: task.thread.teamId,
    taskId,
    executionId: execution.executionId,
    steps: remaining,
    doneStepIds: done,
    allowedTools: allowedToolsForSteps(remaining),
  });
  await deps.store.recordProgress(taskId, executionNo, {
    sessionId: started.sessionId,
    progress: { ...EMPTY_PROGRESS, stepsSentAt: started.stepsSentAt },
  });
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId,
    action: "execution.session_created",
    subject: `execution#${executionNo}`,
    actor: PIPELINE_ACTOR,
    layer: "L4",
    details: { sessionId: started.sessionId, processVersion: execution.processVersion, steps: remaining.map((s) => s.stepId), alreadyDone: done },
  });
  return { sessionId: started.sessionId, elapsedSeconds: 0, state: "running" };
}

/** A rerun whose every approved step an earlier run completed: nothing to send to an agent, the run is done. */
async function completeWithoutSession(deps: PipelineDeps, task: Task, execution: Execution, process: ProcessVersion, done: string[]): Promise<RunStateOutput> {
  const { taskId, executionNo } = execution;
  const completion = { writeStepsDone: done, writeStepsMissing: [], reported: "no_session" as const, judgedAt: nowIso(deps) };
  const { record: completed } = await deps.store.transitionExecution(taskId, executionNo, "completed", {
    from: ["running"],
    set: { completion, resultSummary: "承認済みのステップは前回までの実行ですべて完了しています（freee には再送していません）。", writes: await writesAtEnd(deps, execution), endedAt: nowIso(deps) },
  });
  await completeTask(deps, task, { execution: completed, process }, { withoutSession: true, writeStepsDone: done });
  return { elapsedSeconds: 0, state: "completed" };
}

/**
 * The Execution is completed: the task too (counted once, by the write that applied), its audit entry, and the
 * Execution and Task cards, drawn from the records the two writes returned and the run's Process version.
 * `onCompleted` adds what only the caller knows to the metrics.
 */
async function completeTask(
  deps: PipelineDeps,
  task: Task,
  ran: { execution: Execution; process: ProcessVersion },
  details: Record<string, unknown>,
  onCompleted?: () => void,
): Promise<void> {
  const { executionNo } = ran.execution;
  const { record: done, applied } = await deps.store.transitionTask(task.taskId, "completed", { from: ["executing"] });
  if (applied) {
    deps.metrics.taskEnded("completed");
    onCompleted?.();
  }
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: "execution.completed",
    subject: `execution#${executionNo}`,
    actor: PIPELINE_ACTOR,
    layer: "L4",
    details,
  });
  await refreshWithTaskCard(deps, done, { kind: "execution", executionNo }, heldState(done, { executions: [ran.execution], processes: [ran.process] }));
}

export const PollSessionInputSchema = z.object({
  ...ExecutionRunInputSchema.shape,
  sessionId: z.string().min(1),
  elapsedSeconds: z.number().nonnegative(),
});
export type PollSessionInput = z.infer<typeof PollSessionInputSchema>;

/**
 * One poll: a cancel seen in the DB ends the run (interrupt, best effort); new events become progress; done
 * completes the Execution and the task. Past the run timeout this throws RunTimeoutError (caught → timed_out).
 * Elapsed time is carried in the state and never less than the wall clock since the run started.
 */
export async function pollSessionStep(deps: PipelineDeps, input: PollSessionInput): Promise<RunStateOutput> {
  const { taskId, executionNo, sessionId } = input;
  const task = await deps.store.getTaskOrThrow(taskId);
  const execution = await deps.store.getExecutionOrThrow(taskId, executionNo);
  if (execution.status === "cancelled") return finalizeCancel(deps, task, execution, input);
  if (execution.status === "completed") return { sessionId, elapsedSeconds: input.elapsedSeconds, state: "completed" };
  // The freee MCP server found the workspace's freee connection failed: no step can succeed, the run ends now.
  if (execution.fault !== undefined) throw faultError(execution.fault);
  const outcome = await pollOrRecordFailure(deps, execution, sessionId);
  if (outcome.state === "completed") {
    const judged = await judgeCompletion(deps, execution, outcome);
    if (judged.kind === "cancelled") return finalizeCancel(deps, task, judged.execution, input);
    let completed: Execution;
    try {
      ({ record: completed } = await deps.store.transitionExecution(taskId, executionNo, "completed", {
        from: ["running"],
        set: {
          progress: outcome.progress,
          ...(judged.summary === "" ? {} : { resultSummary: judged.summary }),
          completion: judged.completion,
          writes: await writesAtEnd(deps, execution, judged.read),
          resultFiles: await attachReadResults(deps, task, executionNo, outcome.progress),
          usage: outcome.usage,
          endedAt: nowIso(deps),
        },
      }));
    } catch (err) {
      // A cancel landed between our read and this write: the user's cancel wins.
      if (!(err instanceof StateConflictError) || err instanceof IllegalTransitionError) throw err;
      return finalizeCancel(deps, task, await deps.store.getExecutionOrThrow(taskId, executionNo), input);
    }
    await completeTask(deps, task, { execution: completed, process: judged.read.process }, { usage: outcome.usage, completedSteps: outcome.progress.completedSteps }, () => {
      const started = execution.startedAt === undefined ? undefined : Date.parse(execution.startedAt);
      deps.metrics.executionFinished(started === undefined ? 0 : Math.max(0, (deps.clock().getTime() - started) / 1000), outcome.usage);
    });
    return { sessionId, elapsedSeconds: input.elapsedSeconds, state: "completed" };
  }
  const { record, applied } = await deps.store.recordProgress(taskId, executionNo, { progress: outcome.progress, usage: outcome.usage });
  if (!applied && record.status === "cancelled") return finalizeCancel(deps, task, record, input);
  const elapsedSeconds = elapsedAfterPoll(deps, input.elapsedSeconds, record);
  if (elapsedSeconds >= deps.limits.runTimeoutSeconds) {
    throw new RunTimeoutError(`execution ${executionNo} still running after ${elapsedSeconds} s`, {
      details: { taskId, executionNo, elapsedSeconds, runTimeoutSeconds: deps.limits.runTimeoutSeconds },
    });
  }
  // The card shows step / tool / tool errors: a poll that changed none of them sends Slack nothing (a run
  // polls every 3 s; chat.update is rate limited per channel).
  if (shownProgress(execution.progress) !== shownProgress(record.progress)) {
    await refreshCard(deps, task, { kind: "execution", executionNo });
  }
  return { sessionId, elapsedSeconds, state: "running" };
}

/**
 * A failed session's reason must survive the Catch, which passes on only a name and a message: it goes on the
 * Execution (structured, while it is still running) before the error is thrown on to the failure path.
 */
async function pollOrRecordFailure(deps: PipelineDeps, execution: Execution, sessionId: string) {
  const progress = execution.progress ?? EMPTY_PROGRESS;
  try {
    return await deps.agent.poll(sessionId, progress);
  } catch (err) {
    if (!(err instanceof AgentRunFailedError)) throw asIncomplete(err);
    await deps.store.recordProgress(execution.taskId, execution.executionNo, { progress, agentFailure: { reason: err.reason, details: err.details } });
    throw err;
  }
}

/** What the Execution card shows of the progress (lib/slack/cards/execution-card.ts). */
function shownProgress(progress: ExecutionProgress | undefined): string {
  if (progress === undefined) return "";
  const steps = (progress.steps ?? []).map((s) => [s.stepId, s.state, s.note]);
  return JSON.stringify([progress.currentStepId, progress.currentTool, progress.completedSteps, progress.toolErrors.length, steps]);
}

function elapsedAfterPoll(deps: PipelineDeps, previous: number, execution: Execution): number {
  const counted = previous + deps.limits.pollIntervalSeconds;
  if (execution.startedAt === undefined) return counted;
  const wall = Math.floor((deps.clock().getTime() - Date.parse(execution.startedAt)) / 1000);
  return Math.max(counted, wall);
}

/**
 * Seed §6.2: the DB says cancelled whatever the interrupt does (the click wrote it, and the MCP server refuses
 * every call of a run that is not live). The run ends `cancelled` once the session took the interrupt: one it did
 * not reach (a 5xx, a timeout) keeps the agent working, so the error is audited and thrown and Step Functions
 * retries this poll, which sends it again; past those retries RecordRunFailure and the reconciler do. Until then
 * the card says 中止中..., which is what is happening.
 */
async function finalizeCancel(deps: PipelineDeps, taskAtPoll: Task, execution: Execution, input: PollSessionInput): Promise<RunStateOutput> {
  await interruptForCancel(deps, taskAtPoll, execution, input.sessionId ?? execution.sessionId);
  await settleCancel(deps, taskAtPoll, execution);
  return { sessionId: input.sessionId, elapsedSeconds: input.elapsedSeconds, state: "cancelled" };
}

/** The cancelled run's session took the interrupt (or had ended): 中止, the task cancelled, the cancel audited. */
async function settleCancel(deps: PipelineDeps, taskAtPoll: Task, execution: Execution): Promise<void> {
  let task = taskAtPoll;
  const writes = execution.cancelFinalizedAt === undefined ? await writesOrNone(deps, task, execution) : undefined;
  const { applied } = await deps.store.finalizeCancel(task.taskId, execution.executionNo, { writes });
  // The click only cancelled the Execution (its ack path is three calls): the task ends here, with the run.
  try {
    task = (await deps.store.transitionTask(task.taskId, "cancelled", { from: ["executing"] })).record;
  } catch (err) {
    // A task that already moved on (a racing poll that finished it) keeps its own status.
    if (!(err instanceof StateConflictError)) throw err;
  }
  if (applied) {
    deps.metrics.cancel();
    deps.metrics.taskEnded("cancelled");
  }
  // The click acked after its one write (lib/actions/cancel.ts), which promised this entry: it is confirmed here
  // under the same key, so it is written once. A pre-field item has no promise: the same entry is built here.
  const promised = execution.cancelAudit ?? cancelAudit(execution.executionNo, execution.cancelledBy ?? PIPELINE_ACTOR, execution.cancelledAt ?? nowIso(deps));
  await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId: task.taskId }, promised);
  await refreshWithTaskCard(deps, task, { kind: "execution", executionNo: execution.executionNo });
}

/**
 * The interrupt of a cancelled run. A session that refuses it (4xx) has ended, which is all a cancel needs; an
 * interrupt that did not get through is audited (once per run) and thrown as the TransientError it is.
 */
async function interruptForCancel(deps: PipelineDeps, task: Task, execution: Execution, sessionId: string | undefined): Promise<void> {
  if (sessionId === undefined) return;
  try {
    await deps.agent.interrupt(sessionId);
  } catch (err) {
    logLayerError(deps.log, "L4", err, { action: "interrupt" });
    // Audited either way. A refusal that will not change (the session is gone, our key is refused) ends the
    // cancel here: the run is cancelled in the table, so the MCP server refuses its bearer — the session, if it
    // still runs, can no longer reach freee. A transient failure is retried by the poll until the session takes it.
    await deps.audit.recordError({
      teamId: task.thread.teamId,
      taskId: task.taskId,
      layer: "L4",
      subject: `interrupt#execution#${execution.executionNo}`,
      actor: PIPELINE_ACTOR,
      error: err,
      details: { sessionId, executionStatus: execution.status },
    });
    if (err instanceof TransientError) throw err;
  }
}

/**
 * The ledger at the end of a cancelled or failed run, for its card. A ledger that cannot be read now must not
 * stop the run from ending (its status, audit and card matter more): transient errors are retried by the step;
 * anything else is logged and the card says it could not read the writes.
 */
async function writesOrNone(deps: PipelineDeps, task: Task, execution: Execution): Promise<Execution["writes"]> {
  try {
    return await writesAtEnd(deps, execution);
  } catch (err) {
    if (err instanceof TransientError) throw err;
    logLayerError(deps.log, "L4", err, { taskId: task.taskId, executionNo: execution.executionNo, action: "read_write_ledger" });
    return undefined;
  }
}

async function interruptBestEffort(deps: PipelineDeps, sessionId: string | undefined): Promise<void> {
  if (sessionId === undefined) return;
  try {
    await deps.agent.interrupt(sessionId);
  } catch (err) {
    // Best effort by design (seed §6.2): logged with the seed §10.1 fields, the status stands.
    logLayerError(deps.log, "L4", err, { action: "interrupt" });
  }
}

/**
 * RecordRunFailure on a cancelled run whose session had not taken the interrupt: the task follows its run
 * (cancelled, as the DB has said since the click); the run's card says 中止 once the interrupt gets through,
 * until then 中止中... — the reconciler, which this machine's failure starts, keeps trying.
 */
async function cancelOnFailurePath(deps: PipelineDeps, task: Task, execution: Execution, sessionId: string | undefined): Promise<void> {
  try {
    await interruptForCancel(deps, task, execution, sessionId);
  } catch (err) {
    if (!(err instanceof TransientError)) throw err;
    if (task.status !== "executing" || task.executionCount !== execution.executionNo) return;
    try {
      const { applied } = await deps.store.transitionTask(task.taskId, "cancelled", { from: ["executing"] });
      if (applied) deps.metrics.taskEnded("cancelled");
    } catch (conflict) {
      // A task that already moved on keeps its own status.
      if (!(conflict instanceof StateConflictError)) throw conflict;
    }
    return;
  }
  await settleCancel(deps, task, execution);
}

/** The failed session's reason, as the poll stored it: for the error.L4 entry (the card reads the record). */
export function agentFailureDetails(execution: Execution): Record<string, unknown> {
  return execution.agentFailure === undefined ? {} : { agentFailureReason: execution.agentFailure.reason, agentFailure: execution.agentFailure.details ?? {} };
}

export const RunFailureInputSchema = z.object({
  ...ExecutionRunInputSchema.shape,
  sessionId: z.string().min(1).optional(),
  error: CaughtErrorSchema,
});
export type RunFailureInput = z.infer<typeof RunFailureInputSchema>;

/**
 * ExecutionRun's one failure path: the Execution becomes `timed_out` (RunTimeoutError) or `failed`, the task
 * `failed` (a rerun is possible), `error.L4` is audited and the card shows the seed §9.1 message with [再実行].
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
      const writes = await writesOrNone(deps, task, execution);
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
