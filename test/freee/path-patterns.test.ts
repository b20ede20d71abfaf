import { describe, expect, it } from "vitest";
import { matchPath, pathPatterns } from "../../lib/freee/path-patterns";
import { checkRequest, findOperation } from "../../lib/freee/openapi/validator";
import { readByPath, readByTemplate } from "../../lib/preview/read-params";

/** Which template a concrete freee path instantiates: one definition for the validator and the preview's GETs. */
describe("a path's template", () => {
  const templates = ["/a/{x}/c", "/a/{id}", "/a/b/{y}", "/a/templates", "/a/b/c"];
  const patterns = pathPatterns(templates, (t) => t);
  const templateOf = (path: string) => matchPath(patterns, path)?.item;

  it("a literal segment wins over a parameter at the first segment where they differ, whatever the given order", () => {
    expect(templateOf("/a/templates")).toBe("/a/templates");
    expect(templateOf("/a/7")).toBe("/a/{id}");
    expect(templateOf("/a/b/c")).toBe("/a/b/c");
    expect(templateOf("/a/b/d")).toBe("/a/b/{y}");
    expect(templateOf("/a/z/c")).toBe("/a/{x}/c");
    expect(pathPatterns([...templates].reverse(), (t) => t).map((p) => p.item)).toEqual(patterns.map((p) => p.item));
  });

  it("parameters are decoded; a malformed escape matches nothing instead of throwing", () => {
    expect(matchPath(patterns, "/a/%E6%9D%B1")).toEqual({ item: "/a/{id}", pathParams: { id: "東" } });
    expect(matchPath(patterns, "/a/%E0%A4%A")).toBeUndefined();
  });

  it("freee's operations: upsert_by_code is not partners/{id}; a malformed path is an unknown operation, not a crash", () => {
    expect(findOperation("PUT", "/api/1/partners/upsert_by_code")?.operation.path).toBe("/api/1/partners/upsert_by_code");
    expect(findOperation("PUT", "/api/1/partners/12")?.pathParams).toEqual({ id: "12" });
    expect(checkRequest({ method: "GET", path: "/api/1/deals/%E0%A4%A", query: { company_id: 1 } })).toMatchObject({ ok: false, reason: "unknown_operation" });
  });

  it("the preview's GETs: by path with decoded parameters; a template is an own entry only", () => {
    expect(readByPath("/iv/invoices/42")).toMatchObject({ read: { path: "/iv/invoices/{id}" }, pathParams: { id: "42" } });
    expect(readByPath("/iv/invoices/%E0%A4%A")).toBeUndefined();
    expect(readByTemplate("/iv/invoices/{id}")?.path).toBe("/iv/invoices/{id}");
    expect(readByTemplate("constructor")).toBeUndefined();
  });
});
