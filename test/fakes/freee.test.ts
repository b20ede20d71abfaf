import { describe, expect, it } from "vitest";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { useFreeeFake } from "../support/freee-fake";

/** Each rule of the freee fake, shown by the rejection freee itself would give (schemas in lib/freee/openapi). */

const freee = useFreeeFake({ each: "test" });
const call = freee.call;

const month = { company_id: 101, year: 2026, month: 12 };
const deal = { company_id: 101, issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 23, tax_code: 136, amount: 4_800 }] };

describe("freee fake: requests the schema rejects get freee's 400", () => {
  it("a missing required query parameter (HR employees without month)", async () => {
    const res = await call("GET", "/hr/api/v1/employees", { query: { company_id: 101, year: 2026 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, errors: [{ type: "bad_request", messages: ["month は必須です"] }] });
  });

  it("a query parameter out of its range (month 13)", async () => {
    const res = await call("GET", "/hr/api/v1/employees", { query: { ...month, month: 13 } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].messages).toEqual(["month は 12 以下で指定してください"]);
  });

  it("a clock_in_at in ISO 8601 instead of freee's `YYYY-MM-DD HH:MM:SS` pattern", async () => {
    const res = await call("PUT", "/hr/api/v1/employees/1/work_records/2026-12-01", {
      body: { company_id: 101, work_record_segments: [{ clock_in_at: "2026-12-01T09:00:00+09:00", clock_out_at: "2026-12-01 18:00:00" }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].messages[0]).toMatch(/^work_record_segments\.0\.clock_in_at の形式が不正です/);
    const ok = await call("PUT", "/hr/api/v1/employees/1/work_records/2026-12-01", {
      body: { company_id: 101, work_record_segments: [{ clock_in_at: "2026-12-01 09:00:00", clock_out_at: "2026-12-01 18:00:00" }] },
    });
    expect(ok.status).toBe(200);
  });

  it("a deal line without its required tax_code, in the accounting API's two-part body", async () => {
    const res = await call("POST", "/api/1/deals", { body: { ...deal, details: [{ account_item_id: 23, amount: 4_800 }] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status_code: 400,
      errors: [
        { type: "status", messages: ["不正なリクエストです。"] },
        { type: "validation", messages: ["details.0.tax_code は必須です"] },
      ],
    });
  });

  it("an enum value freee does not know (pay_calc_type weekly)", async () => {
    const res = await call("PUT", "/hr/api/v1/employees/1/basic_pay_rule", {
      body: { company_id: 101, year: 2027, month: 1, employee_basic_pay_rule: { pay_calc_type: "weekly", pay_amount: 300_000 } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].messages[0]).toContain("employee_basic_pay_rule.pay_calc_type は monthly, daily, hourly");
  });

  it("an unknown property: ignored as freee ignores it, rejected when the fake is asked to be stricter", async () => {
    const lenient = await call("POST", "/api/1/deals", { body: { ...deal, memo_typo: "x" } });
    expect(lenient.status).toBe(201);
    const strict = new FakeFreee({ unknownProperties: "reject" });
    await strict.start();
    try {
      const t = strict.issueTokens().accessToken;
      const res = await fetch(`${strict.url}/api/1/deals`, { method: "POST", headers: { authorization: `Bearer ${t}`, "content-type": "application/json" }, body: JSON.stringify({ ...deal, memo_typo: "x" }) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).errors[1].messages).toEqual(["memo_typo は不明な項目です"]);
    } finally {
      await strict.stop();
    }
  });

  it("ids the schema cannot check are checked against the company (unknown account item)", async () => {
    const res = await call("POST", "/api/1/deals", { body: { ...deal, details: [{ account_item_id: 999, tax_code: 136, amount: 1 }] } });
    expect(res.status).toBe(400);
    expect(res.body.errors[1].messages).toEqual(["勘定科目 999 が存在しません。"]);
  });
});

describe("freee fake: 401 with freee's codes", () => {
  it("no token, an unknown token and an expired token: expired_access_token", async () => {
    for (const t of [null, "not-a-token"]) {
      const res = await call("GET", "/api/1/companies", { token: t });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "アクセスする権限がありません", code: "expired_access_token" });
    }
    freee.fake.expireAccessTokens();
    const res = await call("GET", "/api/1/companies");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("expired_access_token");
  });

  it("a company_id the token's user does not belong to: company_not_found", async () => {
    const only101 = freee.fake.issueTokens({ companyIds: [101] }).accessToken;
    const res = await call("GET", "/api/1/deals", { query: { company_id: 202 }, token: only101 });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "存在しないかすでに削除された事業所です。", code: "company_not_found" });
    expect((await call("GET", "/api/1/deals", { query: { company_id: 999 } })).body.code).toBe("company_not_found");
  });
});

describe("freee fake: 403, 404, 429 and 5xx", () => {
  it("a scripted 403 carries each API's body shape", async () => {
    freee.fake.fail({ path: "/api/1/deals" }, { status: 403 });
    freee.fake.fail({ path: /^\/hr\// }, { status: 403 });
    expect((await call("GET", "/api/1/deals", { query: { company_id: 101 } })).body).toEqual({ message: "アクセス権限がありません。" });
    expect((await call("GET", "/hr/api/v1/employees", { query: month })).body).toEqual({ status_code: 403, errors: [{ type: "forbidden", messages: ["アクセス権限がありません。"] }] });
  });

  it("an unknown employee and an unknown path: 404", async () => {
    const res = await call("GET", "/hr/api/v1/employees/404", { query: month });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status_code: 404, errors: [{ type: "not_found", messages: ["従業員が見つかりません。"] }] });
    expect((await call("GET", "/api/1/no_such_resource", { query: { company_id: 101 } })).status).toBe(404);
  });

  it("past the rate limit: 429 with X-RateLimit-* headers and, in accounting, meta", async () => {
    freee.fake.setRateLimit("accounting", { limit: 2, windowSeconds: 60 });
    expect((await call("GET", "/api/1/companies")).status).toBe(200);
    expect((await call("GET", "/api/1/companies")).status).toBe(200);
    const res = await call("GET", "/api/1/companies");
    expect(res.status).toBe(429);
    expect(res.headers.get("x-ratelimit-limit")).toBe("2");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
    expect(res.headers.get("retry-after")).toBeNull(); // freee documents no Retry-After
    expect(res.body).toMatchObject({ status_code: 429, meta: { limit: 2, remaining: 0, period: 60 } });
  });

  it("HR reports its usage on every response", async () => {
    const res = await call("GET", "/hr/api/v1/employees", { query: month });
    expect(res.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("9999");
  });

  it("a scripted 503 and a lost reply (the write happened, the answer never came)", async () => {
    freee.fake.fail({ method: "POST", path: "/api/1/deals" }, { status: 503 });
    expect((await call("POST", "/api/1/deals", { body: deal })).body).toEqual({ status_code: 503, errors: [{ type: "error", messages: ["このAPIは現在ご利用いただけません。"] }] });
    const before = freee.fake.company(101).deals.length;
    freee.fake.fail({ method: "POST", path: "/api/1/deals" }, { lostReply: true });
    await expect(call("POST", "/api/1/deals", { body: { ...deal, ref_number: "task-1/s2" } })).rejects.toThrow();
    expect(freee.fake.company(101).deals.length).toBe(before + 1);
  });
});

describe("freee fake: OAuth", () => {
  const form = (fields: Record<string, string>) =>
    fetch(`${freee.fake.url}/public_api/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ client_id: FAKE_CLIENT_ID, client_secret: FAKE_CLIENT_SECRET, ...fields }) });

  it("a refresh token works once; a code works once; a wrong client secret is invalid_client", async () => {
    const { refreshToken } = freee.fake.issueTokens();
    expect((await form({ grant_type: "refresh_token", refresh_token: refreshToken })).status).toBe(200);
    const again = await form({ grant_type: "refresh_token", refresh_token: refreshToken });
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
    const code = freee.fake.issueCode({ companyId: 101 });
    const first = await form({ grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1/cb" });
    expect(await first.json()).toMatchObject({ token_type: "bearer", expires_in: 21600, company_id: 101 });
    expect((await form({ grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1/cb" })).status).toBe(400);
    expect((await form({ grant_type: "refresh_token", refresh_token: "x", client_secret: "wrong" })).status).toBe(401);
  });
});

describe("freee fake: writes can be read back", () => {
  it("a basic pay rule set from January applies from January, not before", async () => {
    const put = await call("PUT", "/hr/api/v1/employees/1/basic_pay_rule", {
      body: { company_id: 101, year: 2027, month: 1, employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 300_000 } },
    });
    expect(put.status).toBe(200);
    const dec = await call("GET", "/hr/api/v1/employees/1/basic_pay_rule", { query: month });
    const jan = await call("GET", "/hr/api/v1/employees/1/basic_pay_rule", { query: { company_id: 101, year: 2027, month: 1 } });
    expect(dec.body.employee_basic_pay_rule.pay_amount).toBe(280_000);
    expect(jan.body.employee_basic_pay_rule.pay_amount).toBe(300_000);
  });

  it("a deal with a ref_number is found by its issue date and type", async () => {
    const created = await call("POST", "/api/1/deals", { body: { ...deal, ref_number: "T1-s2", details: [{ ...deal.details[0], description: "task T1 step s2" }] } });
    expect(created.status).toBe(201);
    expect(created.body.deal).toMatchObject({ amount: 4_800, status: "unsettled", ref_number: "T1-s2" });
    const list = await call("GET", "/api/1/deals", { query: { company_id: 101, type: "expense", start_issue_date: "2026-12-01", end_issue_date: "2026-12-01" } });
    expect(list.body.deals.map((d: { ref_number: string }) => d.ref_number)).toEqual(["T1-s2"]);
    expect((await call("GET", `/api/1/deals/${created.body.deal.id}`, { query: { company_id: 101 } })).body.deal.details[0].description).toBe("task T1 step s2");
  });

  it("a settled expense (payment from a walletable), a work record, a partner and an invoice", async () => {
    const settled = await call("POST", "/api/1/deals", { body: { ...deal, payments: [{ amount: 4_800, date: "2026-12-01", from_walletable_id: 32, from_walletable_type: "wallet" }] } });
    expect(settled.body.deal.status).toBe("settled");
    await call("PUT", "/hr/api/v1/employees/2/work_records/2026-12-02", { body: { company_id: 101, work_record_segments: [{ clock_in_at: "2026-12-02 09:00", clock_out_at: "2026-12-02 18:00" }] } });
    const wr = await call("GET", "/hr/api/v1/employees/2/work_records/2026-12-02", { query: { company_id: 101 } });
    expect(wr.body.clock_in_at).toBe("2026-12-02T09:00:00.000+09:00");
    const partner = await call("POST", "/api/1/partners", { body: { company_id: 101, name: "新しい取引先" } });
    expect(partner.status).toBe(201);
    const invoice = await call("POST", "/iv/invoices", {
      body: { company_id: 101, billing_date: "2026-12-31", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", partner_title: "御中", partner_id: partner.body.partner.id, lines: [{ type: "item", description: "12月分", quantity: 1, unit_price: "100000", tax_rate: 10 }] },
    });
    expect(invoice.status).toBe(201);
    expect(invoice.body.invoice.total_amount).toBe(110_000);
    const listed = await call("GET", "/iv/invoices", { query: { company_id: 101, partner_ids: String(partner.body.partner.id) } });
    expect(listed.body.invoices).toHaveLength(1);
  });

  it("every read the fake serves validates against freee's response schema", async () => {
    const reads: [string, Record<string, string | number>][] = [
      ["/api/1/companies", {}],
      ["/api/1/users/me", { companies: "true" }],
      ["/api/1/deals", { company_id: 101 }],
      ["/api/1/deals/1", { company_id: 101 }],
      ["/api/1/account_items", { company_id: 101 }],
      ["/api/1/partners", { company_id: 101 }],
      ["/api/1/walletables", { company_id: 101 }],
      ["/api/1/taxes/codes", {}],
      ["/api/1/taxes/companies/101", {}],
      ["/hr/api/v1/users/me", {}],
      ["/hr/api/v1/employees", month],
      ["/hr/api/v1/employees/1", month],
      ["/hr/api/v1/employees/3/basic_pay_rule", month],
      ["/hr/api/v1/employees/1/work_records/2026-12-03", { company_id: 101 }],
      ["/iv/invoices", { company_id: 101 }],
    ];
    for (const [path, query] of reads) expect([path, (await call("GET", path, { query })).status]).toEqual([path, 200]);
  });

  it("the self-check fails loudly when the fake's data is not what freee would answer", async () => {
    delete freee.fake.company(101).deals[0]!.status;
    const res = await call("GET", "/api/1/deals/1", { query: { company_id: 101 } });
    expect(res.status).toBe(599);
    expect(freee.fake.selfCheckFailures).toEqual(["get_deal 200: /deal/status deal.status は必須です"]);
    freee.fake.selfCheckFailures.length = 0;
  });
});
