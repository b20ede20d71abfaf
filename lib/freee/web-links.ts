import type { FreeeRecordRef } from "../core/domain/records";

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

/** HR writes that change one employee's data: the employee their approved input names is the record. */
const EMPLOYEE_WRITES = new Set(["freee_hr_update_basic_pay_rule", "freee_hr_update_work_record"]);

/** The record a write step names in its approved input (before freee answers), or undefined. */
export function recordNamedByWrite(step: { stepId: string; tool: string; toolInput: Record<string, unknown> }): FreeeRecordRef | undefined {
  if (!EMPLOYEE_WRITES.has(step.tool)) return undefined;
  const id = step.toolInput.employee_id;
  return typeof id === "number" && Number.isInteger(id) && id > 0 ? { stepId: step.stepId, kind: "employee", id } : undefined;
}

export function isEmployeeWrite(tool: string): boolean {
  return EMPLOYEE_WRITES.has(tool);
}
