import { describe, expect, it } from "vitest";
import { bodyFields, MARKER_READ_BACKS, NO_MARKER_FIELD, OPERATIONS, operationByTemplate } from "../../../lib/freee/openapi/operations";
import { derefSchema, FREEE_SCHEMA_SOURCES } from "../../../lib/freee/openapi/validator";
import { derefResponse, responsesOf } from "../../../lib/freee/openapi/responses";
import { reconcilerFor, writeMarker } from "../../../lib/freee/write-reconciler";

/** The write classes of the operation registry, checked against freee's own schemas. */

describe("the operation registry covers the five APIs from the vendored schemas", () => {
  it("every operation of 会計, 人事労務, 請求書, 工数管理 and 販売, each API with its source commit and licence", () => {
    const count = (api: string) => OPERATIONS.filter((e) => e.operation.api === api).length;
    expect(["accounting", "hr", "invoice", "pm", "sm"].map(count)).toEqual([151, 109, 42, 11, 14]);
    for (const api of ["accounting", "hr", "invoice"] as const) {
      expect(FREEE_SCHEMA_SOURCES[api]).toMatchObject({ repository: "freee/freee-api-schema", commit: "0f6b621" });
      expect(FREEE_SCHEMA_SOURCES[api].licence).toMatch(/^MIT/);
    }
    for (const api of ["pm", "sm"] as const) {
      expect(FREEE_SCHEMA_SOURCES[api]).toMatchObject({ repository: "freee/freee-mcp", commit: "ff3e506" });
      expect(FREEE_SCHEMA_SOURCES[api].licence).toMatch(/^Apache License 2\.0/);
    }
    expect(new Set(OPERATIONS.map((e) => `${e.operation.method} ${e.operation.path}`)).size).toBe(327);
  });

  it("a GET reads; POST, PUT and DELETE write and each has a read back class", () => {
    for (const e of OPERATIONS) {
      expect(e.effect, `${e.operation.method} ${e.operation.path}`).toBe(e.operation.method === "GET" ? "read" : "write");
      expect(e.readBack !== undefined).toBe(e.effect === "write");
    }
  });

  it("a path that names the company is the server's to fill: company_id in the path, and a company's own {id}", () => {
    const named = OPERATIONS.filter((e) => e.company.pathParam !== undefined).map((e) => `${e.operation.method} ${e.operation.path} ${e.company.pathParam}`);
    expect(named).toEqual(["GET /api/1/companies/{id} id", "GET /api/1/taxes/companies/{company_id} company_id", "GET /hr/api/v1/companies/{company_id}/employees company_id"]);
    for (const e of OPERATIONS) if (e.operation.path.includes("{company_id}")) expect(e.company.pathParam, e.operation.path).toBe("company_id");
  });

  it("the company goes everywhere the schema wants it: the company_id query parameter, the body's company_id, or both", () => {
    expect(operationByTemplate("GET /api/1/deals").company).toEqual({ query: true, body: false });
    expect(operationByTemplate("DELETE /api/1/deals/{id}").company).toEqual({ query: true, body: false });
    expect(operationByTemplate("POST /iv/invoices").company).toEqual({ query: false, body: true });
    expect(operationByTemplate("PUT /hr/api/v1/employees/{employee_id}/work_records/{date}").company).toEqual({ query: false, body: true });
    // freee販売's bodies are allOf [WithCompanyId, …] in the schema: the vendored body is one object with company_id.
    expect(operationByTemplate("PATCH /sm/businesses/{id}").company).toEqual({ query: false, body: true });
    const both = OPERATIONS.filter((e) => e.company.query && e.company.body);
    expect(both.length).toBeGreaterThan(0);
    for (const e of OPERATIONS) {
      const query = e.operation.parameters.some((p) => p.in === "query" && p.name === "company_id");
      expect(e.company.query, `${e.operation.method} ${e.operation.path}`).toBe(query);
    }
  });
});

