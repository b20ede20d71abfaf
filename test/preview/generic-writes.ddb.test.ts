import { describe, expect, it } from "vitest";
import { buildPreview } from "../../lib/preview/build";
import type { StepWithNames } from "../../lib/preview/names";
import { FreeeReader } from "../../lib/preview/reader";
import { uncoveredInput } from "../../lib/preview/describe";
import { usePreviewFreee } from "./support";

/**
 * The preview of generic writes and of the typed writes' new inputs, against the strict freee fake:
 * a POST says what will be created with names where the schema gives ids; a PUT shows each value beside the
 * current one read from its GET; a DELETE shows the record it removes; what cannot be read is said so.
 */
const f = usePreviewFreee();
const NOW = new Date("2026-11-20T03:00:00Z");


const step = (order: number, tool: string, toolInput: Record<string, unknown>): StepWithNames => ({ stepId: `s${order}`, order, tool, toolInput });
const preview = async (...steps: StepWithNames[]) => (await buildPreview(steps, new FreeeReader(f.client()), NOW)).preview;

const INVOICE = {
  path: "/iv/invoices",
  body: { billing_date: "2026-12-31", partner_id: 12, partner_title: "御中", subject: "12月分", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", lines: [{ description: "業務委託料", quantity: 1, unit_price: "300000", tax_rate: 10 }] },
};

describe("generic writes: what will change, in Japanese", () => {
  it("a POST (invoice): nothing current to read; every field under freee's label, the partner by name", async () => {
    const p = await preview(step(1, "freee_api_post", INVOICE));
    const s = p.steps[0]!;
    expect(s).toMatchObject({ title: "請求書の作成", current: "none", warnings: [], problems: [] });
    expect(s.summary).toMatch(/^請求書の作成: /);
    expect(s.details).toContain("取引先: 株式会社サンプル商事（ID 12）");
    expect(s.details.find((d) => d.startsWith("明細行 1") || d.includes("業務委託料"))).toContain("300,000円");
    // Every value of the body is in the words: nothing is left for the raw input alone.
    expect(uncoveredInput("freee_api_post", INVOICE)).toBeUndefined();
  });

  it("a POST naming an id freee does not know: shown as the id, with a warning", async () => {
    const p = await preview(step(1, "freee_api_post", { ...INVOICE, body: { ...INVOICE.body, partner_id: 999 } }));
    expect(p.steps[0]!.details).toContain("取引先: ID 999");
    expect(p.steps[0]!.warnings).toEqual(["partner_id 999 は freee に見つかりません。"]);
  });

  it("a PUT (partner): the current record read from its GET, each value sent beside the current one", async () => {
    const before = f.fake.apiRequests("/api/1/partners/11").length;
    const p = await preview(step(1, "freee_api_put", { path: "/api/1/partners/11", body: { name: "東京タクシー株式会社" } }));
    expect(p.steps[0]).toMatchObject({ title: "取引先の更新", current: "read", changes: [{ before: "東京タクシー", after: "東京タクシー株式会社" }] });
    expect(p.steps[0]!.summary).toContain("東京タクシー → 東京タクシー株式会社");
    // 対象 names the partner as freee holds it now, beside its id.
    expect(p.steps[0]!.rows?.map((r) => [r.targetKind, r.target, r.label])).toEqual([["partner", "取引先 東京タクシー（ID 11）", expect.any(String)]]);
    expect(f.fake.apiRequests("/api/1/partners/11").slice(before).map((r) => r.method)).toEqual(["GET"]);
  });

  it("a DELETE (deal): the record it removes; a record freee does not have is said to be unreadable", async () => {
    const p = await preview(step(1, "freee_api_delete", { path: "/api/1/deals/1" }), step(2, "freee_api_delete", { path: "/api/1/deals/99999" }));
    expect(p.steps[0]).toMatchObject({ title: "取引（収入・支出）の削除", current: "read", changes: [{ label: "削除", after: "（削除されます）" }] });
    // The record in freee's words: no field names of the API.
    expect(p.steps[0]!.summary).toContain("発生日 2026-11-05");
    expect(p.steps[0]!.summary).not.toMatch(/issue_date|amount/);
    expect(p.steps[1]).toMatchObject({ current: "unreadable" });
    expect(p.steps[1]!.currentNote).toMatch(/freee に見つかりません \(404\)/);
  });
});

describe("typed writes with freee's own inputs", () => {
  it("attendance: the segments before → after (HH:MM, JST)", async () => {
    const p = await preview(step(1, "freee_hr_update_work_record", { employee_id: 1, date: "2026-12-03", work_record_segments: [{ clock_in_at: "2026-12-03 09:30:00", clock_out_at: "2026-12-03 18:30:00" }] }));
    expect(p.steps[0]!.changes).toEqual([{ label: "出退勤", before: "なし", after: "09:30–18:30" }]);
    expect(p.steps[0]!.summary).toContain("出退勤 なし → 09:30–18:30");
  });

  it("a settled expense: the payment with the wallet's name, and that the deal will be settled; a minus line in 円", async () => {
    const deal = { issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 5_500 }, { account_item_id: 23, tax_code: 136, amount: -500 }], payments: [{ date: "2026-12-01", from_walletable_type: "wallet", from_walletable_id: 32, amount: 5_000 }] };
    const p = await preview(step(1, "freee_accounting_create_deal", deal));
    expect(p.steps[0]!.details).toEqual(expect.arrayContaining(["支払 1: 2026-12-01 現金（ID 32） 5,000円", "決済済みの取引として登録されます。"]));
    // The lines are the change table's rows: the minus line in 円, as a row of its own.
    expect(p.steps[0]!.rows?.map((r) => [r.label, r.after])).toEqual([["明細 1 旅費交通費（課対仕入10%）", "5,500円"], ["明細 2 消耗品費（課対仕入10%）", "-500円"]]);
    expect(uncoveredInput("freee_accounting_create_deal", deal)).toBeUndefined();
  });
});
