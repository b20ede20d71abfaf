import type { PreviewChange, PreviewStep } from "../core/domain/preview";
import { clockTime, dealTypeLabel, monthOf, payCalcLabel, quoted, yearMonth, yen } from "./format";
import { toolSummary, UPLOAD_RECEIPT_TOOL } from "../freee/tools/summaries";
import { UPLOAD_COVERED_KEYS } from "./upload";
import type { FreeeReader, FreeeWorkRecord, Read } from "./reader";
import { difference } from "./rows";
import type { StepFacts } from "./warnings";

/**
 * Before → after of one write step, in the words the approver reads (Preview): current values read
 * from freee, ids shown as names. A value that cannot be read is said to be so (`current: "unreadable"`), never
 * left out. One describer per write tool of the registry; a write tool without one is shown as its raw input.
 */

export type Described = Pick<PreviewStep, "title" | "summary" | "details" | "changes" | "current" | "currentNote" | "warnings" | "rows"> & {
  /** What the warnings are computed from beyond the rows (lib/preview/warnings.ts). */
  facts?: StepFacts;
  /** freee's name of the record a generic write changes (「東京タクシー」): the table's 対象 names it. */
  targetName?: string;
};
type Describer = (input: Record<string, unknown>, reader: FreeeReader) => Promise<Described>;

const num = (v: unknown): number => (typeof v === "number" ? v : Number(v));
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** An employee's name for the month (with freee's retire date), or a plain statement that freee did not confirm the id. */
async function employeeOf(reader: FreeeReader, id: number, year: number, month: number, warnings: string[]): Promise<{ name: string; retireDate?: string }> {
  const read = await reader.employee(id, year, month);
  if (read.ok) return { name: read.value.display_name, ...(typeof read.value.retire_date === "string" && read.value.retire_date !== "" ? { retireDate: read.value.retire_date } : {}) };
  warnings.push(`従業員 ID ${id} を freee で確認できませんでした（${read.reason}）。`);
  return { name: `従業員 ID ${id}` };
}

const pad = (n: number) => String(n).padStart(2, "0");

function unreadable(what: string, read: Extract<Read<unknown>, { ok: false }>): string {
  return `現在の${what}を freee から読み取れませんでした（${read.reason}）。`;
}

const basicPayRule: Describer = async (input, reader) => {
  const id = num(input.employee_id);
  const year = num(input.year);
  const month = num(input.month);
  const type = String(input.pay_calc_type);
  const amount = num(input.pay_amount);
  const warnings: string[] = [];
  const employee = await employeeOf(reader, id, year, month, warnings);
  const who = employee.name;
  const effective = `${yearMonth(year, month)}支給分から`;
  const from = `（${effective}）`;
  const target = { targetKind: "employee" as const, target: `従業員 ${who}`, effective };
  const facts: StepFacts = { effectiveDate: `${year}-${pad(month)}-01`, effectiveMonth: { year, month }, employee };
  const rule = await reader.basicPayRule(id, year, month);
  const title = "基本給の変更";
  if (!rule.ok) {
    const after = type === "monthly" ? yen(amount) : `${payCalcLabel(type)} ${yen(amount)}`;
    return { title, summary: `${who} 基本給 （現在の値は読み取れませんでした） → ${after}${from}`, details: [], changes: [{ label: "基本給", after }], rows: [{ ...target, label: "基本給", after }], current: "unreadable", currentNote: unreadable("基本給", rule), warnings, facts };
  }
  const current = rule.value;
  const changes: PreviewChange[] = [];
  let summary: string;
  if (current === null) {
    const after = `${payCalcLabel(type)} ${yen(amount)}`;
    summary = `${who} 基本給 未設定 → ${after}${from}`;
    changes.push({ label: "基本給", before: "未設定", after });
    return { title, summary, details: [], changes, rows: [{ ...target, label: "基本給", before: "未設定", after }], current: "read", warnings, facts };
  }
  if (current.pay_calc_type === type) {
    // Monthly pay is what 基本給 usually means: the type is named only when it is not monthly.
    const unit = type === "monthly" ? "" : `（${payCalcLabel(type)}）`;
    summary = `${who} 基本給${unit} ${yen(current.pay_amount)} → ${yen(amount)}${from}`;
    changes.push({ label: `基本給${unit}`, before: yen(current.pay_amount), after: yen(amount) });
    const rows = [{ ...target, label: `基本給${unit}`, before: yen(current.pay_amount), after: yen(amount), ...difference(current.pay_amount, amount) }];
    return { title, summary, details: [], changes, rows, current: "read", warnings, facts };
  }
  const before = `${payCalcLabel(current.pay_calc_type)} ${yen(current.pay_amount)}`;
  const after = `${payCalcLabel(type)} ${yen(amount)}`;
  summary = `${who} 基本給 ${before} → ${after}${from}`;
  changes.push({ label: "給与形態", before: payCalcLabel(current.pay_calc_type), after: payCalcLabel(type) }, { label: "基本給", before: yen(current.pay_amount), after: yen(amount) });
  // Amounts of different units (an hour's pay, a month's) have no meaningful 差額.
  const rows = changes.map((c) => ({ ...target, ...c }));
  return { title, summary, details: [], changes, rows, current: "read", warnings, facts: { ...facts, payType: { from: payCalcLabel(current.pay_calc_type), to: payCalcLabel(type) } } };
};

