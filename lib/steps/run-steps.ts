import { deliverReadResults } from "./private-results";
import * as z from "../core/zod";
import { ExecutionSchema, SlackThreadSchema, type Execution, type ExecutionProgress, type ProcessVersion, type SlackThread, type Task } from "../core/domain/records";
import { AgentRunFailedError, RecordNotFoundError, RunTimeoutError, StateConflictError, IllegalTransitionError } from "../core/errors/taxonomy";
import { allowedToolsForSteps } from "../freee/tools/summaries";
import { ExecutionRunInputSchema } from "./machines/contracts";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { confirmAudit } from "../store/pending-audit";
import type { AuditEvent } from "../store/audit-log";
import { executionNotFound } from "../store/executions";
import { asIncomplete, faultError } from "./run-completion";
import { nowIso, refreshCard, heldState, refreshWithTaskCard, type TaskRef } from "./common";
import { judgeCompletion, stepsToRun } from "./complete-run";
import { interruptForCancel, settleCancel } from "./run-cancel";
import { writesAtEnd } from "./run-writes";

export { ExecutionRunInputSchema };
export type RunState = "running" | "completed" | "cancelled";
export interface RunStateOutput {
  /** Absent only when a rerun found nothing left to do (no session was needed): ExecutionRun ends at once. */
  sessionId?: string;
  elapsedSeconds: number;
  state: RunState;
  /**
   * The task's thread, which never changes: ExecutionRun hands it to the next poll (`$.run.thread`), so a poll
   * reads the run, not the task. A poll of a run started before the field existed reads the task instead.
   */
  thread?: SlackThread;
}

const EMPTY_PROGRESS: ExecutionProgress = { seenEventIds: [], completedSteps: 0, toolErrors: [] };

/**
 * ExecutionRun's first state: `pending → running`, then one Managed Agents session with the approved steps.
 * A retried start finds the session id it already stored and creates no second session.
 */
export async function startSessionStep(deps: PipelineDeps, input: z.infer<typeof ExecutionRunInputSchema>): Promise<RunStateOutput> {
  const { taskId, executionNo } = input;
  const read = await readRun(deps, input);
  const task = read.task;
  let execution = read.execution;
  if (execution.status === "pending") {
    execution = await markRunning(deps, task, execution);
  } else if (execution.startAudit !== undefined) {
    // A retried start (already running): the promise is confirmed again, under its write-once key.
    await confirmAudit(deps.audit, { teamId: task.thread.teamId, taskId }, execution.startAudit);
  }
  if (execution.sessionId !== undefined) {
    return { sessionId: execution.sessionId, elapsedSeconds: 0, state: "running", thread: task.thread };
  }
  // A retried start after a rerun found nothing to do: it is done already.
  if (execution.status === "completed") return { elapsedSeconds: 0, state: "completed", thread: task.thread };
  // The version the payload named, when it is the run's (a payload without one, or naming another, is read now).
  const process = read.process?.version === execution.processVersion ? read.process : await deps.store.getVersionOrThrow("process", taskId, execution.processVersion);
  // The first run's Process card shows the approval StartRun started it on (drawn from what this step holds).
  if (executionNo === 1) await refreshCard(deps, task, { kind: "process" }, heldState(task, { processes: [process] }));
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
  // The session on the Execution and its entry in one transaction. Refused (cancelled meanwhile), the session was
  // still created: its entry is written on its own (recordWith), as the poll will interrupt it.
  await deps.audit.recordWith(
    {
      teamId: task.thread.teamId,
      taskId,
      action: "execution.session_created",
      subject: `execution#${executionNo}`,
      actor: PIPELINE_ACTOR,
      layer: "L4",
      details: { sessionId: started.sessionId, processVersion: execution.processVersion, steps: remaining.map((s) => s.stepId), alreadyDone: done },
    },
    (entry) => deps.store.recordProgressWithEntry(taskId, executionNo, { sessionId: started.sessionId, progress: { ...EMPTY_PROGRESS, stepsSentAt: started.stepsSentAt } }, entry),
  );
  return { sessionId: started.sessionId, elapsedSeconds: 0, state: "running", thread: task.thread };
}

