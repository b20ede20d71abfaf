import { describe, expect, it } from "vitest";
import { checkRequest, findOperation, FREEE_OPERATIONS, FREEE_SCHEMA_SOURCES } from "../../lib/freee/openapi/validator";

/** The validator that ships (MCP server and L3 plan checks use it): freee's schemas, read as freee reads them. */

describe("freee OpenAPI validator", () => {
  it("names its source and knows the operations the tools call", () => {
    expect(FREEE_SCHEMA_SOURCES.accounting).toMatchObject({ repository: "freee/freee-api-schema", commit: "0f6b621" });
    const ids = FREEE_OPERATIONS.map((o) => `${o.method} ${o.path}`);
    expect(ids).toEqual(expect.arrayContaining(["POST /api/1/deals", "PUT /hr/api/v1/employees/{employee_id}/basic_pay_rule", "POST /iv/invoices"]));
    expect(findOperation("GET", "/hr/api/v1/employees/7/work_records/2026-12-01")).toMatchObject({ pathParams: { employee_id: "7", date: "2026-12-01" } });
  });

  it("an operation freee does not have is unknown, with the API its prefix names", () => {
    expect(checkRequest({ method: "DELETE", path: "/api/1/deals" })).toEqual({ ok: false, reason: "unknown_operation", api: "accounting" });
    expect(checkRequest({ method: "GET", path: "/elsewhere" })).toEqual({ ok: false, reason: "unknown_operation", api: undefined });
  });

  it("query strings are coerced as freee reads them; a non-number id is a 400 issue", () => {
    expect(checkRequest({ method: "GET", path: "/hr/api/v1/employees", query: { company_id: "1", year: "2026", month: "12" } }).ok).toBe(true);
    const bad = checkRequest({ method: "GET", path: "/hr/api/v1/employees/abc", query: { company_id: 1, year: 2026, month: 12 } });
    expect(bad).toMatchObject({ ok: false, reason: "invalid", issues: [{ in: "path", at: "id", keyword: "type" }] });
  });

  it("an absent body still owes the schema's required fields (PUT basic_pay_rule without a body)", () => {
    const res = checkRequest({ method: "PUT", path: "/hr/api/v1/employees/1/basic_pay_rule" });
    expect(res.ok).toBe(false);
    if (!res.ok && res.reason === "invalid") expect(res.issues.map((i) => i.at)).toEqual(["/company_id", "/year", "/month", "/employee_basic_pay_rule"]);
  });

  it("unknownProperties: reject — for plans: a misspelt field or a body on a GET is an issue", () => {
    const body = { company_id: 1, issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 1, tax_code: 136, amount: 1, descripton: "typo" }] };
    expect(checkRequest({ method: "POST", path: "/api/1/deals", body }).ok).toBe(true);
    expect(checkRequest({ method: "POST", path: "/api/1/deals", body }, { unknownProperties: "reject" })).toMatchObject({ ok: false, issues: [{ at: "/details/0/descripton", keyword: "additionalProperties" }] });
    expect(checkRequest({ method: "GET", path: "/api/1/companies", body: {} }, { unknownProperties: "reject" })).toMatchObject({ ok: false, issues: [{ keyword: "body" }] });
    expect(checkRequest({ method: "GET", path: "/api/1/companies", query: { limit: 1 } }, { unknownProperties: "reject" })).toMatchObject({ ok: false, issues: [{ at: "limit", keyword: "additionalProperties" }] });
    expect(checkRequest({ method: "GET", path: "/api/1/companies", query: { limit: 1 } }).ok).toBe(true);
  });

  it("HR's anyOf body (current and legacy work record) is one issue, not two", () => {
    const res = checkRequest({ method: "PUT", path: "/hr/api/v1/employees/1/work_records/2026-12-01", body: { company_id: 1, clock_in_at: "2026-12-01T09:00:00+09:00" } });
    expect(res).toMatchObject({ ok: false, issues: [{ at: "/clock_in_at", keyword: "pattern" }] });
    if (!res.ok && res.reason === "invalid") expect(res.issues).toHaveLength(1);
  });
});