function ranges(list: readonly { clock_in_at: string; clock_out_at: string }[] | null | undefined): string {
  if (list === null || list === undefined || list.length === 0) return "なし";
  return list.map((r) => `${clockTime(r.clock_in_at)}–${clockTime(r.clock_out_at)}`).join("、");
}

const PAID_HOLIDAY: Record<string, string> = { full: "全休", half: "半休", morning_off: "午前休", afternoon_off: "午後休", hourly: "時間休" };

/** 有給休暇 as freee's kinds say it (時間休 with its minutes). */
function paidHolidays(list: readonly { type: string; mins?: number | null }[] | null | undefined): string {
  if (list === null || list === undefined || list.length === 0) return "なし";
  // Minutes as sent, whatever the type: the card shows every value the write carries.
  return list.map((h) => `${PAID_HOLIDAY[h.type] ?? h.type}${typeof h.mins === "number" ? ` ${h.mins}分` : ""}`).join("、");
}

const workRecord: Describer = async (input, reader) => {
  const id = num(input.employee_id);
  const date = String(input.date);
  const month = monthOf(date);
  const warnings: string[] = [];
  const employee = month === undefined ? { name: `従業員 ID ${id}` } : await employeeOf(reader, id, month.year, month.month, warnings);
  const who = employee.name;
  const read = await reader.workRecord(id, date);
  const now: FreeeWorkRecord | undefined = read.ok ? read.value : undefined;
  const changes: PreviewChange[] = [];
  const field = (label: string, given: boolean, before: () => string, after: string) => {
    if (!given) return;
    changes.push({ label, ...(now === undefined ? {} : { before: before() }), after });
  };
  // The segments, or the single clock_in_at / clock_out_at freee's 午前休 / 午後休 examples use.
  field("出退勤", input.work_record_segments !== undefined, () => ranges(now?.work_record_segments), ranges(input.work_record_segments as { clock_in_at: string; clock_out_at: string }[]));
  field("出勤", input.clock_in_at !== undefined, () => clockTime(now?.clock_in_at), clockTime(str(input.clock_in_at)));
  field("退勤", input.clock_out_at !== undefined, () => clockTime(now?.clock_out_at), clockTime(str(input.clock_out_at)));
  field("休憩", input.break_records !== undefined, () => ranges(now?.break_records), ranges(input.break_records as { clock_in_at: string; clock_out_at: string }[]));
  field("有給休暇", input.paid_holidays !== undefined, () => paidHolidays(now?.paid_holidays), paidHolidays(input.paid_holidays as { type: string; mins?: number }[]));
  field("備考", input.note !== undefined, () => quoted(now?.note ?? ""), quoted(String(input.note)));
  const shown = changes.map((c) => `${c.label} ${c.before ?? "?"} → ${c.after}`).join("、");
  return {
    title: "勤怠の更新",
    summary: `${who} ${date} の勤怠 ${shown === "" ? "（変更する項目がありません）" : shown}`,
    details: [],
    changes,
    rows: changes.map((c) => ({ targetKind: "employee" as const, target: `従業員 ${who}`, ...c, effective: date })),
    facts: { effectiveDate: date, employee },
    current: read.ok ? "read" : "unreadable",
    ...(read.ok ? {} : { currentNote: unreadable("勤怠", read) }),
    warnings,
  };
};

interface DealDetail {
  account_item_id: unknown;
  tax_code: unknown;
  amount: unknown;
  description?: unknown;
}

interface DealPayment {
  date?: unknown;
  from_walletable_type?: unknown;
  from_walletable_id?: unknown;
  amount?: unknown;
}

/** freee's wallet types (from_walletable_type). */
const WALLET_TYPES: Readonly<Record<string, string>> = { bank_account: "銀行口座", credit_card: "クレジットカード", wallet: "現金", private_account_item: "プライベート資金" };

