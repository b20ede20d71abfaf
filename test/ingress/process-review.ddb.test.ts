import { describe, expect, it } from "vitest";
import { checkBlocks, checkView } from "../../dev/fakes/slack/block-kit";
import type { ProcessVersion } from "../../lib/core/domain/records";
import { buildPreview } from "../../lib/preview/build";
import { yen } from "../../lib/preview/format";
import type { StepWithNames } from "../../lib/preview/names";
import { FreeeReader } from "../../lib/preview/reader";
import { ActionIds, renderCard } from "../../lib/ingress/cards";
import { planApprovalBlocker, planLayout, PlanMessages } from "../../lib/preview/plan";
import { buildFullPlanModal, buildStepInputModal } from "../../lib/ingress/plan-modal";
import { usePreviewFreee } from "../preview/support";
import { baseTask, history, processVersion } from "./fixtures";

/**
 * The approver sees everything they approve: Process cards and the full-plan modal built from previews
 * the strict freee fake answered, checked against Slack's Block Kit limits (the strict Slack fake's rules), with
 * every amount of every write step visible before an approve button exists.
 */
const f = usePreviewFreee();

const limits = { maxReruns: 3 };
const LONG = "備品購入（会議室用モニター・ケーブル・延長保証を含む。納品は 12 月第 1 週、検収後に請求書払い）".padEnd(250, "。");

/** Write steps of varying size: deals of several long lines (distinct amounts) and pay changes. */
function plan(count: number, linesPerDeal = 3): StepWithNames[] {
  return Array.from({ length: count }, (_, i): StepWithNames => {
    const order = i + 1;
    if (order % 5 === 0) return { stepId: `s${order}`, order, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1 + (order % 3), pay_calc_type: "monthly", pay_amount: 300_000 + order * 1_000 } };
    return {
      stepId: `s${order}`,
      order,
      tool: "freee_accounting_create_deal",
      toolInput: {
        issue_date: "2026-12-01",
        type: "expense",
        partner_id: 12,
        details: Array.from({ length: linesPerDeal }, (_, j) => ({ account_item_id: 23, tax_code: 136, amount: 4_800_000 + order * 1_000 + j, description: LONG })),
      },
    };
  });
}

async function pendingVersion(steps: StepWithNames[]): Promise<ProcessVersion> {
  const outcome = await buildPreview(steps, new FreeeReader(f.client()), new Date("2026-11-20T00:00:00Z"));
  return processVersion(1, { status: "pending_approval", steps: outcome.steps, preview: outcome.preview });
}

function amountsOf(version: ProcessVersion): string[] {
  return (version.steps ?? []).flatMap((s) => (Array.isArray(s.toolInput.details) ? (s.toolInput.details as { amount: number }[]).map((d) => yen(d.amount)) : [yen(Number(s.toolInput.pay_amount))]));
}

const textOf = (blocks: unknown[]) => JSON.stringify(blocks);
const buttons = (blocks: unknown[]) => [...textOf(blocks).matchAll(/"action_id":"([a-z_]+)"/g)].map((m) => m[1]);

function card(version: ProcessVersion) {
  return renderCard(history({ task: baseTask({ status: "process_review", currentProcessVersion: 1 }), processes: [version] }), { kind: "process" }, limits);
}

describe("the Process card shows every write in full before [承認]", () => {
  it("25 write steps with long inputs fit the card: every amount, names not ids, 円 with separators; [承認] on the card", async () => {
    const version = await pendingVersion(plan(25));
    expect(planLayout(version).kind).toBe("card");
    const c = card(version);
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
    const text = textOf(c.blocks);
    for (const amount of amountsOf(version)) expect(text, amount).toContain(amount);
    // The change table: 対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用, a row per line of each deal.
    expect(text).toContain("対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用");
    expect(text).toContain("取引（新規・支出） 取引先 株式会社サンプル商事 ｜ 明細 1 消耗品費（課対仕入10%）");
    expect(text).toContain("（新規） → 4,801,000円 ｜ +4,801,000円 ｜ 2026-12-01（発生日）");
    expect(text).toContain("従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 310,000円 ｜ -10,000円（-3.1%） ｜ 2027年1月支給分から");
    expect(text).toContain(LONG.slice(0, 60)); // long descriptions are not cut
    expect(buttons(c.blocks)).toEqual(expect.arrayContaining([ActionIds.approve, ActionIds.reject, ActionIds.showInput]));
    expect(buttons(c.blocks).filter((b) => b === ActionIds.showInput)).toHaveLength(25);
    expect(planApprovalBlocker(version, "card")).toBeUndefined();
  });

  it("the issue's case: a second deal line of 4,800,000円 is on the card (the old card cut inputs at 200 characters)", async () => {
    const version = await pendingVersion([{ stepId: "s1", order: 1, tool: "freee_accounting_create_deal", toolInput: { issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 12_000, description: LONG }, { account_item_id: 23, tax_code: 136, amount: 4_800_000 }] } }]);
    expect(textOf(card(version).blocks)).toContain("明細 2 消耗品費（課対仕入10%） ｜ （新規） → 4,800,000円");
  });

  it("a step longer than a section continues in the next section (nothing cut), with one 「入力 JSON」 button", async () => {
    const version = await pendingVersion(plan(1, 20));
    const layout = planLayout(version);
    if (layout.kind !== "card") throw new Error(layout.kind);
    expect(layout.sections.length).toBeGreaterThan(1);
    expect(layout.sections.every((s) => [...s.text].length <= 2900)).toBe(true);
    const whole = layout.sections.map((s) => s.text).join("\n");
    for (let j = 0; j < 20; j++) expect(whole).toMatch(new RegExp(`明細 ${j + 1} 消耗品費（課対仕入10%）[^\n]* ｜ （新規） → ${yen(4_801_000 + j)} ｜`));
    expect(layout.sections.filter((s) => s.button)).toHaveLength(1);
    expect(checkBlocks(card(version).blocks, "message")).toEqual([]);
  });
});

