import type { Execution, ExecutionCompletion, ProcessStep, ProcessVersion } from "../core/domain/records";
import { RecordNotFoundError } from "../core/errors/taxonomy";
import type { PollOutcome } from "../model/agent/agent-runner";
import { effectOfStep } from "../freee/tools/summaries";
import type { PipelineDeps } from "./ports";
import { faultError, judgeRunCompletion, namedByRefusal, settlingWrites, writeStepStates, type LedgerEntry } from "./run-completion";

/**
 * The L4 completion contract applied where a run ends (lib/steps/run-completion.ts), and the rerun's share of
 * it: which steps are left to do.
 */

/** A completed verdict carries what it read (the ledger, the approved Process), so the step does not read them again. */
export type Judged =
  | { kind: "completed"; summary: string; completion: ExecutionCompletion; read: RunRead }
  | { kind: "cancelled"; execution: Execution }
  /** A write is still in flight and may settle by itself: no verdict yet, the run is polled again. */
  | { kind: "settling"; stepIds: string[] };

/** The write ledger and the run's Process version, as read when the session ended its turn. */
export interface RunRead {
  ledger: LedgerEntry[];
  process: ProcessVersion & { steps: ProcessStep[] };
}

/**
 * The session ended its turn: read the write ledger and the approved steps, and judge. A verdict against the run
 * is stored on it, then thrown by name for ExecutionRun's Catch (IncompleteRunError / WriteOutcomeUnknownError /
 * AuthError); a cancel that landed first wins, and a freee fault the MCP server stamped meanwhile explains the
 * failure better than the verdict. The run is not read again here: a verdict for the run is the completing write's
 * to check (it is refused when the run was cancelled or a fault stamped since the poll read it).
 */
export async function judgeCompletion(deps: PipelineDeps, execution: Execution, outcome: Extract<PollOutcome, { state: "completed" }>, options: { mayWait: boolean }): Promise<Judged> {
  const { taskId, executionNo } = execution;
  const [ledger, process] = await Promise.all([deps.writes.listForTask(taskId), approvedProcess(deps, taskId, execution.processVersion)]);
  const steps = process.steps;
  // A write in flight is judged only once it settled (done, released, unknown) or its lease ran out — or when
  // the run has no time left to wait: then it counts as a write that may have landed.
  const settling = settlingWrites(writeStepStates(steps, execution.processVersion, ledger), deps.clock());
  if (settling.length > 0 && options.mayWait) return { kind: "settling", stepIds: settling };
  const verdict = judgeRunCompletion({ steps, processVersion: execution.processVersion, ledger, finalMessage: outcome.resultSummary, now: deps.clock() });
  if (verdict.error !== undefined) {
    const { record, applied } = await deps.store.recordProgress(taskId, executionNo, { progress: outcome.progress, usage: outcome.usage, completion: verdict.completion });
    if (!applied && record.status === "cancelled") return { kind: "cancelled", execution: record };
    if (record.fault !== undefined) throw faultError(record.fault);
    throw namedByRefusal(verdict.error, outcome.progress.toolErrors);
  }
  return { kind: "completed", summary: verdict.summary, completion: verdict.completion, read: { ledger, process } };
}

/**
 * What a run is to do: every approved step, except — on a rerun — the write steps an earlier run of this Task
 * completed (the MCP server refuses them anyway; the prompt does not ask for them).
 */
export async function stepsToRun(deps: PipelineDeps, execution: Execution, steps: readonly ProcessStep[]): Promise<{ remaining: ProcessStep[]; done: string[] }> {
  if (execution.executionNo === 1) return { remaining: [...steps], done: [] };
  const { done } = writeStepStates(steps, execution.processVersion, await deps.writes.listForTask(execution.taskId));
  const doneSet = new Set(done);
  return { remaining: steps.filter((s) => !(effectOfStep(s) === "write" && doneSet.has(s.stepId))), done };
}

async function approvedProcess(deps: PipelineDeps, taskId: string, version: number): Promise<RunRead["process"]> {
  const process = await deps.store.getVersionOrThrow("process", taskId, version);
  const steps = process.steps;
  if (steps === undefined) throw new RecordNotFoundError(`process v${version} has no steps`, { details: { taskId } });
  return { ...process, steps };
}
