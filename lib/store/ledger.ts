import type { AuditEntry } from "../core/domain/records";
import type { AuthService } from "../core/errors/taxonomy";
import { authServiceOf, errorClassName, layerName } from "../core/messages/error-names";

/**
 * The ledger: what happened to each task in a period, read from the audit log only. A task counts as
 * completed only when its latest run ended with `execution.completed`; anything without a terminal entry is
 * "in progress" — nothing reads as done that was not (docs/architecture.md, error table).
 */
export type LedgerOutcome = "completed" | "failed" | "timed_out" | "cancelled" | "limit_reached" | "expired" | "not_a_request" | "in_progress";

/** Each outcome in Japanese, as App Home and the web admin show it (one table, so the two never disagree). */
export const LEDGER_OUTCOME_LABELS: Record<LedgerOutcome, string> = {
  completed: "完了",
  failed: "失敗",
  timed_out: "タイムアウト",
  cancelled: "中止",
  limit_reached: "上限到達",
  expired: "承認期限切れ",
  not_a_request: "依頼ではない",
  in_progress: "進行中",
};

export interface TaskLedgerRow {
  taskId: string;
  teamId: string;
  outcome: LedgerOutcome;
  lastAction: string;
  lastAt: string;
  errorClass?: string;
  /** The layer of the failure that ended the task (with errorClass). */
  errorLayer?: string;
  /** For an AuthError: whose credential failed, when the entry says (App Home and the web admin name the two apart). */
  errorService?: AuthService;
}

/** Failures of one layer and class (and, for an AuthError that says, its service). */
export interface FailureCount {
  layer: string;
  errorClass: string;
  service?: AuthService;
  count: number;
}

export interface Ledger {
  since: string;
  until: string;
  tasks: TaskLedgerRow[];
  byOutcome: Record<LedgerOutcome, number>;
  /**
   * The failed (and timed-out) tasks by the layer and class of the failure that ended each: every task once, so
   * these add up to `byOutcome.failed + byOutcome.timed_out` (one task with an unknown write is not counted again
   * for the MCP server's `error.freee` entry).
   */
  failuresByClass: FailureCount[];
  /** Every `error.<layer>` audit entry by layer and class: events, not tasks (one task may have several). */
  errorEntriesByClass: FailureCount[];
  /** MCP tool calls the approved Process did not permit (`freee.tool_refused`), by reason. */
  refusalsByReason: Array<{ reason: string; count: number }>;
  /** Approvals and rejections refused at the click (`<kind>.decision_refused`: the approval policy, a company switch), by reason. */
  approvalRefusalsByReason: Array<{ reason: string; count: number }>;
  /**
   * Process approvals (`process.approved`) by the approval policy's rule that allowed them — a person's click
   * (`policy.admin`, `policy.approver_user`, …) or a read-only plan run on its 実行方針 approval
   * (`policy.reads_after_prompt_approval`); `unspecified` for a plan approved before the policy existed.
   */
  processApprovalsByRule: Array<{ rule: string; count: number }>;
  /**
   * Runs whose session ended but that the L4 completion contract did not accept as 完了 (lib/steps/run-completion.ts),
   * by why: steps left undone or a final message that fails its contract, the freee connection, a write to check.
   */
  runsNotCompleted: Record<(typeof RUN_VERDICTS)[number], number>;
}

const RUN_VERDICTS = [
  "IncompleteRunError",
  "FreeeForbiddenError",
  "FreeeNotFoundError",
  "FreeeRateLimitedError",
  "AuthError",
  "FreeeCompanyChangedError",
  "FreeeThrottledError",
  "WriteOutcomeUnknownError",
] as const;

const OUTCOME_OF_ACTION: Array<[RegExp, LedgerOutcome]> = [
  [/^execution\.completed$/, "completed"],
  [/^execution\.timed_out$/, "timed_out"],
  [/^execution\.cancelled$/, "cancelled"],
  [/^execution\.failed$/, "failed"],
  [/^error\.L[1-4]$/, "failed"],
  [/limit/, "limit_reached"],
  [/expired/, "expired"],
  [/^execution\.started$/, "in_progress"],
  // L1 read no request for work on freee: answered in the thread, no plan (a normal end, not a failure).
  [/^task\.answered$/, "not_a_request"],
];