describe("a plan that does not fit a card is approved from the modal that shows it whole", () => {
  it("60 steps: the card offers [全文を確認して承認] (no [承認]); the modal holds every amount and its submit approves", async () => {
    const version = await pendingVersion(plan(60));
    expect(planLayout(version).kind).toBe("modal");
    const c = card(version);
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
    expect(buttons(c.blocks)).toContain(ActionIds.reviewPlan);
    expect(buttons(c.blocks)).not.toContain(ActionIds.approve);
    expect(textOf(c.blocks)).toContain("全文は「全文を確認して承認」で確認できます");
    const modal = buildFullPlanModal(baseTask(), version);
    expect(checkView(modal)).toEqual([]);
    expect(modal.submit?.text).toBe("承認する");
    const text = textOf(modal.blocks);
    for (const amount of amountsOf(version)) expect(text, amount).toContain(amount);
    expect(planApprovalBlocker(version, "card")).toBe(PlanMessages.needsFullReview);
    expect(planApprovalBlocker(version, "full_plan")).toBeUndefined();
  });

  it("a plan too long even for one section per step in a modal is packed, still whole", async () => {
    const version = await pendingVersion(plan(110, 1));
    const layout = planLayout(version);
    expect(layout.kind).toBe("modal");
    const modal = buildFullPlanModal(baseTask(), version);
    expect(checkView(modal)).toEqual([]);
    const text = textOf(modal.blocks);
    for (const amount of amountsOf(version)) expect(text, amount).toContain(amount);
  });

  it("a plan not even a modal can show whole cannot be approved anywhere: only [却下]", async () => {
    const version = await pendingVersion(plan(110, 12));
    expect(planLayout(version).kind).toBe("too_large");
    const c = card(version);
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
    expect(buttons(c.blocks).filter((b) => b !== ActionIds.showInput)).toEqual([ActionIds.reject]);
    expect(planApprovalBlocker(version, "full_plan")).toBe(PlanMessages.tooLarge);
    expect(buildFullPlanModal(baseTask(), version).submit).toBeUndefined();
  }, 60_000);
});

describe("names, raw input, and plans that cannot be approved as they are", () => {
  it("a blocked preview (an ambiguous name) shows the problem and only [却下]", async () => {
    const company = f.fake.company(101);
    company.employees.push({ id: 7, num: "007", display_name: "山田 花子", entry_date: "2024-04-01", retire_date: null, payRules: [] });
    try {
      const version = await pendingVersion([{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }, nameRefs: [{ field: "employee_id", name: "山田さん" }] }]);
      const c = card(version);
      expect(checkBlocks(c.blocks, "message")).toEqual([]);
      expect(textOf(c.blocks)).toContain("「山田さん」に一致する従業員が 2 名あります（山田 太郎、山田 花子）");
      expect(buttons(c.blocks).filter((b) => b !== ActionIds.showInput)).toEqual([ActionIds.reject]);
      expect(planApprovalBlocker(version, "card")).toBe(PlanMessages.blocked);
      expect(planApprovalBlocker(version, "full_plan")).toBe(PlanMessages.blocked);
    } finally {
      company.employees.pop();
    }
  });

  it("a resolved name shows what it resolved to; 「入力 JSON」 opens the stored input with the id the write uses", async () => {
    const version = await pendingVersion([{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }, nameRefs: [{ field: "employee_id", name: "山田さん" }] }]);
    expect(textOf(card(version).blocks)).toContain("名前: 「山田さん」→ 山田 太郎（ID 1）");
    const modal = buildStepInputModal(version, ["s1"]);
    expect(checkView(modal)).toEqual([]);
    expect(textOf(modal.blocks)).toContain('\\"employee_id\\": 1');
    expect(textOf(modal.blocks)).toContain('\\"pay_amount\\": 300000');
  });

  it("a version without a preview cannot be approved (the pipeline always previews before asking)", () => {
    const version = processVersion(1, { status: "pending_approval", steps: [{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 } }] });
    expect(planApprovalBlocker(version, "card")).toBe(PlanMessages.notPreviewed);
    const c = card(version);
    expect(buttons(c.blocks).filter((b) => b !== ActionIds.showInput)).toEqual([ActionIds.reject]);
    // Even without a preview the write's whole input is on the card.
    expect(textOf(c.blocks)).toContain("pay_amount");
  });
});
