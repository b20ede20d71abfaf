import { describe, expect, it } from "vitest";
import { WriteOutcomeUnknownError } from "../../lib/core/errors/taxonomy";
import { reconcilerFor, writeMarker, type ReadFreee } from "../../lib/freee/write-reconciler";
import type { FreeeRequest, FreeeResult } from "../../lib/freee/types";
import { OPERATIONS } from "../../lib/freee/openapi/operations";
import { FREEE_TOOLS } from "../../lib/freee/tools/registry";

/** Reading a freee write back: the marker per tool, and what counts as found, absent or unsettled. */
const ok = (data: unknown): FreeeResult => ({ ok: true, status: 200, data });
const scripted = (answers: Array<FreeeResult | Error>): { read: ReadFreee; asked: FreeeRequest[] } => {
  const asked: FreeeRequest[] = [];
  return {
    asked,
    read: async (req) => {
      asked.push(req);
      const next = answers.shift();
      if (next === undefined) throw new Error("no more scripted answers");
      if (next instanceof Error) throw next;
      return next;
    },
  };
};

describe("every write tool can be read back", () => {
  it("each operation that writes has a reconciler (its write class); reads need none; typed write tools have theirs", () => {
    for (const { operation, effect } of OPERATIONS) {
      const path = operation.path.replace(/\{[^}]+\}/g, "2026-01-10");
      expect(reconcilerFor({ method: operation.method, path }) !== undefined, `${operation.method} ${operation.path}`).toBe(effect === "write");
    }
    for (const tool of FREEE_TOOLS.filter((t) => t.operation !== undefined && !t.readOnly)) {
      const [method, template] = tool.operation!.split(" ") as ["POST", string];
      expect(reconcilerFor({ method, path: template.replace(/\{[^}]+\}/g, "1") }), tool.name).toBeDefined();
    }
  });

  it("the marker names task, Process version and step, and stays at most 64 characters", () => {
    expect(writeMarker({ taskId: "T1-C1-1700000000_000100", processVersion: 2, stepId: "s4" })).toBe("sma:T1-C1-1700000000_000100:p2:s4");
    const long = writeMarker({ taskId: `T${"x".repeat(80)}`, processVersion: 1, stepId: "s1" });
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^sma:Tx+:[0-9a-f]{16}$/);
    expect(long).not.toBe(writeMarker({ taskId: `T${"x".repeat(80)}`, processVersion: 1, stepId: "s2" }));
  });
});

describe("create_deal: marked with ref_number (管理番号), found by it", () => {
  const deal = reconcilerFor({ method: "POST", path: "/api/1/deals" })!;
  const req = deal.mark({ method: "POST", path: "/api/1/deals", body: { company_id: 101, issue_date: "2026-12-01", type: "expense", partner_id: 11, details: [] } }, "sma:T:p1:s1");

  it("the marker goes into ref_number; the read back asks for that day, type and partner, 100 a page", async () => {
    expect(req.body!.ref_number).toBe("sma:T:p1:s1");
    const { read, asked } = scripted([ok({ deals: [{ id: 5, ref_number: "sma:T:p1:s1" }], meta: { total_count: 1 } })]);
    expect(await deal.find(read, req, "sma:T:p1:s1")).toEqual({ outcome: "found", data: { deal: { id: 5, ref_number: "sma:T:p1:s1" } } });
    expect(asked[0]!.query).toEqual({ company_id: 101, type: "expense", start_issue_date: "2026-12-01", end_issue_date: "2026-12-01", partner_id: 11, limit: 100, offset: 0 });
  });

  it("pages on until found, and is absent when the last page ends without it", async () => {
    const page = (n: number, ref: string | null = null) => Array.from({ length: n }, (_, i) => ({ id: i, ref_number: ref }));
    const found = scripted([ok({ deals: page(100), meta: { total_count: 150 } }), ok({ deals: [...page(49), { id: 99, ref_number: "sma:T:p1:s1" }], meta: { total_count: 150 } })]);
    expect((await deal.find(found.read, req, "sma:T:p1:s1")).outcome).toBe("found");
    expect(found.asked.map((a) => a.query!.offset)).toEqual([0, 100]);
    const absent = scripted([ok({ deals: page(100, "other"), meta: { total_count: 130 } }), ok({ deals: page(30, "other"), meta: { total_count: 130 } })]);
    expect(await deal.find(absent.read, req, "sma:T:p1:s1")).toEqual({ outcome: "absent" });
  });

  it("cannot settle: a failed read, a refused read, a malformed list, or more deals than it reads", async () => {
    await expect(deal.find(scripted([new Error("boom")]).read, req, "m")).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
    await expect(deal.find(scripted([{ ok: false, status: 403, kind: "forbidden", messages: [] }]).read, req, "m")).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
    await expect(deal.find(scripted([ok({ items: [] })]).read, req, "m")).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
    const full = Array.from({ length: 20 }, () => ok({ deals: Array.from({ length: 100 }, () => ({ ref_number: null })), meta: { total_count: 5000 } }));
    await expect(deal.find(scripted(full).read, req, "m")).rejects.toThrow(/more than 2000 deals/);
  });
});

