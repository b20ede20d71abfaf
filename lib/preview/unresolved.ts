import type { ChangeRow, PreviewProblem } from "../core/domain/preview";
import type { ProcessStep } from "../core/domain/records";
import { getPath } from "../freee/tools/normalise";
import { dealTypeLabel, payCalcLabel, yearMonth, yen } from "./format";

/**
 * A write step whose names freee could not confirm, in the words of the request: who it names (as asked, marked
 * unconfirmed) and what it asks for (the amount, the month), so the approver sees what they are rejecting and can
 * say in the reason what is right. Nothing is read from freee for it.
 */

const UNCONFIRMED = "（freee で未確認）";

function asked(step: ProcessStep, field: string): string | undefined {
  const ref = (step.nameRefs ?? []).find((r) => r.field === field);
  return ref === undefined ? undefined : `「${ref.name}」${UNCONFIRMED}`;
}

export function unresolvedRows(step: ProcessStep): ChangeRow[] {
  const input = step.toolInput;
  switch (step.tool) {
    case "freee_hr_update_basic_pay_rule": {
      const type = String(input.pay_calc_type);
      const amount = Number(input.pay_amount);
      const after = type === "monthly" ? yen(amount) : `${payCalcLabel(type)} ${yen(amount)}`;
      const target = `従業員 ${asked(step, "employee_id") ?? `ID ${String(input.employee_id)}`}`;
      return [{ targetKind: "employee", target, label: "基本給", before: "（名前の確認後に読み取ります）", after, effective: `${yearMonth(Number(input.year), Number(input.month))}支給分から` }];
    }
    case "freee_accounting_create_deal": {
      const details = Array.isArray(input.details) ? (input.details as Record<string, unknown>[]) : [];
      const partner = input.partner_id === undefined ? asked(step, "partner_id") : `ID ${String(input.partner_id)}`;
      const target = `取引（新規・${dealTypeLabel(String(input.type))}）${partner === undefined ? "" : ` 取引先 ${partner}`}`;
      return details.map((d, i) => {
        const account = asked(step, `details.${i}.account_item_id`) ?? (d.account_item_id === undefined ? "" : `勘定科目 ID ${String(d.account_item_id)}`);
        const amount = Number(d.amount);
        return { targetKind: "deal", target, label: `明細 ${i + 1} ${account}`.trim(), after: yen(amount), diffYen: amount, effective: `${String(input.issue_date)}（発生日）` };
      });
    }
    default:
      // Any other write: the names it asked for, each a row (its other values stay in the raw input shown below).
      return (step.nameRefs ?? []).map((r) => ({ targetKind: "other", target: `「${r.name}」${UNCONFIRMED}`, label: r.field, after: String(getPath(input, r.field) ?? "（名前から解決する ID）") }));
  }
}

/** The one line a step with a name problem is summed up by: what it asks, and that it cannot run as it is. */
export function unresolvedSummary(rows: readonly ChangeRow[], problems: readonly PreviewProblem[]): string {
  const what = rows.map((r) => `${r.target} ${r.label} → ${r.after}`).join("、");
  const names = [...new Set(problems.map((p) => `「${p.name}」`))].join("、");
  return `${what === "" ? "この書き込み" : what}（${names} を freee で確認できないため、このままでは実行できません）`;
}
