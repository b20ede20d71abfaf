import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeFreee, startFakeFreee } from "../../dev/fakes/freee/fake-freee";
import { OPERATIONS } from "../../lib/freee/openapi/operations";
import { readBackReconciler } from "../../lib/freee/read-backs";
import type { FreeeRequest, FreeeResult } from "../../lib/freee/types";
import { invalidRequest, validRequest, type BuiltRequest } from "../support/freee-requests";

/**
 * The operations vendored, served by the strict fake: each answers what freee's response schema allows
 * (the fake's self-check throws otherwise), refuses what the request schema refuses with freee's 400, and a write
 * is seen by the read after it.
 */

let fake: FakeFreee;
let token: string;

beforeEach(async () => {
  fake = await startFakeFreee();
  token = fake.issueTokens().accessToken;
  // One pass over invoice's 42 operations is more than its 30 a minute (the limits have their own tests).
  fake.setRateLimit("invoice", undefined);
});
afterEach(async () => {
  expect(fake.selfCheckFailures).toEqual([]);
  await fake.stop();
});

async function call(method: string, path: string, options: { query?: Record<string, string | number>; body?: unknown } = {}) {
  const url = new URL(fake.url + path);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(options.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  if (text !== "" && !res.headers.get("content-type")?.includes("json")) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as any) };
}

const c = { company_id: 101 };

/** Creates first, reads, then updates, deletes last and deepest first (a child before its parent). */
const PHASE: Record<string, number> = { POST: 0, GET: 1, PUT: 2, PATCH: 2, DELETE: 3 };
const ORDERED = [...OPERATIONS].sort((a, b) => PHASE[a.operation.method]! - PHASE[b.operation.method]! || (a.operation.method === "DELETE" ? b.operation.path.length - a.operation.path.length : 0));

