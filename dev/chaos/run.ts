import { startDynamoDbLocal } from "../local/dynamodb-local";
import { checkAskedAgain, checkEnding, checkInvariants } from "./invariants";
import { cellName, faultLabel, ruleFor, type Cell } from "./matrix";
import { runScenario } from "./scenario";
import { startChaosStack } from "./stack";

/** One row of chaos/results.json. */
export interface CellResult {
  dependency: string;
  step: string;
  fault: string;
  ok: boolean;
  detail: string;
  ms: number;
}

/**
 * One cell: a fresh stack, the cell's fault armed, one whole task, the invariants. A fault that never hit its
 * requests proves nothing, so such a cell is not ok either.
 */
export async function runCell(cell: Cell, dynamoEndpoint?: string): Promise<CellResult> {
  const started = Date.now();
  const chaos = await startChaosStack({
    stepDelayMs: cell.scenario === "cancel" ? 250 : 30,
    ...(cell.agentClaimsDone === true ? { env: { SANDBOX_AGENT_CLAIMS: "done" } } : {}),
    ...(dynamoEndpoint === undefined ? {} : { dynamoEndpoint }),
  });
  const fault = faultLabel(cell);
  try {
    const proxy = chaos.proxies[cell.dependency];
    proxy.arm(ruleFor(cell));
    const run = await runScenario(chaos, cell.scenario, cell.flow);
    const verdict = await checkInvariants(chaos, run);
    const hits = proxy.hits.filter((h) => !h.base).length;
    const problems = [...verdict.problems, ...(cell.expect === undefined ? [] : await checkEnding(chaos, run, cell.expect)), ...(cell.askedAgain === undefined ? [] : await checkAskedAgain(chaos, run, cell.askedAgain))];
    if (hits === 0) problems.unshift("the fault never hit a request of this step");
    const detail = [`${verdict.outcome}`, `hit ${hits}×`, ...problems, `trail: ${run.trail.join(" | ")}`].join("; ");
    return { dependency: cell.dependency, step: cell.step, fault, ok: problems.length === 0, detail, ms: Date.now() - started };
  } catch (err) {
    return { dependency: cell.dependency, step: cell.step, fault, ok: false, detail: `the cell itself failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`, ms: Date.now() - started };
  } finally {
    await chaos.close();
  }
}

/** Run cells, `concurrency` at a time (each has its own stack, ports and table; one DynamoDB Local serves them all). */
export async function runCells(cells: readonly Cell[], concurrency: number, onResult?: (r: CellResult, cell: Cell) => void): Promise<CellResult[]> {
  const dynamo = await startDynamoDbLocal();
  try {
    return await runCellsOn(dynamo.endpoint, cells, concurrency, onResult);
  } finally {
    await dynamo.close();
  }
}

async function runCellsOn(dynamoEndpoint: string, cells: readonly Cell[], concurrency: number, onResult?: (r: CellResult, cell: Cell) => void): Promise<CellResult[]> {
  const results: CellResult[] = new Array(cells.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= cells.length) return;
      const cell = cells[index]!;
      results[index] = await runCell(cell, dynamoEndpoint);
      onResult?.(results[index]!, cell);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

export { cellName };