/** The task, the Execution and (when the payload names it) its Process version, in one request. */
async function readRun(deps: PipelineDeps, input: z.infer<typeof ExecutionRunInputSchema>): Promise<{ task: Task; execution: Execution; process?: ProcessVersion }> {
  const { taskId, executionNo, processVersion } = input;
  const snapshot = await deps.store.readSnapshot(taskId, {
    execution: executionNo,
    ...(processVersion === undefined ? {} : { version: { kind: "process" as const, version: processVersion } }),
  });
  if (snapshot.execution === undefined) throw executionNotFound(taskId, executionNo);
  const version = snapshot.version;
  return { task: snapshot.task, execution: snapshot.execution, ...(version?.kind === "process" ? { process: version } : {}) };
}

/**
 * `pending → running`, with the start's promised `execution.started` entry in the same transaction (its click and
 * StartRun only promise it: start-execution-run.ts). A record from before the promise existed moves alone.
 */
async function markRunning(deps: PipelineDeps, task: Task, execution: Execution): Promise<Execution> {
  const { taskId, executionNo } = execution;
  const options = { from: ["pending"], set: { startedAt: nowIso(deps) } };
  const promised = execution.startAudit;
  const { record, applied } =
    promised === undefined
      ? await deps.store.transitionExecution(taskId, executionNo, "running", options)
      : await deps.audit.recordWith({ teamId: task.thread.teamId, taskId, ...promised }, (entry) => deps.store.transitionExecutionWithEntry(execution, "running", options, entry));
  if (applied && executionNo > 1) deps.metrics.rerun();
  return record;
}

/** The run's `execution.completed` entry, which rides the Execution's completing write. */
function completedEvent(task: TaskRef, executionNo: number, details: Record<string, unknown>): AuditEvent {
  return { teamId: task.thread.teamId, taskId: task.taskId, action: "execution.completed", subject: `execution#${executionNo}`, actor: PIPELINE_ACTOR, layer: "L4", details };
}

/** A rerun whose every approved step an earlier run completed: nothing to send to an agent, the run is done. */
async function completeWithoutSession(deps: PipelineDeps, task: Task, execution: Execution, process: ProcessVersion, done: string[]): Promise<RunStateOutput> {
  const completion = { writeStepsDone: done, writeStepsMissing: [], reported: "no_session" as const, judgedAt: nowIso(deps) };
  const set = { completion, resultSummary: "承認済みのステップは前回までの実行ですべて完了しています（freee には再送していません）。", writes: await writesAtEnd(deps, execution), endedAt: nowIso(deps) };
  const { record: completed } = await deps.audit.recordWith(completedEvent(task, execution.executionNo, { withoutSession: true, writeStepsDone: done }), (entry) =>
    deps.store.transitionExecutionWithEntry(execution, "completed", { from: ["running"], set }, entry),
  );
  await completeTask(deps, task, { execution: completed, process });
  return { elapsedSeconds: 0, state: "completed", thread: task.thread };
}

/**
 * The Execution is completed (its entry rode that write): the task too (counted once, by the write that applied),
 * and the Execution and Task cards, drawn from the two records and the run's Process version. `onCompleted` adds
 * what only the caller knows to the metrics.
 */
async function completeTask(deps: PipelineDeps, task: TaskRef, ran: { execution: Execution; process: ProcessVersion }, onCompleted?: () => void): Promise<void> {
  const { executionNo } = ran.execution;
  const { record: done, applied } = await deps.store.transitionTask(task.taskId, "completed", { from: ["executing"] });
  if (applied) {
    deps.metrics.taskEnded("completed");
    onCompleted?.();
  }
  await refreshWithTaskCard(deps, done, { kind: "execution", executionNo }, heldState(done, { executions: [ran.execution], processes: [ran.process] }));
}

export const PollSessionInputSchema = z.object({
  ...ExecutionRunInputSchema.shape,
  sessionId: z.string().check(z.minLength(1)),
  elapsedSeconds: z.number().check(z.nonnegative()),
  thread: z.optional(SlackThreadSchema),
});
export type PollSessionInput = z.infer<typeof PollSessionInputSchema>;

/**
 * One poll: a cancel seen in the DB ends the run (interrupt, best effort); new events become progress; done
 * completes the Execution and the task. Past the run timeout this throws RunTimeoutError (caught → timed_out).
 * Elapsed time is carried in the state and never less than the wall clock since the run started.
 */
