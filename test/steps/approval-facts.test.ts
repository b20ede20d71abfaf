import { expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY, snapshotRule } from "../../lib/core/domain/approval-policy";
import type { PreviewWarning, ProcessPreview } from "../../lib/core/domain/preview";
import { planFacts, planWarnings } from "../../lib/steps/approval-facts";

/**
 * What the two-person rule counts as a warning (lib/steps/approval-facts.ts): the change table's warnings by kind
 * and the steps' notes of what could not be read — not the note of a step dropped because it changes nothing.
 */
const warning = (kind: PreviewWarning["kind"], stepId = "s1"): PreviewWarning => ({ kind, stepId, message: `${kind} の説明`, short: kind });
const preview = (warnings: PreviewWarning[], notes: string[] = []): Pick<ProcessPreview, "steps" | "warnings"> =>
  ({ steps: [{ stepId: "s1", tool: "freee_hr_update_basic_pay_rule", title: "基本給の変更", summary: "", details: [], changes: [{ label: "基本給", before: "280,000円", after: "200,000円" }], current: "read", resolved: [], warnings: notes, problems: [] }], warnings }) as Pick<ProcessPreview, "steps" | "warnings">;
const steps = [{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { employee_id: 1, year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 200_000 } }];

it("the change table's warnings count by kind, the steps' notes too; a dropped no-op step's does not", () => {
  expect(planWarnings({ preview: preview([warning("decrease"), warning("large_change")]) as ProcessPreview })).toEqual(["decrease", "large_change"]);
  expect(planWarnings({ preview: preview([warning("no_op", "s2")]) as ProcessPreview })).toEqual([]);
  expect(planWarnings({ preview: preview([], ["従業員 ID 9 を freee で確認できませんでした（not_found）。"]) as ProcessPreview })).toEqual(["従業員 ID 9 を freee で確認できませんでした（not_found）。"]);
  expect(planWarnings({ preview: undefined })).toEqual([]);
});

it("under the default policy a warned write needs two approvers whatever its amount; without a warning, one", () => {
  const at = "2026-12-03T10:00:00.000Z";
  const warned = { steps, preview: preview([warning("decrease")]) as ProcessPreview };
  expect(snapshotRule(DEFAULT_APPROVAL_POLICY, planFacts(warned, planWarnings(warned)), at)).toMatchObject({ required: 2, twoBecause: ["warning"], totalYen: 200_000 });
  const plain = { steps, preview: preview([]) as ProcessPreview };
  expect(snapshotRule(DEFAULT_APPROVAL_POLICY, planFacts(plain, planWarnings(plain)), at)).toMatchObject({ required: 1, twoBecause: [] });
});