/**
 * Each payment with its wallet as freee finds it — by type and id: a bank account, card or cash wallet of that
 * type, or for `private_account_item` an account item (whose ids are another list). Never by id alone.
 */
async function paymentLines(payments: readonly DealPayment[], reader: FreeeReader, items: Read<{ id: number; name: string }[]>, warnings: string[]): Promise<string[]> {
  const wallets = payments.some((p) => p.from_walletable_type !== "private_account_item") ? await reader.walletables() : undefined;
  if (wallets !== undefined && !wallets.ok) warnings.push(`口座の名前を freee から読み取れませんでした（${wallets.reason}）。`);
  return payments.map((p, i) => {
    const type = String(p.from_walletable_type);
    const id = num(p.from_walletable_id);
    const label = WALLET_TYPES[type] ?? `口座区分 ${type}`;
    let name: string | undefined;
    if (type === "private_account_item") name = items.ok ? items.value.find((a) => a.id === id)?.name : undefined;
    else if (wallets?.ok === true) name = wallets.value.find((w) => w.id === id && w.type === type)?.name;
    const known = type === "private_account_item" ? items.ok : wallets?.ok === true;
    if (known && name === undefined) warnings.push(`${label} ID ${id} は freee に見つかりません。`);
    const wallet = name === undefined ? `${label} ID ${id}` : name === label ? `${label}（ID ${id}）` : `${label}「${name}」（ID ${id}）`;
    return `支払 ${i + 1}: ${String(p.date)} ${wallet} ${yen(num(p.amount))}`;
  });
}

const createDeal: Describer = async (input, reader) => {
  const warnings: string[] = [];
  const details = (Array.isArray(input.details) ? input.details : []) as DealDetail[];
  const [items, taxes, partners] = await Promise.all([
    reader.accountItems(),
    reader.taxCodes(),
    input.partner_id === undefined ? Promise.resolve(undefined) : reader.partners(),
  ]);
  const accountName = (id: number): string => {
    if (!items.ok) return `勘定科目 ID ${id}`;
    const found = items.value.find((a) => a.id === id);
    if (found === undefined) warnings.push(`勘定科目 ID ${id} は freee に見つかりません。`);
    return found?.name ?? `勘定科目 ID ${id}`;
  };
  if (!items.ok) warnings.push(`勘定科目の名前を freee から読み取れませんでした（${items.reason}）。`);
  const taxName = (code: number): string => {
    const found = taxes.ok ? taxes.value.find((t) => t.code === code) : undefined;
    if (found !== undefined) return found.name_ja ?? found.name;
    // freee's code 0 (対象外) is not in its tax code list.
    return code === 0 ? "対象外" : `税区分 ${code}`;
  };
  if (!taxes.ok) warnings.push(`税区分の名前を freee から読み取れませんでした（${taxes.reason}）。`);
  let partner: string | undefined;
  if (input.partner_id !== undefined) {
    const id = num(input.partner_id);
    const found = partners?.ok ? partners.value.find((p) => p.id === id) : undefined;
    if (partners !== undefined && !partners.ok) warnings.push(`取引先の名前を freee から読み取れませんでした（${partners.reason}）。`);
    else if (found === undefined) warnings.push(`取引先 ID ${id} は freee に見つかりません。`);
    partner = found?.name ?? `取引先 ID ${id}`;
  }
  const type = dealTypeLabel(String(input.type));
  const date = String(input.issue_date);
  const lines = details.map((d, i) => {
    // A line may name its account by code instead: that is not described here (the card shows it as given).
    const account = d.account_item_id === undefined ? "勘定科目（ID の指定なし）" : accountName(num(d.account_item_id));
    const description = typeof d.description === "string" && d.description !== "" ? ` ${quoted(d.description)}` : "";
    return { account, amount: num(d.amount), label: `明細 ${i + 1} ${account}（${taxName(num(d.tax_code))}）${description}` };
  });
  const total = lines.reduce((sum, l) => sum + l.amount, 0);
  const partnerText = partner === undefined ? "" : ` 取引先 ${partner}`;
  const summary =
    lines.length === 1
      ? `取引 作成: ${date} ${type} ${lines[0]!.account} ${yen(lines[0]!.amount)}${partnerText}`
      : `取引 作成: ${date} ${type} 合計 ${yen(total)}（明細 ${lines.length} 件）${partnerText}`;
  const extra = input.due_date === undefined ? [] : [`支払期日: ${String(input.due_date)}`];
  if (input.ref_number !== undefined) extra.push(`管理番号: ${String(input.ref_number)}`);
  const payments = (Array.isArray(input.payments) ? input.payments : []) as DealPayment[];
  if (payments.length > 0) {
    extra.push(...(await paymentLines(payments, reader, items, warnings)));
    const paid = payments.reduce((sum, p) => sum + num(p.amount), 0);
    extra.push(paid >= total ? "決済済みの取引として登録されます。" : `未決済残高 ${yen(total - paid)} が残ります。`);
  }
  const target = { targetKind: "deal" as const, target: `取引（新規・${type}）${partner === undefined ? "" : ` 取引先 ${partner}`}`, effective: `${date}（発生日）` };
  return {
    title: "取引の作成",
    summary,
    // The lines are the table's rows; what else the deal carries (its payments, due date) stays in words.
    details: extra,
    changes: lines.map((l, i) => ({ label: `明細 ${i + 1}`, after: `${l.account} ${yen(l.amount)}` })),
    rows: lines.map((l) => ({ ...target, label: l.label, after: yen(l.amount), diffYen: l.amount })),
    current: "none",
    warnings,
    facts: { effectiveDate: date },
  };
};

