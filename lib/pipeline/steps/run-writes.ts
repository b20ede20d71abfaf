import type { Execution, RunWrites } from "../../domain/records";
import { writtenRecords } from "../../freee/web-links";
import type { PipelineDeps } from "../ports";
import { writeStepStates } from "../run-completion";
import { nowIso } from "./common";

/**
 * What the run wrote to freee, read from the freee MCP server's write ledger when the run ends (not from the
 * agent's word): stored on the Execution so its card can say which writes happened — and that nothing else was.
 */
export async function writesAtEnd(deps: Pick<PipelineDeps, "writes" | "store" | "clock">, execution: Pick<Execution, "taskId" | "processVersion" | "executionId">): Promise<RunWrites> {
  const [ledger, process] = await Promise.all([deps.writes.listForTask(execution.taskId), deps.store.getVersionOrThrow("process", execution.taskId, execution.processVersion)]);
  const steps = process.steps ?? [];
  const states = writeStepStates(steps, execution.processVersion, ledger);
  const byStep = new Map(ledger.filter((w) => w.processVersion === execution.processVersion).map((w) => [w.stepId, w]));
  const mine = (stepId: string) => byStep.get(stepId)?.executionId === execution.executionId;
  return {
    done: states.done.filter(mine),
    earlier: states.done.filter((id) => !mine(id)),
    unknown: states.unknown,
    records: writtenRecords(steps, ledger, execution.processVersion),
    readAt: nowIso(deps),
  };
}
