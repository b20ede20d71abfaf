import { describe, expect, it } from "vitest";
import { MARKER_READ_BACKS, OPERATIONS, operationByTemplate } from "../../../lib/freee/openapi/operations";
import { derefSchema, FREEE_SCHEMA_SOURCE } from "../../../lib/freee/openapi/validator";
import { derefResponse, responsesOf } from "../../../lib/freee/openapi/responses";
import { reconcilerFor, writeMarker } from "../../../lib/freee/write-reconciler";

/** The write classes of the operation registry, checked against freee's own schemas. */

describe("the operation registry covers the three APIs from the vendored schemas", () => {
  it("accounting, HR and freee請求書, with the source commit and licence", () => {
    expect(new Set(OPERATIONS.map((e) => e.operation.api))).toEqual(new Set(["accounting", "hr", "invoice"]));
    expect(FREEE_SCHEMA_SOURCE).toMatchObject({ repository: "freee/freee-api-schema", commit: "0f6b621" });
    expect(FREEE_SCHEMA_SOURCE.licence).toMatch(/^MIT/);
  });

  it("a GET reads; POST, PUT and DELETE write and each has a read back class", () => {
    for (const e of OPERATIONS) {
      expect(e.effect, `${e.operation.method} ${e.operation.path}`).toBe(e.operation.method === "GET" ? "read" : "write");
      expect(e.readBack !== undefined).toBe(e.effect === "write");
    }
  });

  it("no operation lets the plan choose the company by path", () => {
    expect(OPERATIONS.filter((e) => e.operation.path.includes("{company_id}"))).toEqual([]);
  });

  it("the company goes where the schema wants it: a company_id query parameter, else the body", () => {
    expect(operationByTemplate("GET /api/1/deals").company).toBe("query");
    expect(operationByTemplate("DELETE /api/1/deals/{id}").company).toBe("query");
    expect(operationByTemplate("POST /iv/invoices").company).toBe("body");
    expect(operationByTemplate("PUT /hr/api/v1/employees/{employee_id}/work_records/{date}").company).toBe("body");
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