describe("write classes: which writes are safe to read back", () => {
  it("each marker read back names a body field with room for a marker, a list that answers it, and filters the list takes", () => {
    for (const [template, plan] of Object.entries(MARKER_READ_BACKS)) {
      const write = operationByTemplate(template).operation;
      const body = derefSchema(write.requestBody?.schema) as { properties: Record<string, { type?: string; maxLength?: number }> };
      const field = body.properties[plan.field];
      expect(field?.type, `${template}: ${plan.field}`).toBe("string");
      expect(field?.maxLength ?? 64, `${template}: room for a marker`).toBeGreaterThanOrEqual(20);
      const list = operationByTemplate(`GET ${plan.list}`).operation;
      const answer = derefResponse(responsesOf(list)["200"]) as { properties: Record<string, { items?: { properties?: Record<string, unknown> } }> };
      expect(Object.keys(answer.properties[plan.items]?.items?.properties ?? {}), `${plan.list} answers ${plan.field}`).toContain(plan.field);
      const filters = Object.keys(plan.filters({ issue_date: "2026-12-01", billing_date: "2026-12-01", type: "expense", partner_id: 1 }, "m"));
      const params = list.parameters.filter((p) => p.in === "query").map((p) => p.name);
      for (const f of filters) expect(params, `${plan.list} takes ${f}`).toContain(f);
    }
  });

  it("deals, manual journals and invoices are found by a marker; a DELETE by its 404; a PUT by its values; the rest cannot be", () => {
    const kind = (t: string) => operationByTemplate(t).readBack?.kind;
    expect(["POST /api/1/deals", "POST /api/1/manual_journals", "POST /iv/invoices"].map(kind)).toEqual(["marker", "marker", "marker"]);
    expect(kind("DELETE /api/1/manual_journals/{id}")).toBe("gone");
    expect(kind("PUT /api/1/partners/{id}")).toBe("values");
    expect(kind("POST /api/1/deals/{id}/payments")).toBe("none");
    expect(kind("POST /api/1/tags")).toBe("none");
  });

  it("a manual journal's ref_number takes 20 characters: its marker is a 20-character digest, distinct per step", () => {
    const reconciler = reconcilerFor({ method: "POST", path: "/api/1/manual_journals" })!;
    expect(reconciler.markerMaxLength).toBe(20);
    const ref = { taskId: "T1-C1-1700000000_000100", processVersion: 1, stepId: "s1" };
    const marker = writeMarker(ref, reconciler.markerMaxLength);
    expect(marker).toMatch(/^sma:[0-9a-f]{16}$/);
    expect(marker).not.toBe(writeMarker({ ...ref, stepId: "s2" }, 20));
  });
});

/**
 * Per write operation, its class by the rule restated from the schema: a POST is found again only by a listed
 * marker; a PUT / PATCH by its values and a DELETE by its 404 only when freee answers GET on the same path and that
 * GET needs nothing the write does not carry; everything else is `none` (no repeat, WriteOutcomeUnknownError).
 */
describe("each write operation's class follows from its schema", () => {
  const writes = OPERATIONS.filter((e) => e.effect === "write");
  it.each(writes.map((e) => [`${e.operation.method} ${e.operation.path}`, e] as const))("%s", (template, e) => {
    const op = e.operation;
    const plan = e.readBack!;
    if (op.method === "POST") {
      if (MARKER_READ_BACKS[template] !== undefined) expect(plan).toBe(MARKER_READ_BACKS[template]);
      else expect(plan).toEqual({ kind: "none", why: NO_MARKER_FIELD });
      return;
    }
    const get = OPERATIONS.find((o) => o.operation.method === "GET" && o.operation.path === op.path)?.operation;
    const carried = new Set([...op.parameters.map((p) => p.name), ...bodyFields(op), "company_id"]);
    const readable = get !== undefined && get.parameters.every((p) => p.in !== "query" || !p.required || carried.has(p.name));
    // A day's GET answers every date (an empty record once deleted): a DELETE there cannot be seen gone.
    if (!readable || (op.method === "DELETE" && op.path.endsWith("{date}"))) {
      expect(plan.kind).toBe("none");
      expect((plan as { why: string }).why).toMatch(/GET/);
      return;
    }
    expect(plan).toEqual({ kind: op.method === "DELETE" ? "gone" : "values", get });
  });

  it("the classes in numbers: 3 POSTs by marker, 43 PUT / PATCH by values, 22 DELETEs by 404, 94 writes never repeated", () => {
    const kinds = writes.map((e) => e.readBack!.kind);
    const n = (k: string) => kinds.filter((x) => x === k).length;
    expect([n("marker"), n("values"), n("gone"), n("none")]).toEqual([3, 43, 22, 94]);
  });
});