describe("the field a marker uses stays the plan's", () => {
  it("a deal, journal or invoice whose plan sets 管理番号 / 社内メモ keeps that value, carries no marker and is never repeated", async () => {
    for (const [path, field] of [["/api/1/deals", "ref_number"], ["/api/1/manual_journals", "ref_number"], ["/iv/invoices", "memo"]] as const) {
      const req: FreeeRequest = { method: "POST", path, body: { company_id: 101, issue_date: "2026-12-01", billing_date: "2026-12-01", [field]: "A-2026-12" } };
      const reconciler = reconcilerFor(req)!;
      expect(reconciler.markerField, path).toBeUndefined();
      expect(reconciler.mark(req, "sma:T:p1:s1").body![field]).toBe("A-2026-12");
      const { read, asked } = scripted([]);
      await expect(reconciler.find(read, req, "sma:T:p1:s1")).rejects.toThrow(new RegExp(`${field} は計画が指定した値`));
      expect(asked).toEqual([]);
      // Left empty, the same operation carries the marker there.
      expect(reconcilerFor({ ...req, body: { company_id: 101 } })!.markerField).toBe(field);
    }
  });
});

describe("HR PUTs have no free field: read back by value", () => {
  it("basic pay: the stored rule equals what was sent → found; another value or none → absent", async () => {
    const pay = reconcilerFor({ method: "PUT", path: "/hr/api/v1/employees/1/basic_pay_rule" })!;
    const req: FreeeRequest = { method: "PUT", path: "/hr/api/v1/employees/1/basic_pay_rule", body: { company_id: 101, year: 2027, month: 1, employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 300000 } } };
    expect(pay.mark(req, "m")).toEqual(req);
    const same = scripted([ok({ employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 300000 } })]);
    expect((await pay.find(same.read, req, "m")).outcome).toBe("found");
    expect(same.asked[0]).toEqual({ method: "GET", path: req.path, query: { company_id: 101, year: 2027, month: 1 } });
    expect((await pay.find(scripted([ok({ employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 280000 } })]).read, req, "m")).outcome).toBe("absent");
    expect((await pay.find(scripted([ok({ employee_basic_pay_rule: null })]).read, req, "m")).outcome).toBe("absent");
  });

  it("work record: times compare as instants (freee answers with an offset), every sent field must match", async () => {
    const work = reconcilerFor({ method: "PUT", path: "/hr/api/v1/employees/1/work_records/2026-01-10" })!;
    const req: FreeeRequest = {
      method: "PUT",
      path: "/hr/api/v1/employees/1/work_records/2027-01-05",
      body: { company_id: 101, clock_in_at: "2027-01-05 09:00:00", clock_out_at: "2027-01-05 18:00", note: "在宅", break_records: [{ clock_in_at: "2027-01-05 12:00", clock_out_at: "2027-01-05 13:00" }] },
    };
    const stored = {
      clock_in_at: "2027-01-05T09:00:00.000+09:00",
      clock_out_at: "2027-01-05T09:00:00.000Z",
      note: "在宅",
      break_records: [{ clock_in_at: "2027-01-05T03:00:00Z", clock_out_at: "2027-01-05T13:00:00+09:00" }],
      day_pattern: "normal_day",
    };
    expect((await work.find(scripted([ok(stored)]).read, req, "m")).outcome).toBe("found");
    expect((await work.find(scripted([ok({ ...stored, note: "出社" })]).read, req, "m")).outcome).toBe("absent");
    expect((await work.find(scripted([ok({ ...stored, clock_in_at: "2027-01-05T10:00:00+09:00" })]).read, req, "m")).outcome).toBe("absent");
    expect((await work.find(scripted([ok({ ...stored, break_records: [] })]).read, req, "m")).outcome).toBe("absent");
  });
});

