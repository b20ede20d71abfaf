import type { Ajv, ValidateFunction } from "ajv";
import vendored from "./freee-responses.json";
import { compileWith, derefSchema, makeAjv, schemasOf, toIssue, type FreeeApi, type FreeeOperation, type ValidationIssue } from "./validator";

/**
 * freee's answers as its schemas describe them: per operation, status → schema of the success body (null for a
 * status whose body is an error shape), and the components only those reach (error bodies included). The freee
 * fake checks its own answers with them; no Lambda does, so they live apart from the request schemas
 * (freee-operations.json) and stay out of every bundle. Both files are written by scripts/vendor-freee-openapi.ts.
 */
interface VendoredResponses {
  responses: Record<string, Record<string, Record<string, unknown> | null>>;
  schemas: Record<string, unknown>;
}

const APIS = (vendored as unknown as { apis: Record<FreeeApi, VendoredResponses> }).apis;

/**
 * freee販売 writes some answers as `allOf: [Digest, {more fields}]` whose parts each say `additionalProperties:
 * false`: read literally no body passes (each part refuses the other's fields). Such an allOf is read as the one
 * closed object its parts describe together, as the request schemas are merged when vendored.
 */
function mergeClosedAllOf(node: unknown, api: FreeeApi): void {
  if (Array.isArray(node)) return node.forEach((n) => mergeClosedAllOf(n, api));
  if (node === null || typeof node !== "object") return;
  const o = node as Record<string, unknown>;
  for (const v of Object.values(o)) mergeClosedAllOf(v, api);
  if (!Array.isArray(o.allOf)) return;
  const parts = (o.allOf as Record<string, unknown>[]).map((p) => (typeof p.$ref === "string" ? lookUp(p.$ref) : p));
  if (!parts.some((p) => p.additionalProperties === false) || parts.some((p) => p.allOf !== undefined || p.anyOf !== undefined)) return;
  const required = [...new Set(parts.flatMap((p) => (p.required ?? []) as string[]))];
  delete o.allOf;
  Object.assign(o, { type: "object", properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})), ...(required.length > 0 ? { required } : {}), additionalProperties: false });
}

function lookUp(ref: string): Record<string, unknown> {
  const [api, name] = ref.split("#/$defs/") as [FreeeApi, string];
  return (APIS[api]?.schemas[name] ?? schemasOf(api)[name] ?? {}) as Record<string, unknown>;
}

for (const [api, v] of Object.entries(APIS) as [FreeeApi, VendoredResponses][]) mergeClosedAllOf(v, api);

/** Status → schema of the operation's answers (as vendored). */
export function responsesOf(operation: FreeeOperation): Record<string, Record<string, unknown> | null> {
  return APIS[operation.api]?.responses[`${operation.method} ${operation.path}`] ?? {};
}

let ajv: Ajv | undefined;

/**
 * Some of freee's response schemas require a field their properties do not describe (purchase request forms'
 * `route_setting_count`): still required, of any shape; Ajv's strict mode would refuse to compile them.
 */
function responseAjv(): Ajv {
  return makeAjv(false, false, (api) => APIS[api].schemas, false);
}
const compiled = new Map<string, ValidateFunction>();

/** Issues of a success body against the operation's response schema (the fake checks its own answers). */
export function checkResponse(operation: FreeeOperation, status: number, body: unknown): ValidationIssue[] {
  const schema = responsesOf(operation)[String(status)];
  if (schema === undefined) return [{ in: "body", at: "", keyword: "status", message: `${operation.operationId} は ${status} を返しません` }];
  if (schema === null) return [];
  const key = `${operation.method} ${operation.path} response ${status}`;
  let fn = compiled.get(key);
  if (fn === undefined) {
    ajv ??= responseAjv();
    fn = compileWith(ajv, schema);
    compiled.set(key, fn);
  }
  return fn(body) ? [] : (fn.errors ?? []).map((e) => toIssue("body", e));
}

/** A response schema with every `$ref` replaced (request and response components both). */
export function derefResponse(node: unknown): unknown {
  return derefSchema(node, (api) => APIS[api].schemas);
}

/** The components only responses reach, of one API (the freee fake resolves `$ref`s in answers with them). */
export function responseDefs(api: FreeeApi): Record<string, unknown> {
  return APIS[api]?.schemas ?? {};
}

const fitting = new WeakMap<object, ValidateFunction>();

/** Whether a value is what a schema of the vendored responses allows (the fake keeps a stored value only if so). */
export function fitsResponseSchema(schema: object, value: unknown): boolean {
  let fn = fitting.get(schema);
  if (fn === undefined) {
    ajv ??= responseAjv();
    fn = compileWith(ajv, schema);
    fitting.set(schema, fn);
  }
  return fn(value);
}