async function send(request: BuiltRequest) {
  if (request.form === undefined) return call(request.method, request.path, { query: request.query as Record<string, string>, ...(request.body === undefined ? {} : { body: request.body }) });
  const form = new FormData();
  for (const [k, v] of Object.entries(request.form.fields)) form.set(k, v);
  if (request.form.fileField !== "") form.set(request.form.fileField, new Blob([new Uint8Array([37, 80, 68, 70])], { type: "application/pdf" }), "receipt.pdf");
  const url = new URL(fake.url + request.path);
  for (const [k, v] of Object.entries(request.query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { method: request.method, headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

describe("freee fake: every vendored operation, from its schema", () => {
  it(`answers a valid request to each of the ${OPERATIONS.length} with a success freee's response schema allows`, async () => {
    const company = fake.company(101);
    const failures: string[] = [];
    for (const { operation: op } of ORDERED) {
      const request = validRequest(op, company);
      const res = await send(request);
      if (res.status >= 300) failures.push(`${op.method} ${op.path} -> ${request.path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(failures).toEqual([]);
    expect(new Set(fake.apiRequests().map((r) => r.operationId)).size).toBe(new Set(OPERATIONS.map((e) => e.operation.operationId)).size);
  });

  it("refuses an invalid request to each with freee's 400 body, before any route runs", async () => {
    const company = fake.company(101);
    const unrefused: string[] = [];
    const noInput: string[] = [];
    for (const { operation: op } of OPERATIONS) {
      const invalid = invalidRequest(op, company);
      if (invalid === undefined) {
        noInput.push(`${op.method} ${op.path}`);
        continue;
      }
      const res = await send(invalid.request);
      const shape = op.api === "accounting" ? res.body?.errors?.[1]?.type === "validation" : res.body?.errors?.[0]?.type === "bad_request";
      if (res.status !== 400 || !shape) unrefused.push(`${op.method} ${op.path} (${invalid.what}): ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(unrefused).toEqual([]);
    // These take no parameter and no body: nothing in them can be wrong but the token, which freee refuses.
    expect(noInput).toEqual(["GET /api/1/companies", "GET /api/1/taxes/codes", "GET /hr/api/v1/users/me", "GET /pm/users/me"]);
    token = "fake-access-unknown";
    for (const path of ["/api/1/companies", "/api/1/taxes/codes", "/hr/api/v1/users/me", "/pm/users/me"]) expect((await call("GET", path)).body).toMatchObject({ code: "expired_access_token" });
  });
});

/** freee as the reconcilers read it (lib/freee/read-backs.ts): the fake's answer as a FreeeResult. */
async function read(req: FreeeRequest): Promise<FreeeResult> {
  const res = await call(req.method, req.path, { query: (req.query ?? {}) as Record<string, string | number>, ...(req.body === undefined ? {} : { body: req.body }) });
  return res.status < 300 ? { ok: true, status: res.status, data: res.body } : { ok: false, status: res.status, kind: res.status === 404 ? "not_found" : "rejected", messages: [] };
}

describe("freee fake: a lost reply of every values / gone write is settled by reading back", () => {
  it("each update is found by its values, each delete by its record being gone (and not before)", async () => {
    const company = fake.company(101);
    const outcomes: string[] = [];
    for (const { operation: op, readBack } of ORDERED) {
      // The creates first, so that every list an update or delete names has a record.
      if (op.method === "POST") expect((await send(validRequest(op, company))).status, `${op.method} ${op.path}`).toBeLessThan(300);
      if (readBack?.kind !== "values" && readBack?.kind !== "gone") continue;
      const built = validRequest(op, company);
      // A plan that wants its update read back sends what the GET needs (an HR employee's year and month).
      for (const p of readBack.get.parameters.filter((x) => x.in === "query" && x.required && x.name !== "company_id")) {
        if (built.body !== undefined && !(p.name in built.body)) built.body[p.name] = p.name === "year" ? 2026 : p.name === "month" ? 12 : undefined;
      }
      const req: FreeeRequest = { method: op.method, path: built.path, query: built.query as Record<string, string>, ...(built.body === undefined ? {} : { body: built.body }) };
      const reconciler = readBackReconciler(readBack, undefined);
      if (readBack.kind === "gone") expect((await reconciler.find(read, req, "")).outcome, `${op.path} before the delete`).toBe("absent");
      expect((await send(built)).status, `${op.method} ${op.path}`).toBeLessThan(300);
      const outcome = await reconciler.find(read, req, "").then((r) => r.outcome, (err: Error) => `unsettled: ${err.message}`);
      outcomes.push(`${op.method} ${op.path} ${outcome}`);
    }
    // freee's GET does not show these fields of the update: the reconciler says so and never guesses.
    expect(outcomes.filter((o) => !o.endsWith(" found"))).toEqual([
      expect.stringMatching(/^PUT \/api\/1\/payment_requests\/\{id\} unsettled: .*does not show draft/),
      expect.stringMatching(/^PUT \/api\/1\/approval_requests\/\{id\} unsettled: .*does not show draft/),
      expect.stringMatching(/^PUT \/api\/1\/purchase_requests\/\{id\} unsettled: .*does not show purchase_request_form_id/),
      // One rule is sent, freee answers the list of them.
      expect.stringMatching(/^PUT \/hr\/api\/v1\/employees\/\{employee_id\}\/allowance_rules unsettled: .*does not show employee_allowance_rule/),
      expect.stringMatching(/^PUT \/hr\/api\/v1\/employees\/\{employee_id\}\/deduction_rules unsettled: .*does not show employee_deduction_rule/),
    ]);
    expect(outcomes.length).toBe(OPERATIONS.filter((e) => e.readBack?.kind === "values" || e.readBack?.kind === "gone").length);
  });
});

describe("freee fake: the accounting operations", () => {
  it("a manual journal with balanced lines is created and found by its ref_number; unbalanced lines are refused", async () => {
    const lines = [
      { entry_side: "debit", account_item_id: 23, tax_code: 136, amount: 1_100, tag_ids: [41], section_id: 51 },
      { entry_side: "credit", account_item_id: 22, tax_code: 21, amount: 1_100 },
    ];
    const made = await call("POST", "/api/1/manual_journals", { body: { ...c, issue_date: "2026-12-01", ref_number: "sma:abc", details: lines } });
    expect(made.status).toBe(201);
    expect(made.body.manual_journal.details[0]).toMatchObject({ tag_names: ["出張"], section_name: "営業部" });
    const found = await call("GET", "/api/1/manual_journals", { query: { ...c, ref_number: "sma:abc", start_issue_date: "2026-12-01", end_issue_date: "2026-12-01" } });
    expect(found.body.manual_journals.map((j: { id: number }) => j.id)).toEqual([made.body.manual_journal.id]);
    const unbalanced = await call("POST", "/api/1/manual_journals", { body: { ...c, issue_date: "2026-12-01", details: [lines[0], { ...lines[1], amount: 1_000 }] } });
    expect(unbalanced.status).toBe(400);
    expect(unbalanced.body.errors[1].messages).toEqual(["貸借の合計金額が一致しません。"]);
    // freee's schema: a journal line's amount is at least 1 (a minus line is a deal's, not a journal's).
    const negative = await call("POST", "/api/1/manual_journals", { body: { ...c, issue_date: "2026-12-01", details: [{ ...lines[0], amount: -5 }] } });
    expect(negative.status).toBe(400);
    const gone = await call("DELETE", `/api/1/manual_journals/${made.body.manual_journal.id}`, { query: c });
    expect(gone.status).toBe(204);
    expect((await call("GET", `/api/1/manual_journals/${made.body.manual_journal.id}`, { query: c })).status).toBe(404);
  });

  it("a deal with a minus line, then a payment that settles it; update and delete", async () => {
    const deal = await call("POST", "/api/1/deals", {
      body: { ...c, issue_date: "2026-12-01", type: "income", partner_id: 12, details: [{ account_item_id: 22, tax_code: 21, amount: 110_000 }, { account_item_id: 23, tax_code: 136, amount: -660 }] },
    });
    expect(deal.status).toBe(201);
    expect(deal.body.deal).toMatchObject({ amount: 109_340, status: "unsettled" });
    const id = deal.body.deal.id as number;
    const paid = await call("POST", `/api/1/deals/${id}/payments`, { body: { ...c, date: "2026-12-10", from_walletable_type: "bank_account", from_walletable_id: 31, amount: 109_340 } });
    expect(paid.status).toBe(201);
    expect(paid.body.deal.status).toBe("settled");
    const badWallet = await call("POST", `/api/1/deals/${id}/payments`, { body: { ...c, date: "2026-12-10", from_walletable_type: "bank_account", from_walletable_id: 999, amount: 1 } });
    expect(badWallet.status).toBe(400);
    const updated = await call("PUT", `/api/1/deals/${id}`, { body: { ...c, issue_date: "2026-12-02", type: "income", details: [{ account_item_id: 22, tax_code: 21, amount: 120_000 }] } });
    expect(updated.status).toBe(200);
    expect((await call("GET", `/api/1/deals/${id}`, { query: c })).body.deal.issue_date).toBe("2026-12-02");
    expect((await call("DELETE", `/api/1/deals/${id}`, { query: c })).status).toBe(204);
    expect((await call("GET", `/api/1/deals/${id}`, { query: c })).status).toBe(404);
  });

  it("tags, sections, items, an account item, a partner (read and update), the file box", async () => {
    expect((await call("GET", "/api/1/tags", { query: c })).body.tags.map((t: { name: string }) => t.name)).toEqual(["出張"]);
    expect((await call("POST", "/api/1/tags", { body: { ...c, name: "展示会" } })).status).toBe(201);
    expect((await call("POST", "/api/1/tags", { body: { ...c, name: "展示会" } })).status).toBe(400);
    expect((await call("GET", "/api/1/sections", { query: c })).body.sections[0].name).toBe("営業部");
    expect((await call("GET", "/api/1/items", { query: c })).body.items[0].name).toBe("コンサルティング");
    expect((await call("GET", "/api/1/account_items/23", { query: c })).body.account_item.name).toBe("消耗品費");
    expect((await call("PUT", "/api/1/partners/11", { body: { ...c, name: "東京タクシー株式会社" } })).body.partner.name).toBe("東京タクシー株式会社");
    expect((await call("GET", "/api/1/partners/11", { query: c })).body.partner.name).toBe("東京タクシー株式会社");
    expect((await call("GET", "/api/1/receipts", { query: { ...c, start_date: "2026-12-01", end_date: "2026-12-31" } })).body.receipts).toEqual([]);
    expect((await call("GET", "/api/1/receipts/5", { query: c })).status).toBe(404);
  });
});

describe("freee fake: HR and invoice operations", () => {
  it("the monthly attendance summary counts the days with segments", async () => {
    await call("PUT", "/hr/api/v1/employees/1/work_records/2026-12-01", { body: { ...c, work_record_segments: [{ clock_in_at: "2026-12-01 09:00:00", clock_out_at: "2026-12-01 18:00:00" }] } });
    const summary = await call("GET", "/hr/api/v1/employees/1/work_record_summaries/2026/12", { query: c });
    expect(summary.body).toMatchObject({ work_days: 1, total_work_mins: 540, end_date: "2026-12-31" });
  });

  it("invoice templates, and an invoice update seen by the read after it", async () => {
    expect((await call("GET", "/iv/invoices/templates", { query: c })).body.templates[0].id).toBe(71);
    const made = await call("POST", "/iv/invoices", {
      body: { ...c, billing_date: "2026-12-31", partner_id: 12, partner_title: "御中", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", lines: [{ description: "12月分", quantity: 1, unit_price: "100000", tax_rate: 10 }] },
    });
    expect(made.status).toBe(201);
    const id = made.body.invoice.id as number;
    const updated = await call("PUT", `/iv/invoices/${id}`, { body: { ...c, billing_date: "2026-12-31", partner_id: 12, partner_title: "御中", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", subject: "12月分のご請求", lines: [] } });
    expect(updated.status).toBe(200);
    expect((await call("GET", `/iv/invoices/${id}`, { query: c })).body.invoice.subject).toBe("12月分のご請求");
  });
});
