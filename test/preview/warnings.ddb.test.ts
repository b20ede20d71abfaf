import { describe, expect, it } from "vitest";
import { loadLimits } from "../../lib/core/config/limits";
import { buildPreview } from "../../lib/preview/build";
import type { StepWithNames } from "../../lib/preview/names";
import { stepText } from "../../lib/preview/plan";
import { FreeeReader } from "../../lib/preview/reader";
import { rowText } from "../../lib/preview/rows";
import { usePreviewFreee } from "./support";

/**
 * The change table and its warnings, computed by the preview from the strict freee fake's current values: the
 * issue's three cases (a 22% cut, 時給 → 月給, 340,000円 → 340,000円 dropped), and a change above the configured
 * size, a date in the past, a retired employee.
 */
const f = usePreviewFreee();
const NOW = new Date("2026-12-02T03:00:00Z"); // 2026-12-02 in JST


const read = (order: number): StepWithNames => ({ stepId: `s${order}`, order, tool: "freee_hr_list_employees", toolInput: { year: 2027, month: 1 } });
const pay = (order: number, name: string, amount: number, extra: Record<string, unknown> = {}): StepWithNames => ({
  stepId: `s${order}`,
  order,
  tool: "freee_hr_update_basic_pay_rule",
  toolInput: { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: amount, ...extra },
  nameRefs: [{ field: "employee_id", name }],
});
const preview = (steps: StepWithNames[], thresholds?: { percent: number; yen: number }) => buildPreview(steps, new FreeeReader(f.client()), NOW, thresholds === undefined ? {} : { thresholds });

describe("the issue's cases", () => {
  it("佐藤 花子 320,000円 → 250,000円: a row with the 差額 in 円 and %, a decrease and a change above 20%", async () => {
    const { preview: p } = await preview([read(1), pay(2, "佐藤さん", 250_000)]);
    expect(p.status).toBe("ready");
    const row = p.steps[0]!.rows![0]!;
    expect(row).toEqual({ targetKind: "employee", target: "従業員 佐藤 花子", label: "基本給", before: "320,000円", after: "250,000円", diffYen: -70_000, diffPercent: -21.875, effective: "2027年1月支給分から" });
    expect(rowText(row, "read")).toBe("従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円 ｜ -70,000円（-21.9%） ｜ 2027年1月支給分から");
    expect(p.warnings?.map((w) => [w.kind, w.stepId, w.row])).toEqual([
      ["decrease", "s2", 0],
      ["large_change", "s2", 0],
    ]);
    expect(p.warnings?.[0]?.message).toBe("従業員 佐藤 花子 の基本給が下がります: 320,000円 → 250,000円（-70,000円（-21.9%））。");
    // On the card: the table's head, the row, each warning on its own line with ⚠️.
    const text = stepText({ stepId: "s2", order: 2, tool: "freee_hr_update_basic_pay_rule", toolInput: {} }, p.steps[0], p.warnings);
    expect(text.split("\n").filter((l) => l.startsWith("⚠️ "))).toHaveLength(2);
    expect(text).toContain("_対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用_");
  });

  it("鈴木 一郎 時給 1,500円 → 月給 280,000円: the pay type changes (no 差額 claimed between units)", async () => {
    const { preview: p } = await preview([pay(1, "鈴木さん", 280_000)]);
    expect(p.steps[0]!.rows!.map((r) => rowText(r, "read"))).toEqual([
      "従業員 鈴木 一郎 ｜ 給与形態 ｜ 時給 → 月給 ｜ — ｜ 2027年1月支給分から",
      "従業員 鈴木 一郎 ｜ 基本給 ｜ 1,500円 → 280,000円 ｜ — ｜ 2027年1月支給分から",
    ]);
    expect(p.warnings).toEqual([
      { kind: "pay_type_change", stepId: "s1", message: "従業員 鈴木 一郎 の給与形態が変わります: 時給 → 月給（単位が違うため金額の差は比べられません）。", short: "給与形態の変更（時給 → 月給）: 従業員 鈴木 一郎" },
    ]);
  });

  it("高橋 美咲 340,000円 → 340,000円: dropped from the plan with a note; the approved steps do not hold it", async () => {
    const { steps, preview: p } = await preview([read(1), pay(2, "高橋さん", 340_000), pay(3, "佐藤さん", 330_000)]);
    expect(p.status).toBe("ready");
    // What can be approved (and what the capability is built from) is the version's steps: s2 is not among them.
    expect(steps.map((s) => s.stepId)).toEqual(["s1", "s3"]);
    expect(p.steps.map((s) => s.stepId)).toEqual(["s3"]);
    expect(p.dropped).toEqual([{ stepId: "s2", order: 2, tool: "freee_hr_update_basic_pay_rule", title: "基本給の変更", rows: [expect.objectContaining({ target: "従業員 高橋 美咲", before: "340,000円", after: "340,000円", diffYen: 0 })] }]);
    expect(p.warnings?.find((w) => w.kind === "no_op")).toMatchObject({ stepId: "s2", message: "2. 基本給の変更（従業員 高橋 美咲 基本給 340,000円 → 340,000円）は freee の現在の値と同じため、プランから外しました。承認しても実行されません。" });
  });

  it("a plan whose every write changes nothing cannot be approved (no_changes)", async () => {
    const { steps, preview: p } = await preview([pay(1, "高橋さん", 340_000)]);
    expect(p.status).toBe("no_changes");
    expect(p.steps).toEqual([]);
    expect(p.dropped?.map((d) => d.stepId)).toEqual(["s1"]);
    expect(steps.map((s) => s.stepId)).toEqual(["s1"]); // a version keeps a step; no_changes is never approvable
  });
});

