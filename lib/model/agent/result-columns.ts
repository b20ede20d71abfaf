import generated from "./result-columns.generated.json";
import { ownEntry } from "../../core/own-entry";

/**
 * The columns of a read result as a person reads them: freee's own Japanese label for each field and what its enum
 * values mean (from freee's response schemas, compiled by scripts/generate-result-columns.ts), internal columns
 * hidden — the company, ids a person does not use, tax codes — and personal data (pension and insurance numbers,
 * birth dates) never put on a Slack card. A field freee's schema does not describe is shown only when its
 * Japanese name is known here; nothing reaches the card under an English key.
 */

type Column = { label: string; enum?: Record<string, string> };
const SCHEMA_COLUMNS = generated as Record<string, Record<string, Column>>;

/** Fields freee answers with beyond its schema's descriptions (the name beside an id, a total). */
const EXTRA_LABELS: Record<string, string> = {
  partner_name: "取引先",
  account_item_name: "勘定科目",
  employee_name: "従業員",
  display_name: "表示名",
  name: "名前",
  amount: "金額",
  issue_date: "発生日",
  status: "状態",
  type: "種別",
};

/** Where freee's description is a sentence, not a name. */
const LABEL_OVERRIDES: Record<string, Record<string, string>> = {
  employees: { payroll_calculation: "給与計算の対象" },
  companies: { role: "権限" },
};

/** Enum values freee's descriptions do not explain. */
const EXTRA_MEANINGS: Record<string, Record<string, Record<string, string>>> = {
  walletables: { type: { bank_account: "銀行口座", credit_card: "クレジットカード", wallet: "現金・その他" } },
};

/** Never shown: the company (always the connected one), internal codes, and personal data. */
const HIDDEN = /^(company_id|tax_code|default_tax_code|base_pension_num|employment_insurance_reference_number|birth_date|user_id|bank_id|my_number.*|.*_kana)$/;
/** Ids other than a record's own number are internal references; a record's id is hidden too (its name is shown). */
const INTERNAL_ID = /(^|_)id$/;
/** Hidden where a list has a better column for the same label (taxes: the display name over the system name). */
const HIDDEN_IN: Record<string, ReadonlySet<string>> = { taxes: new Set(["name"]) };

/** Which fields come first when a list has more than fit (the rest follow in freee's order). */
const PREFERRED = ["num", "display_name", "name", "issue_date", "date", "due_date", "type", "partner_name", "amount", "due_amount", "status", "entry_date", "retire_date", "code", "ref_number", "account_category"];

/** A field no list shows (scripts/generate-result-columns.ts leaves it out of the compiled table). */
export function neverShown(field: string): boolean {
  return HIDDEN.test(field) || INTERNAL_ID.test(field);
}

/** The label of a field of this list, or undefined when it is not to be shown. */
export function columnLabel(list: string, field: string): string | undefined {
  if (neverShown(field) || ownEntry(HIDDEN_IN, list)?.has(field) === true) return undefined;
  return ownEntry(ownEntry(LABEL_OVERRIDES, list), field) ?? ownEntry(ownEntry(SCHEMA_COLUMNS, list), field)?.label ?? ownEntry(EXTRA_LABELS, field);
}

/** The fields to show, in order, at most `max`, one per label (two fields freee labels alike show once). */
export function shownFields(list: string, fields: readonly string[], max: number): string[] {
  const ordered = [...PREFERRED.filter((f) => fields.includes(f)), ...fields.filter((f) => !PREFERRED.includes(f))];
  const labels = new Set<string>();
  const out: string[] = [];
  for (const field of ordered) {
    const label = columnLabel(list, field);
    if (label === undefined || labels.has(label)) continue;
    labels.add(label);
    out.push(field);
    if (out.length === max) break;
  }
  return out;
}

/** A value in words: an enum value as freee explains it, a flag as はい / いいえ; undefined leaves it as is. */
export function meaningOf(list: string, field: string, value: string | number | boolean): string | undefined {
  const meanings = ownEntry(ownEntry(SCHEMA_COLUMNS, list), field)?.enum ?? ownEntry(ownEntry(EXTRA_MEANINGS, list), field);
  const meaning = ownEntry(meanings, String(value));
  if (meaning !== undefined) return meaning;
  if (typeof value === "boolean") return value ? "はい" : "いいえ";
  return undefined;
}