export async function pollSessionStep(deps: PipelineDeps, input: PollSessionInput): Promise<RunStateOutput> {
  const { taskId, executionNo, sessionId } = input;
  // Only the task's id and thread are needed here (a status change is the conditional writes' to check).
  const task: TaskRef = input.thread === undefined ? await deps.store.getTaskOrThrow(taskId) : { taskId, thread: input.thread };
  const execution = await deps.store.getExecutionOrThrow(taskId, executionNo);
  if (execution.status === "cancelled") return finalizeCancel(deps, task, execution, input);
  if (execution.status === "completed") return { sessionId, elapsedSeconds: input.elapsedSeconds, state: "completed", thread: task.thread };
  // The freee MCP server found the workspace's freee connection failed: no step can succeed, the run ends now.
  if (execution.fault !== undefined) throw faultError(execution.fault);
  const outcome = await pollOrRecordFailure(deps, execution, sessionId);
  const mayWait = input.elapsedSeconds + deps.limits.pollIntervalSeconds < deps.limits.runTimeoutSeconds;
  const judged = outcome.state === "completed" ? await judgeCompletion(deps, execution, outcome, { mayWait }) : undefined;
  if (judged?.kind === "settling") {
    // The progress is not stored: the next poll reads the turn's end again and judges it then.
    deps.log.info("the session ended its turn with freee writes in flight: judged once they settle", { taskId, executionNo, steps: judged.stepIds });
    return { sessionId, elapsedSeconds: elapsedAfterPoll(deps, input.elapsedSeconds, execution), state: "running", thread: task.thread };
  }
  if (outcome.state === "completed" && judged !== undefined) {
    if (judged.kind === "cancelled") return finalizeCancel(deps, task, judged.execution, input);
    const set = {
      progress: outcome.progress,
      ...(judged.summary === "" ? {} : { resultSummary: judged.summary }),
      completion: judged.completion,
      writes: await writesAtEnd(deps, execution, judged.read),
      ...(await deliverReadResults(deps, task, execution, outcome.progress, judged.summary)),
      usage: outcome.usage,
      endedAt: nowIso(deps),
    };
    let completed: Execution;
    try {
      // Refused too when the freee MCP server stamped a fault since this poll's read: no 完了 over a failed connection.
      ({ record: completed } = await deps.audit.recordWith(completedEvent(task, executionNo, { usage: outcome.usage, completedSteps: outcome.progress.completedSteps }), (entry) =>
        deps.store.transitionExecutionWithEntry(execution, "completed", { from: ["running"], condition: "attribute_not_exists(fault)", set }, entry),
      ));
    } catch (err) {
      if (!(err instanceof StateConflictError) || err instanceof IllegalTransitionError) throw err;
      const found = ExecutionSchema.safeParse(err.current);
      const current = found.success ? found.data : await deps.store.getExecutionOrThrow(taskId, executionNo);
      // A cancel landed since our read: the user's cancel wins, over a fault too (as at the poll's read).
      if (current.status !== "cancelled" && current.fault !== undefined) throw faultError(current.fault);
      return finalizeCancel(deps, task, current, input);
    }
    await completeTask(deps, task, { execution: completed, process: judged.read.process }, () => {
      const started = execution.startedAt === undefined ? undefined : Date.parse(execution.startedAt);
      deps.metrics.executionFinished(started === undefined ? 0 : Math.max(0, (deps.clock().getTime() - started) / 1000), outcome.usage);
    });
    return { sessionId, elapsedSeconds: input.elapsedSeconds, state: "completed", thread: task.thread };
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
  return { sessionId, elapsedSeconds, state: "running", thread: task.thread };
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

/** What the Execution card shows of the progress (lib/ingress/cards/execution-card.ts). */
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
 * docs/architecture.md (limits): the DB says cancelled whatever the interrupt does (the click wrote it, and the MCP server refuses
 * every call of a run that is not live). The run ends `cancelled` once the session took the interrupt: one it did
 * not reach (a 5xx, a timeout) keeps the agent working, so the error is audited and thrown and Step Functions
 * retries this poll, which sends it again; past those retries RecordRunFailure and the reconciler do. Until then
 * the card says 中止中..., which is what is happening.
 */
async function finalizeCancel(deps: PipelineDeps, taskAtPoll: TaskRef, execution: Execution, input: PollSessionInput): Promise<RunStateOutput> {
  await interruptForCancel(deps, taskAtPoll, execution, input.sessionId ?? execution.sessionId);
  // A write still in flight may land after the interrupt: ExecutionRun polls again until it settles.
  const settled = await settleCancel(deps, taskAtPoll, execution, { waitForWrites: true });
  return { sessionId: input.sessionId, elapsedSeconds: input.elapsedSeconds, state: settled === "settled" ? "cancelled" : "running", thread: taskAtPoll.thread };
}
