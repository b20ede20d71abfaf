/**
 * Japanese formatting of the values a write changes, as the approver reads them: amounts with separators and 円,
 * months as 「2027年1月」, times as HH:MM (JST). No locale data is needed (Lambda's ICU is not relied upon).
 */

export function yen(amount: number): string {
  const sign = amount < 0 ? "-" : "";
  return `${sign}${groupDigits(Math.abs(Math.trunc(amount)))}円`;
}

export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function yearMonth(year: number, month: number): string {
  return `${year}年${month}月`;
}

const PAY_CALC: Record<string, string> = { monthly: "月給", daily: "日給", hourly: "時給" };
export function payCalcLabel(type: string): string {
  return PAY_CALC[type] ?? type;
}

const DEAL_TYPE: Record<string, string> = { income: "収入", expense: "支出" };
export function dealTypeLabel(type: string): string {
  return DEAL_TYPE[type] ?? type;
}

/**
 * HH:MM of a time as freee HR writes it: ISO 8601 (`2026-12-01T09:00:00.000+09:00`) or `2026-12-01 09:00`.
 * A time with another offset is shown in JST, as freee HR shows it.
 */
export function clockTime(value: string | null | undefined): string {
  if (value === null || value === undefined || value.trim() === "") return "未入力";
  const local = /^\d{4}-\d{2}-\d{2}[ T](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(value.trim());
  if (local !== null) return `${local[1]}:${local[2]}`;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return value;
  const jst = new Date(at + 9 * 3600_000);
  return `${String(jst.getUTCHours()).padStart(2, "0")}:${String(jst.getUTCMinutes()).padStart(2, "0")}`;
}

/** The year and month of `YYYY-MM-DD`. */
export function monthOf(date: string): { year: number; month: number } | undefined {
  const m = /^(\d{4})-(\d{2})-\d{2}$/.exec(date);
  return m === null ? undefined : { year: Number(m[1]), month: Number(m[2]) };
}

/** The JST year and month of an instant (what "this month" means to a Japanese company). */
export function jstMonth(at: Date): { year: number; month: number } {
  const jst = new Date(at.getTime() + 9 * 3600_000);
  return { year: jst.getUTCFullYear(), month: jst.getUTCMonth() + 1 };
}

/** 「"…"」 around free text, so an empty note still shows. */
export function quoted(text: string): string {
  return `「${text}」`;
}