function outcomeOf(action: string): LedgerOutcome | undefined {
  return OUTCOME_OF_ACTION.find(([pattern]) => pattern.test(action))?.[1];
}

export function buildLedger(entries: readonly AuditEntry[], window: { since: string; until: string }): Ledger {
  const sorted = [...entries].sort((a, b) => a.at.localeCompare(b.at) || a.auditKey.localeCompare(b.auditKey));
  const rows = new Map<string, TaskLedgerRow>();
  const failures = new Map<string, FailureCount>();
  const refusals = new Map<string, number>();
  const approvalRefusals = new Map<string, number>();
  const approvalsByRule = new Map<string, number>();
  const runsNotCompleted = Object.fromEntries(RUN_VERDICTS.map((v) => [v, 0])) as Ledger["runsNotCompleted"];
  for (const entry of sorted) {
    const verdict = RUN_VERDICTS.find((v) => v === entry.errorType);
    if (entry.action === "error.L4" && verdict !== undefined) runsNotCompleted[verdict] += 1;
    if (entry.action === "freee.tool_refused") {
      const reason = typeof entry.details.reason === "string" ? entry.details.reason : "unspecified";
      refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    }
    if (/^(prompt|process)\.decision_refused$/.test(entry.action)) {
      const reason = typeof entry.details.reason === "string" ? entry.details.reason : "unspecified";
      approvalRefusals.set(reason, (approvalRefusals.get(reason) ?? 0) + 1);
    }
    if (entry.action === "process.approved") {
      const rule = typeof entry.details.rule === "string" ? entry.details.rule : "unspecified";
      approvalsByRule.set(rule, (approvalsByRule.get(rule) ?? 0) + 1);
    }
    if (entry.action.startsWith("error.")) {
      const layer = entry.layer ?? entry.action.slice("error.".length);
      count(failures, layer, entry.errorType ?? "UnknownError", authServiceOf(entry.errorType, entry.details));
    }
    if (entry.taskId === undefined) continue;
    const row = rows.get(entry.taskId) ?? { taskId: entry.taskId, teamId: entry.teamId, outcome: "in_progress" as LedgerOutcome, lastAction: entry.action, lastAt: entry.at };
    const outcome = outcomeOf(entry.action);
    if (outcome !== undefined) {
      row.outcome = outcome;
      const failed = outcome === "failed" || outcome === "timed_out";
      row.errorClass = failed ? (entry.errorType ?? row.errorClass) : undefined;
      row.errorLayer = failed ? (entry.layer ?? (entry.action.startsWith("error.") ? entry.action.slice("error.".length) : "L4")) : undefined;
      row.errorService = failed ? (entry.errorType === undefined ? row.errorService : authServiceOf(entry.errorType, entry.details)) : undefined;
    }
    row.lastAction = entry.action;
    row.lastAt = entry.at;
    rows.set(entry.taskId, row);
  }
  const byOutcome: Record<LedgerOutcome, number> = { completed: 0, failed: 0, timed_out: 0, cancelled: 0, limit_reached: 0, expired: 0, not_a_request: 0, in_progress: 0 };
  const failedTasks = new Map<string, FailureCount>();
  for (const row of rows.values()) {
    byOutcome[row.outcome] += 1;
    if (row.outcome !== "failed" && row.outcome !== "timed_out") continue;
    count(failedTasks, row.errorLayer ?? "L4", row.errorClass ?? "UnknownError", row.errorService);
  }
  const byCountThenLayer = (a: FailureCount, b: FailureCount) =>
    b.count - a.count || a.layer.localeCompare(b.layer) || a.errorClass.localeCompare(b.errorClass) || (a.service ?? "").localeCompare(b.service ?? "");
  return {
    ...window,
    tasks: [...rows.values()].sort((a, b) => a.lastAt.localeCompare(b.lastAt)),
    byOutcome,
    failuresByClass: [...failedTasks.values()].sort(byCountThenLayer),
    errorEntriesByClass: [...failures.values()].sort(byCountThenLayer),
    runsNotCompleted,
    refusalsByReason: byCount(refusals),
    approvalRefusalsByReason: byCount(approvalRefusals),
    processApprovalsByRule: byCount(approvalsByRule).map(({ reason, count }) => ({ rule: reason, count })),
  };
}

