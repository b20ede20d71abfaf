import type { ChangeRow, PreviewChange, PreviewStep } from "../core/domain/preview";
import { groupDigits } from "./format";

/**
 * The change table (対象 · 項目 · 現在 → 変更後 · 差額 · 適用): its rows from what a describer read, and the one line
 * each row is on a card. The Process card and the Execution card print the same line, the latter with the row's
 * outcome in front, so what was approved and what happened read alike.
 */

export const TABLE_HEAD = "対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用";
/** The head of the Execution card's table: the same columns after the outcome. */
export const OUTCOME_TABLE_HEAD = `結果 ｜ ${TABLE_HEAD}`;

/** 「+20,000円」「-70,000円」「±0円」 */
export function signedYen(amount: number): string {
  const n = Math.trunc(amount);
  return `${n > 0 ? "+" : n < 0 ? "-" : "±"}${groupDigits(Math.abs(n))}円`;
}

/** 「-21.9%」「+7.1%」「±0%」: one decimal, none when it is whole. */
export function signedPercent(percent: number): string {
  const rounded = Math.round(Math.abs(percent) * 10) / 10;
  const sign = rounded === 0 ? "±" : percent > 0 ? "+" : "-";
  return `${sign}${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)}%`;
}

/** The yen amount a shown value stands for (「320,000円」, 「月給 280,000円」), or undefined when it is not one. */
export function amountOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(?:[^\d\s-]+ )?(-?[\d,]+)円$/.exec(text.trim());
  return m === null ? undefined : Number(m[1]!.replace(/,/g, ""));
}

/** 差額 of two amounts: in yen always, in percent of the current one when it is not 0. */
export function difference(before: number | undefined, after: number): Pick<ChangeRow, "diffYen" | "diffPercent"> {
  if (before === undefined) return { diffYen: after };
  return { diffYen: after - before, ...(before === 0 ? {} : { diffPercent: ((after - before) / Math.abs(before)) * 100 }) };
}

/**
 * Rows from a describer's before → after list, for a write whose describer gives none of its own (the generic
 * writes): amounts on both sides give a 差額, the rest shows 「—」.
 */
export function rowsFromChanges(changes: readonly PreviewChange[], target: Pick<ChangeRow, "target" | "targetKind">, effective: string | undefined): ChangeRow[] {
  return changes.map((c) => {
    const after = amountOf(c.after);
    const before = amountOf(c.before);
    const diff = after === undefined || (c.before !== undefined && before === undefined) ? {} : difference(before, after);
    return { ...target, label: c.label, ...(c.before === undefined ? {} : { before: c.before }), after: c.after, ...diff, ...(effective === undefined ? {} : { effective }) };
  });
}

/** 「-70,000円（-21.9%）」, 「+5,500円」, 「—」. */
export function diffText(row: ChangeRow): string {
  if (row.diffYen === undefined) return "—";
  return row.diffPercent === undefined ? signedYen(row.diffYen) : `${signedYen(row.diffYen)}（${signedPercent(row.diffPercent)}）`;
}

/** 現在 as the table shows it: a create has none, a value that could not be read says so. */
export function beforeText(row: ChangeRow, current: PreviewStep["current"] | undefined): string {
  if (row.before !== undefined) return row.before;
  return current === "none" ? "（新規）" : "（読み取れませんでした）";
}

/** One row as plain text (the caller escapes it for mrkdwn). */
export function rowText(row: ChangeRow, current: PreviewStep["current"] | undefined): string {
  return [row.target, row.label, `${beforeText(row, current)} → ${row.after}`, diffText(row), row.effective ?? "—"].join(" ｜ ");
}
