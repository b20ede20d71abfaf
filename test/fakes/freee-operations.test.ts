import { describe, expect, it } from "vitest";
import { OPERATIONS, operationByTemplate } from "../../lib/freee/openapi/operations";
import { readBackReconciler } from "../../lib/freee/read-backs";
import { reconcilerFor } from "../../lib/freee/write-reconciler";
import type { FreeeRequest, FreeeResult } from "../../lib/freee/types";
import { idParams } from "../../dev/fakes/freee/generic-resources";
import { invalidRequest, validRequest, type BuiltRequest } from "../support/freee-requests";
import { useFreeeFake, type FreeeCall } from "../support/freee-fake";

/**
 * The operations vendored, served by the strict fake: each answers what freee's response schema allows
 * (the fake's self-check throws otherwise), refuses what the request schema refuses with freee's 400, and a write
 * is seen by the read after it.
 */

// One pass over invoice's 42 operations is more than its 30 a minute (the limits have their own tests).
const freee = useFreeeFake({ each: "test", setUp: (fake) => fake.setRateLimit("invoice", undefined) });

async function call(method: string, path: string, options: FreeeCall = {}) {
  const res = await freee.call(method, path, options);
  if (res.body !== undefined && res.headers.get("content-type")?.includes("json") !== true) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return res;
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
  return call(request.method, request.path, { query: request.query as Record<string, string>, form });
}

