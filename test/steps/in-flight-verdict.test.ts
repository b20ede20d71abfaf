import { describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { WriteOutcomeUnknownError } from "../../lib/core/errors/taxonomy";
import { ExecutionCardTexts } from "../../lib/core/messages/ja";
import { judgeRunCompletion, settlingWrites, writeStepStates, type LedgerEntry } from "../../lib/steps/run-completion";
import { writesAtEnd } from "../../lib/steps/run-writes";
import { renderCard } from "../../lib/ingress/cards";
import { baseTask, execution, history, processVersion } from "../ingress/fixtures";

/**
 * A write the ledger still has `in_flight` when the run ends — freee answered 2xx and the ledger's completion
 * write was lost to a throttle, or the MCP server's Lambda died mid-write — may have landed: the verdict and the
 * card say so, with the change in words and where freee shows it, never 「freee への書き込みはありません」.
 */
const steps: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 } },
  { stepId: "s2", order: 2, tool: "freee_accounting_create_deal", toolInput: { issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 23, tax_code: 136, amount: 1 }] } },
];
const NOW = new Date("2026-12-01T00:30:00Z");
const base = { tool: "t", digest: "d", marker: "m", executionId: "T-e1", attempt: 1, taskId: "T", processVersion: 1 };
const inFlight = (stepId: string, since = "2026-12-01T00:00:00Z"): LedgerEntry => ({ ...base, stepId, since, state: "in_flight" });
const done = (stepId: string): LedgerEntry => ({ ...base, stepId, since: "2026-12-01T00:00:00Z", state: "done", resultText: '{"deal":{"id":77}}', completedAt: "2026-12-01T00:00:01Z", how: "written" });
const preview = {
  readAt: "2026-12-01T00:00:00Z",
  steps: [
    { stepId: "s1", title: "基本給の変更", summary: "山田 太郎 基本給 280,000円 → 300,000円", fields: [] },
    { stepId: "s2", title: "取引の登録", summary: "支出 1円（備品）", fields: [] },
  ],
} as never;

describe("a write left in_flight", () => {
  it("is judged a write that may have landed (WriteOutcomeUnknownError), never a missing one", () => {
    const v = judgeRunCompletion({ steps, processVersion: 1, ledger: [inFlight("s1"), done("s2")], finalMessage: "[result:done]", now: NOW });
    expect(v.error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect((v.error as WriteOutcomeUnknownError).details).toMatchObject({ writeStepsUnknown: ["s1"], writeStepsInFlight: ["s1"], writeStepsMissing: [] });
  });

  it("young, it may still settle; past the in-flight lease it is only unknown", () => {
    const states = writeStepStates(steps, 1, [inFlight("s1", "2026-12-01T00:29:00Z"), inFlight("s2", "2026-12-01T00:00:00Z")]);
    expect(states.unknown).toEqual(["s1", "s2"]);
    expect(settlingWrites(states, NOW)).toEqual(["s1"]);
  });

  it("the failed run's card shows it with the change in words and the freee page, beside no 「freee への書き込みはありません」", async () => {
    const process = processVersion(1, { status: "approved", steps, preview });
    const deps = {
      writes: { listForTask: async () => [inFlight("s1")] },
      store: { getVersionOrThrow: async () => process },
      clock: () => NOW,
    } as unknown as Parameters<typeof writesAtEnd>[0];
    const writes = await writesAtEnd(deps, { taskId: "T", processVersion: 1, executionId: "T-e1" });
    expect(writes).toMatchObject({ done: [], unknown: ["s1"] });
    const h = history({
      task: baseTask({ status: "failed", executionCount: 1, currentProcessVersion: 1 }),
      processes: [process],
      executions: [execution(1, { status: "failed", errorName: "WriteOutcomeUnknownError", writes, progress: { seenEventIds: [], completedSteps: 1, toolErrors: [], steps: [{ stepId: "s1", state: "done", okCalls: 1, errorCalls: 0 }] } })],
    });
    const text = JSON.stringify(renderCard(h, { kind: "execution", executionNo: 1 }, { maxReruns: 3 }).blocks);
    // The row as approved, its outcome 確認が必要, the employee's page in freee, and the note under the table.
    expect(text).toContain(`*1. 基本給の変更* <https://p.secure.freee.co.jp/employees/1|${ExecutionCardTexts.openInFreee}>\\n${ExecutionCardTexts.outcome.unknown} ｜ 山田 太郎 基本給 280,000円 → 300,000円`);
    expect(text).toContain(ExecutionCardTexts.unknownWrites);
    expect(text).not.toMatch(new RegExp(`(?<!このほかに )${ExecutionCardTexts.noWrites}`));
    expect(text).not.toContain(ExecutionCardTexts.notRecorded);
  });
});
