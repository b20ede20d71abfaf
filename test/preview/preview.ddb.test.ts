import { describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { AuthError } from "../../lib/core/errors/taxonomy";
import { buildPreview } from "../../lib/preview/build";
import { uncoveredInput } from "../../lib/preview/describe";
import type { StepWithNames } from "../../lib/preview/names";
import { FreeeReader } from "../../lib/preview/reader";
import { usePreviewFreee } from "./support";

/**
 * The preview against the strict freee fake (freee's schemas, its error bodies): what each write tool's before →
 * after says, names resolved to the ids the write will use, and every way a value cannot be read said plainly.
 */
const f = usePreviewFreee();
const NOW = new Date("2026-11-20T03:00:00Z");


const step = (order: number, tool: string, toolInput: Record<string, unknown>, extra: Partial<StepWithNames> = {}): StepWithNames => ({ stepId: `s${order}`, order, tool, toolInput, ...extra });
const preview = (steps: StepWithNames[], maxReads?: number) => buildPreview(steps, new FreeeReader(f.client(), maxReads), NOW);

describe("before → after per write tool", () => {
  it("freee_hr_update_basic_pay_rule: 「山田さん」 resolves to employee 1; current pay read for the month", async () => {
    const { steps, preview: p } = await preview([
      step(1, "freee_hr_list_employees", { year: 2027, month: 1 }),
      step(2, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }, { nameRefs: [{ field: "employee_id", name: "山田さん" }] }),
    ]);
    expect(p.status).toBe("ready");
    expect(p.steps).toHaveLength(1);
    expect(p.steps[0]).toMatchObject({
      stepId: "s2",
      summary: "山田 太郎 基本給 280,000円 → 300,000円（2027年1月支給分から）",
      current: "read",
      changes: [{ label: "基本給", before: "280,000円", after: "300,000円" }],
      resolved: [{ field: "employee_id", name: "山田さん", id: 1, label: "山田 太郎" }],
      problems: [],
    });
    // What runs is what was shown: the id is in the stored input; the read step is untouched.
    expect(steps[1]?.toolInput).toEqual({ year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000, employee_id: 1 });
    expect(steps[0]).toEqual(step(1, "freee_hr_list_employees", { year: 2027, month: 1 }));
  });

  it("basic pay: another pay type is named on both sides; an hourly rule stays labelled", async () => {
    const { preview: p } = await preview([
      step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 2, pay_calc_type: "hourly", pay_amount: 2_000 }),
      step(2, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 3, pay_calc_type: "hourly", pay_amount: 1_600 }),
    ]);
    expect(p.steps.map((s) => s.summary)).toEqual([
      "佐藤 花子 基本給 月給 320,000円 → 時給 2,000円（2027年1月支給分から）",
      "鈴木 一郎 基本給（時給） 1,500円 → 1,600円（2027年1月支給分から）",
    ]);
  });

  it("freee_accounting_create_deal: account item and partner names resolved; amounts in 円 with separators", async () => {
    const { steps, preview: p } = await preview([
      step(1, "freee_accounting_create_deal", { issue_date: "2026-12-01", type: "expense", details: [{ tax_code: 136, amount: 4_800_000 }] }, {
        nameRefs: [
          { field: "details.0.account_item_id", name: "消耗品費" },
          { field: "partner_id", name: "サンプル商事" },
        ],
      }),
    ]);
    expect(p.steps[0]).toMatchObject({
      summary: "取引 作成: 2026-12-01 支出 消耗品費 4,800,000円 取引先 株式会社サンプル商事",
      details: [],
      rows: [{ targetKind: "deal", target: "取引（新規・支出） 取引先 株式会社サンプル商事", label: "明細 1 消耗品費（課対仕入10%）", after: "4,800,000円", diffYen: 4_800_000, effective: "2026-12-01（発生日）" }],
      current: "none",
      warnings: [],
    });
    expect(steps[0]?.toolInput).toEqual({ issue_date: "2026-12-01", type: "expense", partner_id: 12, details: [{ tax_code: 136, amount: 4_800_000, account_item_id: 23 }] });
    // The tax name comes from the company's tax codes, the connected company in the path; never the 廃止予定 list.
    expect(f.fake.apiRequests(/^\/api\/1\/taxes\//).map((r) => r.path)).toContain("/api/1/taxes/companies/101");
    expect(f.fake.apiRequests("/api/1/taxes/codes")).toEqual([]);
  });

  it("a deal of several lines shows its total and every line (the second line is not hidden)", async () => {
    const { preview: p } = await preview([
      step(1, "freee_accounting_create_deal", {
        issue_date: "2026-12-01",
        type: "expense",
        partner_id: 11,
        due_date: "2026-12-31",
        details: [
          { account_item_id: 21, tax_code: 136, amount: 12_000, description: "タクシー代" },
          { account_item_id: 23, tax_code: 136, amount: 4_800_000 },
        ],
      }),
    ]);
    expect(p.steps[0]?.summary).toBe("取引 作成: 2026-12-01 支出 合計 4,812,000円（明細 2 件） 取引先 東京タクシー");
    // Every line is a row of the change table (the second is not hidden); the due date stays in words.
    expect(p.steps[0]?.rows?.map((r) => [r.label, r.after])).toEqual([
      ["明細 1 旅費交通費（課対仕入10%） 「タクシー代」", "12,000円"],
      ["明細 2 消耗品費（課対仕入10%）", "4,800,000円"],
    ]);
    expect(p.steps[0]?.details).toEqual(["支払期日: 2026-12-31"]);
  });

  it("freee_hr_update_work_record: current clock times and note read, each changed field before → after", async () => {
    f.fake.company(101).workRecords.set("1|2026-12-01", {
      date: "2026-12-01",
      break_records: [{ clock_in_at: "2026-12-01T12:00:00.000+09:00", clock_out_at: "2026-12-01T13:00:00.000+09:00" }],
      work_record_segments: [{ clock_in_at: "2026-12-01T09:00:00.000+09:00", clock_out_at: "2026-12-01T18:00:00.000+09:00" }],
      clock_in_at: "2026-12-01T09:00:00.000+09:00",
      clock_out_at: "2026-12-01T18:00:00.000+09:00",
      paid_holidays: [],
      day_pattern: "normal_day",
      is_absence: false,
      note: "",
    });
    const { preview: p } = await preview([
      step(1, "freee_hr_update_work_record", { employee_id: 1, date: "2026-12-01", clock_in_at: "2026-12-01 09:30", clock_out_at: "2026-12-01 18:30", note: "電車遅延" }),
    ]);
    expect(p.steps[0]).toMatchObject({ summary: "山田 太郎 2026-12-01 の勤怠 出勤 09:00 → 09:30、退勤 18:00 → 18:30、備考 「」 → 「電車遅延」", current: "read" });
  });

  it("freee's 午前休 example: 出勤 / 退勤 and the paid holiday, each before → after", async () => {
    const { preview: p } = await preview([
      step(1, "freee_hr_update_work_record", { employee_id: 1, date: "2026-12-22", clock_in_at: "2026-12-22 14:00:00", clock_out_at: "2026-12-22 18:00:00", paid_holidays: [{ type: "morning_off" }] }),
    ]);
    expect(p.steps[0]).toMatchObject({ summary: "山田 太郎 2026-12-22 の勤怠 出勤 未入力 → 14:00、退勤 未入力 → 18:00、有給休暇 なし → 午前休", current: "read" });
    // Every field of the 午前休 is in words: nothing of it is left to the raw input.
    expect(uncoveredInput("freee_hr_update_work_record", { employee_id: 1, date: "2026-12-22", clock_in_at: "2026-12-22 14:00:00", clock_out_at: "2026-12-22 18:00:00", paid_holidays: [{ type: "morning_off" }] })).toBeUndefined();
  });
});