describe("freee fake: every vendored operation, from its schema", () => {
  it(`answers a valid request to each of the ${OPERATIONS.length} with a success freee's response schema allows`, async () => {
    const company = freee.fake.company(101);
    const failures: string[] = [];
    for (const { operation: op } of ORDERED) {
      const request = validRequest(op, company);
      const res = await send(request);
      if (res.status >= 300) failures.push(`${op.method} ${op.path} -> ${request.path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(failures).toEqual([]);
    expect(new Set(freee.fake.apiRequests().map((r) => r.operationId)).size).toBe(new Set(OPERATIONS.map((e) => e.operation.operationId)).size);
  });

  it("refuses an invalid request to each with freee's 400 body, before any route runs", async () => {
    const company = freee.fake.company(101);
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
    for (const path of ["/api/1/companies", "/api/1/taxes/codes", "/hr/api/v1/users/me", "/pm/users/me"]) expect((await call("GET", path, { token: "fake-access-unknown" })).body).toMatchObject({ code: "expired_access_token" });
  });
});

describe("freee fake: an id that names nothing", () => {
  it("answers freee's 404 for every operation whose path names a record, its parents' included", async () => {
    const company = freee.fake.company(101);
    const unanswered: string[] = [];
    let checked = 0;
    for (const { operation: op } of OPERATIONS) {
      const valid = validRequest(op, company);
      const named = idParams(op, {}).filter((p) => p.field === "id");
      if (named.length === 0) continue;
      // The first record id of the path (a parent where there is one): no record has it.
      const at = op.path.split("/").indexOf(`{${named[0]!.name}}`);
      const unknown = op.api === "sm" ? "01JFAKE9999999999999999999" : "999999";
      const path = valid.path.split("/").map((s, i) => (i === at ? unknown : s)).join("/");
      const res = await send({ ...valid, path });
      checked += 1;
      const shape = res.body?.errors?.[0]?.type === (op.api === "accounting" ? "status" : "not_found");
      if (res.status !== 404 || !shape) unanswered.push(`${op.method} ${op.path} -> ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(unanswered).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });
});

/** freee as the reconcilers read it (lib/freee/read-backs.ts): the fake's answer as a FreeeResult. */
async function read(req: FreeeRequest): Promise<FreeeResult> {
  const res = await call(req.method, req.path, { query: (req.query ?? {}) as Record<string, string | number>, ...(req.body === undefined ? {} : { body: req.body }) });
  return res.status < 300 ? { ok: true, status: res.status, data: res.body } : { ok: false, status: res.status, kind: res.status === 404 ? "not_found" : "rejected", messages: [] };
}

/** Sends a request whose reply the fake drops after doing the work; "lost" when it was. */
async function sendLost(built: BuiltRequest): Promise<string> {
  freee.fake.fail({ method: built.method, path: built.path }, { lostReply: true });
  return send(built).then(
    (res) => `answered ${res.status}`,
    () => "lost",
  );
}

describe("freee fake: a lost reply of every write is settled without a second write", () => {
  it("marker and values / gone writes are found by reading back (a delete absent before it), the rest end unknown; none is sent twice", async () => {
    const company = freee.fake.company(101);
    const outcomes: string[] = [];
    for (const { operation: op, readBack } of ORDERED) {
      if (readBack === undefined) continue;
      const built = validRequest(op, company);
      // A plan that wants its update read back sends what the GET needs (an HR employee's year and month).
      if (readBack.kind === "values") {
        for (const p of readBack.get.parameters.filter((x) => x.in === "query" && x.required && x.name !== "company_id")) {
          if (built.body !== undefined && !(p.name in built.body)) built.body[p.name] = p.name === "year" ? 2026 : p.name === "month" ? 12 : undefined;
        }
      }
      let req: FreeeRequest = { method: op.method, path: built.path, query: built.query as Record<string, string>, ...(built.body === undefined ? {} : { body: built.body }) };
      // What the MCP server does (lib/freee/write-reconciler.ts): mark the write where its class has a field for it.
      const reconciler = reconcilerFor(req)!;
      const marker = `sma:T1:p1:s${outcomes.length + 1}`.slice(0, reconciler.markerMaxLength ?? 64);
      req = reconciler.mark(req, marker);
      if (req.body !== undefined && built.body !== undefined) built.body = req.body;
      if (readBack.kind === "gone") expect((await reconciler.find(read, req, marker)).outcome, `${op.path} before the delete`).toBe("absent");
      const writes = () => freee.fake.apiRequests().filter((r) => r.method === op.method && r.path === built.path).length;
      const before = writes();
      expect(await sendLost(built), `${op.method} ${op.path}`).toBe("lost");
      const outcome = await reconciler.find(read, req, marker).then(
        (r) => r.outcome,
        (err: Error) => `${err.name}: ${err.message}`,
      );
      expect(writes() - before, `${op.method} ${op.path} sent once`).toBe(1);
      outcomes.push(`${readBack.kind} ${op.method} ${op.path} ${outcome}`);
    }
    const unsettled = (kind: string) => outcomes.filter((o) => o.startsWith(`${kind} `) && !o.endsWith(" found"));
    expect(unsettled("marker")).toEqual([]);
    // freee's GET does not show these fields of the update: the reconciler says so and never guesses.
    expect(unsettled("values")).toEqual([
      expect.stringMatching(/^values PUT \/api\/1\/payment_requests\/\{id\} WriteOutcomeUnknownError: .*does not show draft/),
      expect.stringMatching(/^values PUT \/api\/1\/approval_requests\/\{id\} WriteOutcomeUnknownError: .*does not show draft/),
      expect.stringMatching(/^values PUT \/api\/1\/purchase_requests\/\{id\} WriteOutcomeUnknownError: .*does not show purchase_request_form_id/),
      // One rule is sent, freee answers the list of them.
      expect.stringMatching(/^values PUT \/hr\/api\/v1\/employees\/\{employee_id\}\/allowance_rules WriteOutcomeUnknownError: .*does not show employee_allowance_rule/),
      expect.stringMatching(/^values PUT \/hr\/api\/v1\/employees\/\{employee_id\}\/deduction_rules WriteOutcomeUnknownError: .*does not show employee_deduction_rule/),
    ]);
    expect(unsettled("gone")).toEqual([]);
    const none = outcomes.filter((o) => o.startsWith("none "));
    expect(none.filter((o) => !/ WriteOutcomeUnknownError: /.test(o))).toEqual([]);
    expect([outcomes.length, none.length]).toEqual([OPERATIONS.filter((e) => e.effect === "write").length, OPERATIONS.filter((e) => e.readBack?.kind === "none").length]);
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

  it("a transfer between two wallets the company has is made; one naming a wallet it does not have is refused", async () => {
    const body = { ...c, date: "2026-12-01", amount: 50_000, from_walletable_type: "bank_account", from_walletable_id: 31, to_walletable_type: "wallet", to_walletable_id: 32 };
    const made = await call("POST", "/api/1/transfers", { body });
    expect(made.status).toBe(201);
    expect((await call("GET", `/api/1/transfers/${made.body.transfer.id}`, { query: c })).body.transfer).toMatchObject({ amount: 50_000, to_walletable_id: 32 });
    const wrong = await call("POST", "/api/1/transfers", { body: { ...body, to_walletable_type: "bank_account" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[1].messages).toEqual(["口座 bank_account 32 が存在しません。"]);
  });

  it("the login user's names, updated, are what the next read shows (a values read back)", async () => {
    const put = await call("PUT", "/api/1/users/me", { body: { display_name: "経理 花子", last_name: "経理" } });
    expect(put.status).toBe(200);
    expect((await call("GET", "/api/1/users/me")).body.user).toMatchObject({ display_name: "経理 花子", last_name: "経理" });
    expect((await readBackReconciler(operationByTemplate("PUT /api/1/users/me").readBack!, undefined).find(read, { method: "PUT", path: "/api/1/users/me", body: { display_name: "経理 花子" } }, "")).outcome).toBe("found");
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
