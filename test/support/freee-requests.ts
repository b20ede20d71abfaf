import { collection, idParams } from "../../dev/fakes/freee/generic-resources";
import { instanceOf, resolveRef, typesOf, type Schema } from "../../dev/fakes/freee/schema-instance";
import type { CompanyData } from "../../dev/fakes/freee/state";
import type { FreeeOperation } from "../../lib/freee/openapi/validator";

/**
 * Requests for any vendored freee operation, built from its schema: a valid one (the required parameters and
 * fields, with the ids of records the fake's company holds) and, for each operation, one freee must refuse (a
 * required value left out, or a value of the wrong type).
 */

export interface BuiltRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body?: Record<string, unknown>;
  /** A multipart body (the file box): its text fields, and the field that carries the file. */
  form?: { fields: Record<string, string>; fileField: string };
}

/** Ids of the fake's seeded company (dev/fakes/freee/state.ts seedCompany) for fields that name records. */
const IDS: Record<string, unknown> = { company_id: 101, partner_id: 12, account_item_id: 23, tax_code: 136, section_id: 51, item_id: 61, tag_ids: [41], from_walletable_id: 31, walletable_id: 31, year: 2026, month: 12 };

let names = 0;

function pick(op: FreeeOperation) {
  return (name: string, schema: Schema): unknown => {
    // Names are unique in a company (partners, tags…): each request gives a new one.
    if (name === "name" && typesOf(schema)[0] === "string" && schema.pattern === undefined) return `名前${++names}`;
    const wanted = IDS[name] ?? (name === "employee_id" && op.api === "hr" ? 1 : undefined);
    if (wanted === undefined) return undefined;
    const type = typesOf(schema)[0];
    if (Array.isArray(wanted)) return type === "array" ? wanted : undefined;
    return type === "integer" || type === "number" ? wanted : undefined;
  };
}

function queryOf(op: FreeeOperation, leaveOut?: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const p of op.parameters.filter((x) => x.in === "query" && (x.required || x.name === "company_id") && x.name !== leaveOut)) {
    const value = instanceOf(p.schema, { pick: pick(op) }, p.name);
    query[p.name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return query;
}

/** Path values: keys from the schema, record ids from the company (the first record of the collection named). */
function pathOf(op: FreeeOperation, company: CompanyData): string {
  const params: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === "path")) params[p.name] = String(instanceOf(p.schema, { pick: pick(op) }, p.name));
  if (op.path.startsWith("/api/1/walletables/{type}")) params.type = "bank_account";
  if (params.company_id !== undefined || /\/companies\/\{id\}$/.test(op.path)) params[params.company_id === undefined ? "id" : "company_id"] = String(company.id);
  // Parents first: a nested collection's path holds its parent's id, so each is worked out with those before it.
  for (const name of idParams(op, params).map((p) => p.name)) {
    const p = idParams(op, params).find((x) => x.name === name) as ReturnType<typeof idParams>[number];
    const record = collection(company, p.collection).find((r) => p.collection !== "/api/1/walletables" || r.type === params.type);
    if (record !== undefined) params[p.name] = String(record[p.field]);
  }
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] as string));
}

export function validRequest(op: FreeeOperation, company: CompanyData): BuiltRequest {
  const request: BuiltRequest = { method: op.method, path: pathOf(op, company), query: queryOf(op) };
  const spec = op.requestBody;
  if (spec === undefined) return request;
  const body = instanceOf(spec.schema, { pick: pick(op) }) as Record<string, unknown>;
  // A body that may name a partner names one (an invoice needs a partner, by id or code).
  const props = (resolveRef(spec.schema).properties ?? {}) as Record<string, Schema>;
  if (props.partner_id !== undefined && body.partner_id === undefined && op.api !== "sm" && op.api !== "pm") body.partner_id = IDS.partner_id;
  if (!spec.contentTypes.includes("application/json")) {
    const fileField = Object.keys(props).find((k) => resolveRef(props[k]).format === "binary") as string;
    const { [fileField]: _file, ...fields } = body;
    return { ...request, form: { fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])), fileField } };
  }
  return { ...request, body };
}

/** A property value the schema refuses: too long, outside the enum, or a word where a number goes. */
function wrongValue(schemaIn: unknown): unknown {
  const schema = resolveRef(schemaIn);
  if (typeof schema.maxLength === "number") return "x".repeat(schema.maxLength + 1);
  if (Array.isArray(schema.enum)) return "not-a-value";
  const type = typesOf(schema)[0];
  return type === "integer" || type === "number" || type === "boolean" ? "not-a-value" : undefined;
}

/** Required names of a body: its own and its allOf parts'; for an anyOf body, what every alternative requires. */
function requiredOf(schemaIn: unknown): string[] {
  const schema = resolveRef(schemaIn);
  const own = [schema, ...((schema.allOf ?? []) as unknown[]).map(resolveRef)].flatMap((p) => (p.required ?? []) as string[]);
  const alts = ((schema.anyOf ?? schema.oneOf ?? []) as unknown[]).map(requiredOf);
  const common = alts.length === 0 ? [] : (alts[0] as string[]).filter((k) => alts.every((a) => a.includes(k)));
  return [...new Set([...own, ...common])].sort((a, b) => Number(a === "company_id") - Number(b === "company_id"));
}

/**
 * A request freee refuses with 400, the first that applies: a required query value left out, a required body field
 * left out (the file of a multipart body), a path id that is not a number, a query or body value the schema refuses.
 * Undefined for an operation that takes no input at all (nothing to get wrong).
 */
export function invalidRequest(op: FreeeOperation, company: CompanyData): { request: BuiltRequest; what: string } | undefined {
  const valid = validRequest(op, company);
  const requiredQuery = op.parameters.filter((p) => p.in === "query" && p.required).sort((a, b) => Number(a.name === "company_id") - Number(b.name === "company_id"))[0];
  if (requiredQuery !== undefined) return { request: { ...valid, query: queryOf(op, requiredQuery.name) }, what: `query ${requiredQuery.name} left out` };
  if (valid.form !== undefined) return { request: { ...valid, form: { ...valid.form, fileField: "" } }, what: "the file left out" };
  const requiredField = op.requestBody === undefined ? undefined : requiredOf(op.requestBody.schema)[0];
  if (requiredField !== undefined && valid.body !== undefined) {
    const { [requiredField]: _gone, ...body } = valid.body;
    return { request: { ...valid, body }, what: `body ${requiredField} left out` };
  }
  const numericPath = op.parameters.find((p) => p.in === "path" && typesOf(resolveRef(p.schema))[0] === "integer");
  if (numericPath !== undefined) {
    const at = op.path.split("/").indexOf(`{${numericPath.name}}`);
    return { request: { ...valid, path: valid.path.split("/").map((s, i) => (i === at ? "not-a-number" : s)).join("/") }, what: `path ${numericPath.name} not a number` };
  }
  for (const p of op.parameters.filter((x) => x.in === "query")) {
    const wrong = wrongValue(p.schema);
    if (wrong !== undefined) return { request: { ...valid, query: { ...valid.query, [p.name]: String(wrong) } }, what: `query ${p.name} refused by its schema` };
  }
  const props = op.requestBody === undefined ? {} : ((resolveRef(op.requestBody.schema).properties ?? {}) as Record<string, unknown>);
  for (const [name, sub] of Object.entries(props)) {
    const wrong = wrongValue(sub);
    if (wrong !== undefined) return { request: { ...valid, body: { ...valid.body, [name]: wrong } }, what: `body ${name} refused by its schema` };
  }
  return undefined;
}