describe("a value that cannot be read says so", () => {
  it("an employee freee does not know (404): the current pay is unreadable, with freee's reason, and a warning", async () => {
    const { preview: p } = await preview([step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 99, pay_calc_type: "monthly", pay_amount: 300_000 })]);
    expect(p.status).toBe("ready");
    expect(p.steps[0]).toMatchObject({ current: "unreadable", summary: "従業員 ID 99 基本給 （現在の値は読み取れませんでした） → 300,000円（2027年1月支給分から）" });
    expect(p.steps[0]?.currentNote).toMatch(/^現在の基本給を freee から読み取れませんでした（freee に見つかりません \(404\)/);
    expect(p.steps[0]?.warnings[0]).toMatch(/^従業員 ID 99 を freee で確認できませんでした/);
  });

  it("past the read budget a value is not read, and the card is told so", async () => {
    const { preview: p } = await preview([step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 })], 1);
    expect(p.reads).toBe(1);
    expect(p.steps[0]?.current).toBe("unreadable");
    expect(p.steps[0]?.currentNote).toContain("読み取り上限（1 件）に達したため読み取っていません");
  });

  it("an unknown id in a deal is a warning, not a guess", async () => {
    const { preview: p } = await preview([step(1, "freee_accounting_create_deal", { issue_date: "2026-12-01", type: "expense", partner_id: 999, details: [{ account_item_id: 777, tax_code: 136, amount: 1_000 }] })]);
    expect(p.steps[0]?.summary).toBe("取引 作成: 2026-12-01 支出 勘定科目 ID 777 1,000円 取引先 取引先 ID 999");
    expect(p.steps[0]?.warnings).toEqual(["取引先 ID 999 は freee に見つかりません。", "勘定科目 ID 777 は freee に見つかりません。"]);
  });
});

