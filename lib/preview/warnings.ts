import { DEFAULT_LIMITS } from "../core/config/limits";
import type { ChangeRow, PreviewWarning } from "../core/domain/preview";
import { yearMonth, yen } from "./format";
import { diffText, signedPercent } from "./rows";

/**
 * The warnings an approver must not miss, from freee's current values (docs/slack.md, the Process card): a
 * decrease, a change of pay type, a change at or above the configured size, a date in the past, a write to an
 * employee who has retired by then — and a write that changes nothing, which the preview drops from the plan.
 * Pure: the describers hand over the facts they read.
 */

/** When a change counts as large: at or above either bound (limits: WARN_CHANGE_PERCENT, WARN_CHANGE_YEN). */
export interface WarningThresholds {
  percent: number;
  yen: number;
}
export const DEFAULT_WARNING_THRESHOLDS: WarningThresholds = { percent: DEFAULT_LIMITS.warnChangePercent, yen: DEFAULT_LIMITS.warnChangeYen };

/** What a describer read about a write step beyond its rows. */
export interface StepFacts {
  /** The first day the write applies to (YYYY-MM-DD, JST). */
  effectiveDate?: string;
  /** The write applies from a payroll month (a pay rule): the past is an earlier month, not an earlier day. */
  effectiveMonth?: { year: number; month: number };
  /** The employee the write changes, with freee's retire date when it has one. */
  employee?: { name: string; retireDate?: string };
  /** The pay type changes (a pay rule): the amounts are of different units and are not compared. */
  payType?: { from: string; to: string };
}

export interface WarningContext {
  /** Today in JST (YYYY-MM-DD). */
  today: string;
  thresholds: WarningThresholds;
}

type Draft = Omit<PreviewWarning, "stepId">;

/** Every warning of one write step (not the no-op: see noOpWarning). */
export function stepWarnings(stepId: string, rows: readonly ChangeRow[], facts: StepFacts, context: WarningContext): PreviewWarning[] {
  const out: Draft[] = [];
  if (facts.payType !== undefined && facts.payType.from !== facts.payType.to) {
    const who = rows[0]?.target ?? "";
    out.push({
      kind: "pay_type_change",
      message: `${who} の給与形態が変わります: ${facts.payType.from} → ${facts.payType.to}（単位が違うため金額の差は比べられません）。`,
      short: `給与形態の変更（${facts.payType.from} → ${facts.payType.to}）: ${who}`,
    });
  }
  rows.forEach((row, i) => {
    // Amounts of different units (時給 → 月給) are not compared, so neither a decrease nor a size is claimed.
    if (row.diffYen === undefined || facts.payType !== undefined) return;
    const created = row.before === undefined;
    if (!created && row.diffYen < 0) {
      out.push({ kind: "decrease", row: i, message: `${row.target} の${row.label}が下がります: ${row.before} → ${row.after}（${diffText(row)}）。`, short: `減額 ${diffText(row)}: ${row.target} ${row.label}` });
    }
    const { percent, yen: bound } = context.thresholds;
    const byPercent = !created && row.diffPercent !== undefined && Math.abs(row.diffPercent) >= percent;
    const byYen = Math.abs(row.diffYen) >= bound;
    if (byPercent || byYen) {
      const size = byPercent ? signedPercent(row.diffPercent!) : diffText(row);
      const rule = `確認の基準: ${percent}% または ${yen(bound)} 以上`;
      const message = created ? `${row.target} の${row.label} ${row.after} は ${yen(bound)} 以上の金額です（${rule}）。` : `${row.target} の${row.label}の変更が大きい: ${diffText(row)}（${rule}）。`;
      out.push({ kind: "large_change", row: i, message, short: `${created ? "高額" : "大きな変更"} ${created ? row.after : size}: ${row.target} ${row.label}` });
    }
  });
  const past = pastOf(facts, context.today);
  if (past !== undefined) out.push({ kind: "past_date", message: past, short: `過去の日付: ${facts.effectiveMonth === undefined ? facts.effectiveDate : yearMonth(facts.effectiveMonth.year, facts.effectiveMonth.month)}` });
  const retired = facts.employee?.retireDate;
  if (retired !== undefined && facts.effectiveDate !== undefined && retired <= lastDayOf(facts)) {
    const done = retired < context.today;
    out.push({
      kind: "retired_employee",
      message: `${facts.employee!.name} は ${retired} に退職${done ? "しています" : "する予定です"}（この変更の適用は ${facts.effectiveMonth === undefined ? facts.effectiveDate : `${yearMonth(facts.effectiveMonth.year, facts.effectiveMonth.month)}支給分から`}）。`,
      short: `退職${done ? "済み" : "予定"}の従業員（${retired}）: ${facts.employee!.name}`,
    });
  }
  return out.map((w) => ({ ...w, stepId }));
}

/** A step dropped because it changes nothing: said on the card, never approved. */
export function noOpWarning(stepId: string, order: number, title: string, rows: readonly ChangeRow[]): PreviewWarning {
  const what = rows.map((r) => `${r.target} ${r.label} ${r.before ?? ""} → ${r.after}`).join("、");
  return {
    kind: "no_op",
    stepId,
    message: `${order}. ${title}（${what}）は freee の現在の値と同じため、プランから外しました。承認しても実行されません。`,
    short: `変更なしのため除外: ${rows[0]?.target ?? title}`,
  };
}

/**
 * A write that changes nothing: freee's current values were read and every row already holds the value to be
 * written.
 */
export function isNoOp(rows: readonly ChangeRow[], current: "read" | "unreadable" | "none"): boolean {
  return current === "read" && rows.length > 0 && rows.every((r) => r.before !== undefined && r.before === r.after);
}

function pastOf(facts: StepFacts, today: string): string | undefined {
  if (facts.effectiveMonth !== undefined) {
    const { year, month } = facts.effectiveMonth;
    const [ty, tm] = today.split("-").map(Number) as [number, number];
    if (year * 12 + month >= ty * 12 + tm) return undefined;
    return `${yearMonth(year, month)}支給分は過去の月です（今月は ${yearMonth(ty, tm)}）。その月の給与計算が済んでいる可能性があります。`;
  }
  if (facts.effectiveDate === undefined || facts.effectiveDate >= today) return undefined;
  return `適用日 ${facts.effectiveDate} は過去の日付です（今日は ${today}）。`;
}

/** The last day the write applies to: the end of its payroll month, or its date. */
function lastDayOf(facts: StepFacts): string {
  if (facts.effectiveMonth === undefined) return facts.effectiveDate!;
  const { year, month } = facts.effectiveMonth;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, "0")}-${String(last).padStart(2, "0")}`;
}

/** Today's date in JST (what "the past" means to a Japanese company). */
export function jstToday(now: Date): string {
  return new Date(now.getTime() + 9 * 3600_000).toISOString().slice(0, 10);
}
