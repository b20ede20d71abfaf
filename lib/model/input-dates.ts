import { isCalendarDate } from "../freee/openapi/format-rules";

/**
 * The periods of a step's input, checked before approval: each `start_X` / `end_X` pair (`start_issue_date` /
 * `end_issue_date`, freee's period filters) runs forwards, or the approver would see a read that answers nothing.
 * Nested objects (a generic tool's `query`) count too. That each is a real day is freee's format rule for dates
 * (lib/freee/openapi/format-rules.ts), which every step's input has passed by now (lib/model/process-steps.ts).
 */
export function periodProblems(input: unknown, at = ""): string[] {
  if (Array.isArray(input)) return input.flatMap((v, i) => periodProblems(v, `${at}${i}.`));
  if (typeof input !== "object" || input === null) return [];
  const record = input as Record<string, unknown>;
  const problems = Object.entries(record).flatMap(([key, value]) => (typeof value === "string" ? [] : periodProblems(value, `${at}${key}.`)));
  for (const [key, start] of Object.entries(record)) {
    if (!key.startsWith("start_") || typeof start !== "string") continue;
    const endKey = `end_${key.slice("start_".length)}`;
    const end = record[endKey];
    if (typeof end === "string" && isCalendarDate(start) && isCalendarDate(end) && start > end) {
      problems.push(`${at}${key} ${start} is after ${at}${endKey} ${end} (the period must run forwards)`);
    }
  }
  return problems;
}
