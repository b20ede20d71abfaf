import type { FreeeRecordRef } from "../domain/records";

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
