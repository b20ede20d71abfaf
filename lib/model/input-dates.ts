import { isRealDate } from "./calendar";

/**
 * The dates of a step's input, checked before approval: freee's schemas check the shape (YYYY-MM-DD) but not the
 * calendar, so 2026-11-31 or a period that ends before it starts would reach the approver as a read that answers
 * nothing. Every date-shaped value is a real day, and each `start_X` / `end_X` pair (`start_issue_date` /
 * `end_issue_date`, freee's period filters) runs forwards. Nested objects (a generic tool's `query`) count too.
 */
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;
/** The date part of freee's time fields (「2026-12-03 09:00:00」). */
const DATE_TIME_SHAPE = /^(\d{4}-\d{2}-\d{2})[ T]\d{2}:\d{2}/;

export function dateProblems(input: unknown, at = ""): string[] {
  if (Array.isArray(input)) return input.flatMap((v, i) => dateProblems(v, `${at}${i}.`));
  if (typeof input !== "object" || input === null) return [];
  const record = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === "string") {
      const day = DATE_SHAPE.test(value) ? value : DATE_TIME_SHAPE.exec(value)?.[1];
      if (day !== undefined && !isRealDate(day)) problems.push(`${at}${key}: ${value} is not a calendar date`);
    } else problems.push(...dateProblems(value, `${at}${key}.`));
  }
  for (const [key, start] of Object.entries(record)) {
    if (!key.startsWith("start_") || typeof start !== "string") continue;
    const endKey = `end_${key.slice("start_".length)}`;
    const end = record[endKey];
    if (typeof end === "string" && isRealDate(start) && isRealDate(end) && start > end) {
      problems.push(`${at}${key} ${start} is after ${at}${endKey} ${end} (the period must run forwards)`);
    }
  }
  return problems;
}