export const DESCRIBERS: Readonly<Record<string, Describer>> = {
  freee_hr_update_basic_pay_rule: basicPayRule,
  freee_hr_update_work_record: workRecord,
  freee_accounting_create_deal: createDeal,
};

/** A write tool the preview does not know yet: its whole input is what the approver must read. */
export function undescribed(tool: string, description: string | undefined): Described {
  return {
    title: description ?? tool,
    summary: `${description ?? tool}（このツールは変更内容の事前確認に対応していません。入力をそのまま確認してください）`,
    details: [],
    changes: [],
    current: "unreadable",
    currentNote: "このツールの現在の値は事前に読み取れません。",
    warnings: [],
  };
}

/**
 * The input fields each describer puts into words: top-level keys, and for a list (a deal's lines, its payments)
 * the keys of each entry. Tested field by field against the tools' schemas (test/preview/coverage.ddb.test.ts):
 * a field listed here changes what the preview says when its value changes.
 */
const COVERED: Readonly<Record<string, { keys: readonly string[]; lists?: Readonly<Record<string, readonly string[]>> }>> = {
  freee_hr_update_basic_pay_rule: { keys: ["employee_id", "year", "month", "pay_calc_type", "pay_amount"] },
  freee_hr_update_work_record: {
    keys: ["employee_id", "date", "note", "clock_in_at", "clock_out_at"],
    lists: { work_record_segments: ["clock_in_at", "clock_out_at"], break_records: ["clock_in_at", "clock_out_at"], paid_holidays: ["type", "mins"] },
  },
  freee_accounting_create_deal: {
    keys: ["issue_date", "type", "partner_id", "due_date", "ref_number"],
    lists: { details: ["account_item_id", "tax_code", "amount", "description"], payments: ["date", "from_walletable_type", "from_walletable_id", "amount"] },
  },
  [UPLOAD_RECEIPT_TOOL]: { keys: UPLOAD_COVERED_KEYS },
};

/** The input fields a typed write's describer puts into words (`details.amount` for an entry of a list). */
export function coveredFields(tool: string): string[] | undefined {
  const covered = COVERED[tool];
  if (covered === undefined) return undefined;
  return [...covered.keys, ...Object.entries(covered.lists ?? {}).flatMap(([list, keys]) => keys.map((k) => `${list}.${k}`))];
}

/**
 * The part of a write step's input its summary does not put into words (everything, for a tool without a
 * describer): the card shows it raw and says so, so no value of an approved write is ever left unseen.
 */
export function uncoveredInput(tool: string, input: Record<string, unknown>): Record<string, unknown> | undefined {
  // A generic write's preview puts every field of its path, query and body into words (lib/preview/generic.ts).
  if (toolSummary(tool)?.method !== undefined) return undefined;
  const covered = COVERED[tool];
  if (covered === undefined) return Object.keys(input).length === 0 ? undefined : input;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const listed = covered.lists?.[key];
    if (listed === undefined) {
      if (!covered.keys.includes(key)) rest[key] = value;
    } else if (!Array.isArray(value)) {
      rest[key] = value;
    } else {
      value.forEach((entry, i) => {
        if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
          rest[`${key}.${i}`] = entry;
          return;
        }
        for (const [field, v] of Object.entries(entry as Record<string, unknown>)) if (!listed.includes(field)) rest[`${key}.${i}.${field}`] = v;
      });
    }
  }
  return Object.keys(rest).length === 0 ? undefined : rest;
}

export function hasDescriber(tool: string): boolean {
  return tool in DESCRIBERS || tool === UPLOAD_RECEIPT_TOOL || toolSummary(tool)?.method !== undefined;
}
