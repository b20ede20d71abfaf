import type { AuditEntry } from "../core/domain/records";

/** Excel reads a UTF-8 file as Shift_JIS unless it starts with the byte order mark. */
export const UTF8_BOM = "\uFEFF";

export const AUDIT_CSV_COLUMNS = ["at", "team_id", "task_id", "action", "actor", "layer", "error_type", "error_message", "details"] as const;

/**
 * One cell, safe to open in a spreadsheet: a value that starts like a formula (= + - @, or a tab / carriage return
 * before one) is prefixed with ' so it is shown, never evaluated (OWASP "CSV injection"); every cell is quoted.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** The audit entries of a period as an auditor opens them: BOM, a header row, CRLF line ends (RFC 4180). */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const rows = entries.map((e) => [e.at, e.teamId, e.taskId ?? "", e.action, e.actor, e.layer ?? "", e.errorType ?? "", e.errorMessage ?? "", JSON.stringify(e.details)]);
  return UTF8_BOM + [[...AUDIT_CSV_COLUMNS], ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}
