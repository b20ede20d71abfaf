/**
 * The requesters' calendar, for the planners: today in Japan and the months 「今月」「先月」「来月」 name, as
 * first and last day. Given to the model beside `<today>` so a period in the request becomes exact dates
 * (freee's `start_issue_date` / `end_issue_date`, `year` / `month`) without the model counting days itself.
 * Computed from the JST calendar date, whatever the Lambda's time zone.
 */

export interface CalendarMonth {
  year: number;
  month: number;
  /** YYYY-MM-DD */
  first: string;
  /** YYYY-MM-DD */
  last: string;
}

const pad = (n: number) => String(n).padStart(2, "0");

export function jstDateOf(now: Date): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo", year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { year: part("year"), month: part("month"), day: part("day") };
}

/** Days in a month of the Gregorian calendar (month 1–12). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The month `offset` months from year/month (offset -1: the month before). */
export function calendarMonth(year: number, month: number, offset = 0): CalendarMonth {
  const index = year * 12 + (month - 1) + offset;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  return { year: y, month: m, first: `${y}-${pad(m)}-01`, last: `${y}-${pad(m)}-${pad(daysInMonth(y, m))}` };
}

/** The `<calendar>` section's text: this month, last month and next month in Japan. */
export function calendarText(now: Date): string {
  const { year, month } = jstDateOf(now);
  const line = (label: string, offset: number) => {
    const c = calendarMonth(year, month, offset);
    return `${label}: ${c.year}年${c.month}月（${c.first} 〜 ${c.last}）`;
  };
  return [line("今月", 0), line("先月", -1), line("来月", 1)].join("\n");
}