describe("names that do not settle block the plan (never guessed)", () => {
  it("an ambiguous name lists the candidates; the id stays out of the input", async () => {
    const company = f.fake.company(101);
    company.employees.push({ id: 7, num: "007", display_name: "山田 花子", entry_date: "2024-04-01", retire_date: null, payRules: [] });
    try {
      const { steps, preview: p } = await preview([
        step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }, { nameRefs: [{ field: "employee_id", name: "山田" }] }),
      ]);
      expect(p.status).toBe("blocked");
      expect(p.steps[0]?.problems).toEqual([
        {
          kind: "ambiguous_name",
          field: "employee_id",
          name: "山田",
          candidates: [
            { id: 1, label: "山田 太郎" },
            { id: 7, label: "山田 花子" },
          ],
          message: "「山田」に一致する従業員が 2 名あります（山田 太郎、山田 花子）。却下して、どれかを理由に書いてください。",
        },
      ]);
      expect((steps[0] as ProcessStep).toolInput.employee_id).toBeUndefined();
      // The full name still settles it.
      const again = await preview([step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }, { nameRefs: [{ field: "employee_id", name: "山田 花子" }] })]);
      expect(again.preview.status).toBe("ready");
      expect(again.steps[0]?.toolInput.employee_id).toBe(7);
    } finally {
      company.employees.pop();
    }
  });

  it("an unknown name, a field names cannot stand for, and a name that disagrees with the given id", async () => {
    const { preview: p } = await preview([
      step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }, { nameRefs: [{ field: "employee_id", name: "田中さん" }] }),
      step(2, "freee_accounting_create_deal", { issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 1_000 }] }, { nameRefs: [{ field: "details.0.tax_code_id", name: "課税" }] }),
      step(3, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 2, pay_calc_type: "monthly", pay_amount: 300_000 }, { nameRefs: [{ field: "employee_id", name: "山田" }] }),
    ]);
    expect(p.status).toBe("blocked");
    expect(p.steps.map((s) => s.problems.map((x) => x.kind))).toEqual([["unknown_name"], ["unresolvable_field"], ["name_id_mismatch"]]);
    expect(p.steps[0]?.problems[0]?.message).toBe("「田中さん」に一致する従業員が freee に見つかりません。却下して、正しい名前を理由に書いてください。");
  });
});

describe("freee connection", () => {
  it("no connection: AuthError (the pipeline shows the freee message)", async () => {
    const reader = new FreeeReader(f.client("T-not-connected"));
    await expect(buildPreview([step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 1 })], reader, NOW)).rejects.toBeInstanceOf(AuthError);
  });

  it("the refresh answered invalid_grant: AuthError, not an unreadable value", async () => {
    await f.connect("T-revoked");
    f.fake.expireAccessTokens();
    f.fake.revokeRefreshTokens();
    const reader = new FreeeReader(f.client("T-revoked"));
    await expect(buildPreview([step(1, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 1 })], reader, NOW)).rejects.toBeInstanceOf(AuthError);
    await f.connect(); // the default workspace gets fresh tokens for the tests after this one
  });

  it("a plan without write steps reads nothing from freee", async () => {
    const before = f.fake.requests.length;
    const { preview: p } = await preview([step(1, "freee_hr_list_employees", { year: 2026, month: 12 }), step(2, "agent_decide", { instruction: "確認する" })]);
    expect(p).toMatchObject({ status: "ready", steps: [], reads: 0 });
    expect(f.fake.requests.length).toBe(before);
  });
});
