import { CARD_TABLE_ROWS, tableCsv } from "../model/agent/step-results";
import type { Execution, ExecutionProgress, RunWrites, Task } from "../core/domain/records";
import { ExecutionCardTexts } from "../core/messages/ja";
import { logLayerError } from "../core/observability/logger";
import type { FreeeRecordRef, ProcessStep, ProcessVersion } from "../core/domain/records";
import type { WriteRecord, WriteStepRef } from "../store/write-ledger";
import type { PipelineDeps } from "./ports";
import { settlingWrites, writeStepStates } from "./run-completion";
import { nowIso } from "./common";
import { isEmployeeWrite, recordNamedByWrite } from "../freee/web-links";

/**
 * What the run wrote to freee, read from the freee MCP server's write ledger when the run ends (not from the
 * agent's word): stored on the Execution so its card can say which writes happened — and that nothing else was.
 */
export async function writesAtEnd(
  deps: Pick<PipelineDeps, "writes" | "store" | "clock">,
  execution: Pick<Execution, "taskId" | "processVersion" | "executionId">,
  /** The ledger and Process the caller read a moment ago (the completion's judge): not read twice. */
  read?: { ledger: readonly (WriteRecord & WriteStepRef)[]; process: Pick<ProcessVersion, "steps"> },
): Promise<RunWrites> {
  return (await runWrites(deps, execution, read)).writes;
}

/**
 * The run's writes and which of them are still in flight young enough to settle by themselves (the MCP server's
 * Lambda may still be waiting for freee): a cancelled run's card waits for those before it says what was written.
 */
export async function runWrites(
  deps: Pick<PipelineDeps, "writes" | "store" | "clock">,
  execution: Pick<Execution, "taskId" | "processVersion" | "executionId">,
  read?: { ledger: readonly (WriteRecord & WriteStepRef)[]; process: Pick<ProcessVersion, "steps"> },
): Promise<{ writes: RunWrites; settling: string[] }> {
  const [ledger, process] =
    read === undefined
      ? await Promise.all([deps.writes.listForTask(execution.taskId), deps.store.getVersionOrThrow("process", execution.taskId, execution.processVersion)])
      : [read.ledger, read.process];
  const steps = process.steps ?? [];
  const states = writeStepStates(steps, execution.processVersion, ledger);
  const byStep = new Map(ledger.filter((w) => w.processVersion === execution.processVersion).map((w) => [w.stepId, w]));
  const mine = (stepId: string) => byStep.get(stepId)?.executionId === execution.executionId;
  const writes = {
    done: states.done.filter(mine),
    earlier: states.done.filter((id) => !mine(id)),
    unknown: states.unknown,
    records: writtenRecords(steps, ledger, execution.processVersion),
    readAt: nowIso(deps),
  };
  return { writes, settling: settlingWrites(states, deps.clock()) };
}


/**
 * The read results too long for the card, attached to the thread as CSV files before the run is marked completed
 * (a retried step after that sees `completed` and attaches nothing again). A file Slack refuses (an installation
 * without files:write, Slack down) is logged; the card then says the rest is not shown. The run's outcome does not
 * depend on it.
 */
export async function attachReadResults(deps: Pick<PipelineDeps, "cards" | "log" | "audit">, task: Pick<Task, "taskId" | "thread">, executionNo: number, progress: ExecutionProgress, except: ReadonlySet<string> = new Set()): Promise<{ stepId: string; fileId: string }[]> {
  const attached: { stepId: string; fileId: string }[] = [];
  // `except`: steps whose results went to the requester privately (lib/steps/private-results.ts), never the thread.
  for (const step of (progress.steps ?? []).filter((s) => !except.has(s.stepId))) {
    const table = step.table;
    if (table === undefined || step.state !== "done" || table.total <= CARD_TABLE_ROWS) continue;
    try {
      const fileId = await deps.cards.attachFile(task.thread, {
        filename: `${task.taskId}-e${executionNo}-${step.stepId}.csv`,
        title: `${table.label}（${step.stepId}）`,
        content: tableCsv(table),
        comment: ExecutionCardTexts.csvComment(table.label, table.total, table.rows.length),
      });
      attached.push({ stepId: step.stepId, fileId });
    } catch (err) {
      logLayerError(deps.log, "slack", err, { taskId: task.taskId, executionNo, stepId: step.stepId, action: "attach_read_result" });
      await deps.audit.recordError({ teamId: task.thread.teamId, taskId: task.taskId, layer: "slack", subject: `file#execution#${executionNo}#${step.stepId}`, actor: "system:pipeline", error: err });
    }
  }
  return attached;
}

const positiveInt = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);

/**
 * The records the done writes made or changed: the employee a write step names (its approved input), or the
 * deal freee answered with (the ledger keeps freee's answer). A write whose answer names no record gets none.
 */
export function writtenRecords(steps: readonly ProcessStep[], ledger: readonly (WriteRecord & WriteStepRef)[], processVersion: number): FreeeRecordRef[] {
  const out: FreeeRecordRef[] = [];
  for (const entry of ledger) {
    if (entry.state !== "done" || entry.processVersion !== processVersion) continue;
    const step = steps.find((s) => s.stepId === entry.stepId);
    if (step === undefined) continue;
    if (isEmployeeWrite(step.tool)) {
      const named = recordNamedByWrite(step);
      if (named !== undefined) out.push(named);
      continue;
    }
    if (step.tool === "freee_accounting_create_deal") {
      const id = dealIdOf(entry.resultText);
      if (id !== undefined) out.push({ stepId: step.stepId, kind: "deal", id });
    }
  }
  return out;
}

function dealIdOf(resultText: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(resultText);
  } catch {
    // freee's answer was cut or not JSON: the write is done, only the link is missing.
    return undefined;
  }
  const deal = (parsed as { deal?: { id?: unknown } } | null)?.deal;
  return positiveInt(deal?.id);
}
