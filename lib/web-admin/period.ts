/**
 * The period a page shows: `?month=YYYY-MM`, or `?since=YYYY-MM-DD&until=YYYY-MM-DD`; by default the current month.
 * The strings are the ones `npm run report -- --since … --until …` takes, compared with the audit entries' `at` the
 * same way (until inclusive), so a month here and the report of that month count the same entries.
 */
export interface Period {
  since: string;
  until: string;
  /** YYYY-MM when the period is one calendar month. */
  month?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^(\d{4})-(\d{2})$/;

export function monthPeriod(month: string): Period | undefined {
  const m = MONTH.exec(month);
  if (m === null) return undefined;
  const [year, mon] = [Number(m[1]), Number(m[2])];
  if (mon < 1 || mon > 12) return undefined;
  const last = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return { since: `${month}-01`, until: `${month}-${String(last).padStart(2, "0")}`, month };
}

export function periodOf(query: { month?: string | undefined; since?: string | undefined; until?: string | undefined }, now: Date): Period {
  if (query.month !== undefined) {
    const month = monthPeriod(query.month);
    if (month !== undefined) return month;
  }
  if (query.since !== undefined && DAY.test(query.since) && query.until !== undefined && DAY.test(query.until) && query.since <= query.until) {
    return { since: query.since, until: query.until };
  }
  return monthPeriod(now.toISOString().slice(0, 7))!;
}

/** Every day of the period, YYYY-MM-DD (at most 92: a longer period is drawn by its first 92 days). */
export function daysOf(period: Period): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${period.since}T00:00:00Z`); days.length < 92; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (day > period.until) break;
    days.push(day);
  }
  return days;
}
