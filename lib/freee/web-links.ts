import type { FreeeRecordRef, ProcessStep } from "../domain/records";
import type { WriteRecord, WriteStepRef } from "../mcp/write-once";

/**
 * Links from a card to the record in freee's own web screens. Only the screens freee documents for checking a
 * record after an API write: a deal (`https://secure.freee.co.jp/deals#deal_id={id}`) and an employee
 * (`https://p.secure.freee.co.jp/employees/{id}`), per the freee MCP guides. Other records get no link rather
 * than a guessed one.
 */
export const FREEE_WEB = {
  accounting: "https://secure.freee.co.jp",
  hr: "https://p.secure.freee.co.jp",
} as const;

export function freeeRecordUrl(ref: Pick<FreeeRecordRef, "kind" | "id">): string {
  return ref.kind === "deal" ? `${FREEE_WEB.accounting}/deals#deal_id=${ref.id}` : `${FREEE_WEB.hr}/employees/${ref.id}`;
}

/** HR writes that change one employee's data: the employee is the record. */
const EMPLOYEE_WRITES = new Set(["freee_hr_update_basic_pay_rule", "freee_hr_update_work_record"]);

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
    if (EMPLOYEE_WRITES.has(step.tool)) {
      const id = positiveInt(step.toolInput.employee_id);
      if (id !== undefined) out.push({ stepId: step.stepId, kind: "employee", id });
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