describe("write classes of the generic operations", () => {
  it("a manual journal: marked in ref_number, found by the list filtered by that ref_number and day", async () => {
    const journal = reconcilerFor({ method: "POST", path: "/api/1/manual_journals" })!;
    const req = journal.mark({ method: "POST", path: "/api/1/manual_journals", body: { company_id: 101, issue_date: "2026-12-01", details: [] } }, "sma:0123456789abcdef");
    expect(req.body!.ref_number).toBe("sma:0123456789abcdef");
    const { read, asked } = scripted([ok({ manual_journals: [{ id: 9, ref_number: "sma:0123456789abcdef" }] })]);
    expect(await journal.find(read, req, "sma:0123456789abcdef")).toEqual({ outcome: "found", data: { manual_journal: { id: 9, ref_number: "sma:0123456789abcdef" } } });
    expect(asked[0]!.query).toMatchObject({ company_id: 101, ref_number: "sma:0123456789abcdef", start_issue_date: "2026-12-01", end_issue_date: "2026-12-01" });
  });

  it("an invoice: marked in 社内メモ (memo), found among that billing day's invoices of the partner", async () => {
    const invoice = reconcilerFor({ method: "POST", path: "/iv/invoices" })!;
    const req = invoice.mark({ method: "POST", path: "/iv/invoices", body: { company_id: 101, billing_date: "2026-12-31", partner_id: 12 } }, "sma:T:p1:s2");
    expect(req.body!.memo).toBe("sma:T:p1:s2");
    const { read, asked } = scripted([ok({ invoices: [{ id: 3, memo: "other" }], meta: { total_count: 1 } })]);
    expect(await invoice.find(read, req, "sma:T:p1:s2")).toEqual({ outcome: "absent" });
    expect(asked[0]).toMatchObject({ path: "/iv/invoices", query: { start_billing_date: "2026-12-31", end_billing_date: "2026-12-31", partner_ids: "12" } });
  });

  it("a DELETE: the GET of the same path answering 404 is the delete done; 200 is not; another refusal cannot settle it", async () => {
    const gone = reconcilerFor({ method: "DELETE", path: "/api/1/deals/5" })!;
    const req: FreeeRequest = { method: "DELETE", path: "/api/1/deals/5", query: { company_id: 101 } };
    const notFound = scripted([{ ok: false, status: 404, kind: "not_found", messages: [] }]);
    expect((await gone.find(notFound.read, req, "m")).outcome).toBe("found");
    expect(notFound.asked[0]).toEqual({ method: "GET", path: "/api/1/deals/5", query: { company_id: 101 } });
    expect((await gone.find(scripted([ok({ deal: { id: 5 } })]).read, req, "m")).outcome).toBe("absent");
    await expect(gone.find(scripted([{ ok: false, status: 403, kind: "forbidden", messages: [] }]).read, req, "m")).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
  });

  it("a PUT: the record read from the same path shows every value sent → found; a different value → absent; a value freee does not show → unsettled", async () => {
    const values = reconcilerFor({ method: "PUT", path: "/api/1/partners/11" })!;
    const req: FreeeRequest = { method: "PUT", path: "/api/1/partners/11", body: { company_id: 101, name: "東京タクシー株式会社" } };
    const same = scripted([ok({ partner: { id: 11, name: "東京タクシー株式会社" } })]);
    expect((await values.find(same.read, req, "m")).outcome).toBe("found");
    expect(same.asked[0]).toEqual({ method: "GET", path: "/api/1/partners/11", query: { company_id: 101 } });
    expect((await values.find(scripted([ok({ partner: { id: 11, name: "東京タクシー" } })]).read, req, "m")).outcome).toBe("absent");
    const hidden = { ...req, body: { company_id: 101, name: "x", partner_doc_setting_attributes: { sending_method: "email" } } };
    await expect(values.find(scripted([ok({ partner: { id: 11, name: "x" } })]).read, hidden, "m")).rejects.toThrow(/does not show partner_doc_setting_attributes/);
  });

  it("a write freee gives no way to find again (a payment line): a lost reply stays unknown, no read is made", async () => {
    const payment = reconcilerFor({ method: "POST", path: "/api/1/deals/5/payments" })!;
    expect(payment.markerField).toBeUndefined();
    const { read, asked } = scripted([]);
    await expect(payment.find(read, { method: "POST", path: "/api/1/deals/5/payments", body: {} }, "m")).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
    expect(asked).toEqual([]);
  });
});
