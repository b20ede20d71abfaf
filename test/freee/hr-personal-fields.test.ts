import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import vendored from "../../lib/freee/openapi/freee-responses.json";
import { HR_PERSONAL_FIELDS } from "../../lib/freee/hr-personal-data";

/**
 * docs/slack.md's list of HR personal fields is the code's (HR_PERSONAL_FIELDS), each under its category, and each
 * field the list says a vendored freee schema has is in that schema: the list is decided per field from freee's
 * schema, not written apart from it.
 */
const schemas = (vendored as unknown as { apis: { hr: { schemas: Record<string, unknown> } } }).apis.hr.schemas;

/** The property names a schema declares, at any depth (nested objects and array items included). */
function properties(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => properties(s, out));
  else if (schema !== null && typeof schema === "object") {
    const props = (schema as { properties?: Record<string, unknown> }).properties;
    if (props !== undefined) for (const name of Object.keys(props)) out.add(name);
    for (const v of Object.values(schema)) properties(v, out);
  }
  return out;
}

function documented(): { field: string; category: string; where: string }[] {
  const doc = readFileSync("docs/slack.md", "utf8");
  const section = doc.slice(doc.indexOf("## 7. Results with HR personal data"), doc.indexOf("## 8."));
  return [...section.matchAll(/^\| `([a-z0-9_]+)` \| `([a-z]+)` [^|]+\| ([^|]+) \|$/gm)].map((m) => ({ field: m[1]!, category: m[2]!, where: m[3]!.trim() }));
}

it("docs/slack.md lists exactly the personal fields the code checks, each under its category", () => {
  const rows = documented();
  const code = Object.entries(HR_PERSONAL_FIELDS).flatMap(([category, fields]) => fields.map((field) => ({ field, category })));
  expect(code.length).toBeGreaterThan(50);
  expect(rows.map(({ field, category }) => ({ field, category })).sort((a, b) => a.field.localeCompare(b.field))).toEqual(code.sort((a, b) => a.field.localeCompare(b.field)));
});

it("each field the list places in a vendored schema is a property of that schema; the rest are the payroll statement's", () => {
  for (const row of documented()) {
    const named = [...row.where.matchAll(/`(ApiV1\w+Serializer)`/g)].map((m) => m[1]!);
    if (named.length === 0) {
      expect(row.where, row.field).toMatch(/^給与明細/);
      // Not vendored: no vendored schema has it either (else the list should say where).
      expect(Object.values(schemas).some((s) => properties(s).has(row.field)), row.field).toBe(false);
      continue;
    }
    for (const name of named) expect(properties(schemas[name]), `${row.field} in ${name}`).toContain(row.field);
  }
});