describe("size, dates, retirement", () => {
  it("the size is configurable (limits: WARN_CHANGE_PERCENT / WARN_CHANGE_YEN; default 20% / 1,000,000円)", async () => {
    expect(loadLimits({})).toMatchObject({ warnChangePercent: 20, warnChangeYen: 1_000_000 });
    expect(loadLimits({ WARN_CHANGE_PERCENT: "5", WARN_CHANGE_YEN: "10000" })).toMatchObject({ warnChangePercent: 5, warnChangeYen: 10_000 });
    // 山田 280,000円 → 300,000円 is +7.1%: no warning at 20%, a large change at 5%.
    expect((await preview([pay(1, "山田さん", 300_000)])).preview.warnings).toEqual([]);
    const tight = await preview([pay(1, "山田さん", 300_000)], { percent: 5, yen: 1_000_000 });
    expect(tight.preview.warnings?.map((w) => w.kind)).toEqual(["large_change"]);
    expect(tight.preview.warnings?.[0]?.message).toContain("確認の基準: 5% または 1,000,000円 以上");
    // A created amount of 1,000,000円 or more is large too (a create has no percent).
    const deal = await preview([{ stepId: "s1", order: 1, tool: "freee_accounting_create_deal", toolInput: { issue_date: "2026-12-05", type: "expense", details: [{ account_item_id: 23, tax_code: 136, amount: 1_200_000 }, { account_item_id: 21, tax_code: 136, amount: 999_999 }] } }]);
    expect(deal.preview.warnings?.map((w) => [w.kind, w.row])).toEqual([["large_change", 0]]);
  });

  it("a date in the past: a payroll month before this one, an attendance date before today (JST)", async () => {
    const past = await preview([pay(1, "山田さん", 290_000, { year: 2026, month: 11 })]);
    expect(past.preview.warnings?.map((w) => w.kind)).toEqual(["past_date"]);
    expect(past.preview.warnings?.[0]?.message).toBe("2026年11月支給分は過去の月です（今月は 2026年12月）。その月の給与計算が済んでいる可能性があります。");
    const thisMonth = await preview([pay(1, "山田さん", 290_000, { year: 2026, month: 12 })]);
    expect(thisMonth.preview.warnings).toEqual([]);
    const work = await preview([{ stepId: "s1", order: 1, tool: "freee_hr_update_work_record", toolInput: { employee_id: 1, date: "2026-12-01", work_record_segments: [{ clock_in_at: "2026-12-01 09:00:00", clock_out_at: "2026-12-01 18:00:00" }] } }]);
    expect(work.preview.warnings?.map((w) => [w.kind, w.message])).toEqual([["past_date", "適用日 2026-12-01 は過去の日付です（今日は 2026-12-02）。"]]);
  });

  it("a write to an employee who has retired by then (freee's retire_date)", async () => {
    const company = f.fake.company(101);
    const sato = company.employees.find((e) => e.id === 2)!;
    sato.retire_date = "2027-01-15";
    try {
      const { preview: p } = await preview([pay(1, "佐藤さん", 330_000)]);
      expect(p.warnings?.map((w) => w.kind)).toEqual(["retired_employee"]);
      expect(p.warnings?.[0]?.message).toBe("佐藤 花子 は 2027-01-15 に退職する予定です（この変更の適用は 2027年1月支給分から）。");
    } finally {
      sato.retire_date = null;
    }
    expect((await preview([pay(1, "佐藤さん", 330_000)])).preview.warnings).toEqual([]);
  });
});

describe("a name freee does not know", () => {
  it("the card shows the requested amount and month, the title once, and no emoji shortcode", async () => {
    const { preview: p } = await preview([pay(1, "田中さん", 300_000)]);
    expect(p.status).toBe("blocked");
    const s = p.steps[0]!;
    expect(s.rows?.map((r) => rowText(r, s.current))).toEqual(["従業員 「田中さん」（freee で未確認） ｜ 基本給 ｜ （名前の確認後に読み取ります） → 300,000円 ｜ — ｜ 2027年1月支給分から"]);
    const text = stepText({ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: {} }, s, p.warnings);
    expect(text.match(/基本給の変更/g)).toHaveLength(1);
    expect(text).toContain("⛔ 「田中さん」に一致する従業員が freee に見つかりません。");
    expect(text).not.toMatch(/:[a-z_]+:/);
    expect(p.warnings).toEqual([]);
  });
});