/** One more failure of this layer, class and service. */
function count(into: Map<string, FailureCount>, layer: string, errorClass: string, service: AuthService | undefined): void {
  const key = `${layer}\u0000${errorClass}\u0000${service ?? ""}`;
  const row = into.get(key) ?? { layer, errorClass, ...(service === undefined ? {} : { service }), count: 0 };
  row.count += 1;
  into.set(key, row);
}

function byCount(counts: ReadonlyMap<string, number>): Array<{ reason: string; count: number }> {
  return [...counts.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

export function renderLedger(ledger: Ledger): string {
  const lines: string[] = [];
  lines.push(`Ledger ${ledger.since} .. ${ledger.until}`);
  lines.push("");
  lines.push("Tasks by outcome");
  for (const [outcome, count] of Object.entries(ledger.byOutcome)) lines.push(`  ${outcome.padEnd(14)} ${String(count).padStart(6)}`);
  lines.push(`  ${"total".padEnd(14)} ${String(ledger.tasks.length).padStart(6)}`);
  lines.push("");
  lines.push("Failed tasks by layer and class (each task once; adds up to failed + timed_out)");
  if (ledger.failuresByClass.length === 0) lines.push("  (none)");
  for (const f of ledger.failuresByClass) lines.push(failureLine(f));
  lines.push("");
  lines.push("Error entries in the audit log by layer and class (events: one task may have several)");
  if (ledger.errorEntriesByClass.length === 0) lines.push("  (none)");
  for (const f of ledger.errorEntriesByClass) lines.push(failureLine(f));
  lines.push("");
  lines.push("Runs not accepted as completed (L4 completion contract)");
  for (const [verdict, count] of Object.entries(ledger.runsNotCompleted)) lines.push(`  ${verdict.padEnd(28)} ${String(count).padStart(6)}  ${errorClassName(verdict)}`);
  lines.push("");
  lines.push("Tool calls refused (not in the approved Process)");
  if (ledger.refusalsByReason.length === 0) lines.push("  (none)");
  for (const r of ledger.refusalsByReason) lines.push(`  ${r.reason.padEnd(28)} ${String(r.count).padStart(6)}`);
  lines.push("");
  lines.push("Approvals refused at the click (approval policy, company switch)");
  if (ledger.approvalRefusalsByReason.length === 0) lines.push("  (none)");
  for (const r of ledger.approvalRefusalsByReason) lines.push(`  ${r.reason.padEnd(28)} ${String(r.count).padStart(6)}`);
  lines.push("");
  lines.push("Process approvals by rule (approval policy)");
  if (ledger.processApprovalsByRule.length === 0) lines.push("  (none)");
  for (const r of ledger.processApprovalsByRule) lines.push(`  ${r.rule.padEnd(34)} ${String(r.count).padStart(6)}`);
  lines.push("");
  lines.push("Tasks");
  for (const t of ledger.tasks) {
    lines.push(`  ${t.lastAt}  ${t.outcome.padEnd(14)} ${t.taskId}  ${t.lastAction}${t.errorClass ? ` (${t.errorClass})` : ""}`);
  }
  return lines.join("\n");
}

/** One row: the layer and class as the code names them, then in Japanese (lib/core/messages/error-names.ts). */
function failureLine(f: FailureCount): string {
  return `  ${f.layer.padEnd(6)} ${f.errorClass.padEnd(28)} ${String(f.count).padStart(6)}  ${layerName(f.layer)} / ${errorClassName(f.errorClass, f.service)}`;
}
