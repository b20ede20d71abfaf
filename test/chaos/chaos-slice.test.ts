import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkInvariants } from "../../dev/chaos/invariants";
import { CELLS, cellName, type Cell } from "../../dev/chaos/matrix";
import { runCell } from "../../dev/chaos/run";
import { runScenario, type ScenarioRun } from "../../dev/chaos/scenario";
import { startChaosStack, type ChaosStack } from "../../dev/chaos/stack";
import { testDynamoEndpoint } from "../support/dynamo";

/**
 * A slice of `npm run chaos` in CI: a handful of cells across the dependencies, each one whole local task with
 * its fault, which must keep every invariant; and the checker itself shown to see a lie (a card that says
 * something else than the table, a second freee write), so a green cell means something.
 */
const SLICE = [
  "DynamoDB × create × lost",
  "Anthropic Messages × L1 × throttle",
  "Managed Agents × start × lost",
  "Step Functions × approval (prompt) × throttle",
  // The cells that were broken: an approval's effects made by the step it resumes, a cancel's interrupt that
  // fails, a freee write answered 5xx (a run completed on the agent's word at the old value).
  "DynamoDB × approval (prompt) × throttle (audit write)",
  "Slack × approval (prompt) × 5xx",
  "Managed Agents × cancel × 5xx",
  "freee × poll × 5xx",
  // freee's 403 throttle: the run ends FreeeThrottledError with the time to run it again, counted in the ledger.
  "freee × poll × throttle-403×12",
  // A request only the generic tools make: its POST's reply lost after freee made the record.
  "freee × poll × lost (経費申請)",
  // The Process approved through a user group: Slack cannot say whether the clicker is in it. Nothing decided, the
  // member asked to click again, audited and counted; the second click approves.
  "Slack × approval (process) × throttle (user group membership)",
  "Slack × approval (process) × 5xx (user group membership)",
  // freee first: a workspace whose connection is missing, or whose connection read fails, stops at L1.
  "DynamoDB × L1 × throttle (freee connection read)",
  "DynamoDB × L1 × auth (freee connection read)",
];
process.env.LOG_LEVEL = "SILENT";

function cell(name: string): Cell {
  const found = CELLS.find((c) => cellName(c) === name);
  if (found === undefined) throw new Error(`no cell ${name}`);
  return found;
}

describe("chaos slice", { timeout: 60_000 }, () => {
  it.each(SLICE)("%s keeps the invariants", async (name) => {
    const result = await runCell(cell(name), testDynamoEndpoint());
    expect(result.detail).toMatch(/hit [1-9]/);
    expect(result, result.detail).toMatchObject({ ok: true });
  });
});

describe("chaos invariants see a lie", { timeout: 60_000 }, () => {
  let chaos: ChaosStack;
  let run: ScenarioRun;
  beforeAll(async () => {
    chaos = await startChaosStack({ dynamoEndpoint: testDynamoEndpoint() });
    run = await runScenario(chaos, "complete");
  }, 60_000);
  afterAll(async () => chaos?.close());

  it("a clean run passes", async () => {
    expect(await checkInvariants(chaos, run)).toMatchObject({ ok: true, outcome: "task completed; runs completed" });
  });

  it("a greeting ends answered, with no plan, and passes", async () => {
    const greeting = await runScenario(chaos, "greeting");
    expect(await checkInvariants(chaos, greeting)).toMatchObject({ ok: true, outcome: "task answered; runs -" });
  });

  it("a card that shows another state than the table fails the check", async () => {
    const task = await chaos.direct.getTask(run.taskId);
    const card = chaos.slack.workspace.message(task!.cards.task!)!;
    const text = card.text;
    card.text = `${text} (stale)`;
    try {
      const verdict = await checkInvariants(chaos, run);
      expect(verdict.ok).toBe(false);
      expect(verdict.problems.join("\n")).toContain("task card shows");
    } finally {
      card.text = text;
    }
  });

  it("a second freee write fails the check", async () => {
    chaos.freee.requests.push({ method: "PUT", path: "/hr/api/v1/employees/1/basic_pay_rule", query: {}, authorization: undefined, body: {} });
    try {
      const verdict = await checkInvariants(chaos, run);
      expect(verdict.problems).toContain("freee write reached freee 2 times");
    } finally {
      chaos.freee.requests.pop();
    }
  });
});
