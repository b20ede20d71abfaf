import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
// freee's format rules the schemas leave out (dates, times, yen) are on the fields already: the vendoring script
// puts them on before it packs the details (format-rules.ts); here they are registered as Ajv formats.
import { FORMAT_RULES, formatRule } from "./format-rules";
import { inflate, type PackedDetails, type PackedSource } from "./packed";
import { PACKED_DETAILS, PACKED_INDEX } from "./packed-requests";
import { matchPath, pathPatterns, type PathPattern } from "../path-patterns";

/**
 * freee's own OpenAPI schemas (vendored by scripts/vendor-freee-openapi.ts from freee/freee-api-schema, MIT, and
 * freee/freee-mcp, Apache 2.0; lib/freee/openapi/packed-requests.ts) as a request validator: which operation a method + path is, and whether its query, path parameters and JSON body
 * are what freee accepts. The MCP server and L3 plan validation use it, and the test fake of freee
 * answers 400 exactly when it says no.
 *
 * Deliberate readings of the schemas:
 * - freee's format rules the schemas leave out (accounting's dates typed as plain strings, HR's times, yen amounts)
 *   are put on the fields when the schemas are vendored, before anything reads them (lib/freee/openapi/format-rules.ts).
 * - `format: date-time` is not checked as RFC 3339: freee's HR times are `YYYY-MM-DD HH:MM:SS` and carry their
 *   own `pattern`, which is what freee enforces (a `T…+09:00` time fails that pattern); the format rules check
 *   those as real days and times.
 * - No freee schema sets `additionalProperties: false`, and freee ignores a property it does not know; so does
 *   this validator unless `unknownProperties: "reject"` is asked for (plan validation: a misspelt field that freee
 *   would silently drop is a plan that does not do what it says).
 */

export type FreeeApi = "accounting" | "hr" | "invoice" | "pm" | "sm";

/** The five APIs, in the order the vendored schemas list them. */
export const FREEE_APIS: readonly FreeeApi[] = Object.keys(PACKED_INDEX) as FreeeApi[];
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface FreeeParameter {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  required: boolean;
  /** freee's own Japanese description, first sentence. */
  description?: string;
  schema: Record<string, unknown>;
}

export interface FreeeOperation {
  api: FreeeApi;
  operationId: string;
  /** freee's Japanese summary (「取引（収入・支出）の作成」). */
  summary: string;
  method: HttpMethod;
  /** Full path under https://api.freee.co.jp, e.g. `/hr/api/v1/employees/{id}`. */
  path: string;
  parameters: FreeeParameter[];
  requestBody?: { required: boolean; contentTypes: string[]; schema: Record<string, unknown> };
}

export interface ValidationIssue {
  in: "query" | "path" | "body";
  /** JSON pointer into the part (`/details/0/amount`), or the parameter name. */
  at: string;
  keyword: string;
  /** Japanese, in the spirit of freee's own validation messages. */
  message: string;
}

export type RequestCheck =
  | {
      ok: true;
      operation: FreeeOperation;
      pathParams: Record<string, string>;
      /** Query and body as the schema reads them (numeric strings as numbers…), for one spelling per request. */
      normalised: { query: Record<string, unknown>; body: unknown };
    }
  | { ok: false; reason: "unknown_operation"; api: FreeeApi | undefined }
  | { ok: false; reason: "invalid"; operation: FreeeOperation; issues: ValidationIssue[] };

export interface RequestToCheck {
  method: string;
  /** Path under the API base URL, without query string. */
  path: string;
  /** Query values as sent (strings, or arrays for repeated keys); numbers and booleans are accepted too. */
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  body?: unknown;
  /**
   * A multipart/form-data request (freee's file box): the body holds its text fields, `fileFields` names the
   * fields that carry a file (checked as present — the bytes are not the schema's business).
   */
  multipart?: { fileFields: readonly string[] };
}

/** What stands for the file in a multipart body while it is checked (the schema says `format: binary`). */
const FILE_PLACEHOLDER = "(file)";
const MULTIPART = "multipart/form-data";
const JSON_TYPE = "application/json";

export interface CheckOptions {
  unknownProperties?: "ignore" | "reject";
  /** Read the body as the schema types it (numeric strings as numbers) before judging it: plan inputs, not freee's wire. */
  coerceBody?: boolean;
}

export const FREEE_SCHEMA_SOURCES: Readonly<Record<FreeeApi, PackedSource>> = Object.fromEntries(FREEE_APIS.map((api) => [api, PACKED_INDEX[api]!.source])) as Record<FreeeApi, PackedSource>;

const details = new Map<FreeeApi, PackedDetails>();

/** An API's parameters, bodies and components (format rules on), inflated the first time anything of that API is asked for. */
function detailsOf(api: FreeeApi): PackedDetails {
  let d = details.get(api);
  if (d === undefined) details.set(api, (d = inflate(PACKED_DETAILS[api] as string)));
  return d;
}


/** The component schemas of one API (`$ref: "<api>#/$defs/<name>"` names them). */
export function schemasOf(api: FreeeApi): Record<string, unknown> {
  return detailsOf(api).schemas;
}

/** Method, path and summary are read at once; parameters and body only when asked (their API inflates then). */
export const FREEE_OPERATIONS: readonly FreeeOperation[] = FREEE_APIS.flatMap((api) =>
  (PACKED_INDEX[api] as { operations: ReadonlyArray<readonly [string, string, string, string]> }).operations.map(([method, path, operationId, summary], i) => {
    const op = { api, method: method as HttpMethod, path, operationId, summary } as FreeeOperation;
    Object.defineProperty(op, "parameters", { enumerable: true, get: () => detailsOf(api).operations[i]!.parameters });
    Object.defineProperty(op, "requestBody", { enumerable: true, get: () => detailsOf(api).operations[i]!.requestBody });
    return op;
  }),
);

let matchers: PathPattern<FreeeOperation>[] | undefined;

/** One pattern per operation, built on the first lookup (a Lambda that never routes a freee path builds none). */
const operationMatchers = () => (matchers ??= pathPatterns(FREEE_OPERATIONS, (operation) => operation.path));

/** Which API a path belongs to, from its prefix (the same host serves all three). */
export function apiOfPath(path: string): FreeeApi | undefined {
  if (path.startsWith("/hr/")) return "hr";
  if (path.startsWith("/iv/")) return "invoice";
  if (path.startsWith("/pm/")) return "pm";
  if (path.startsWith("/sm/")) return "sm";
  if (path.startsWith("/api/1/")) return "accounting";
  return undefined;
}

export function findOperation(method: string, path: string): { operation: FreeeOperation; pathParams: Record<string, string> } | undefined {
  const upper = method.toUpperCase();
  const found = matchPath(operationMatchers(), path, (operation) => operation.method === upper);
  return found === undefined ? undefined : { operation: found.item, pathParams: found.pathParams };
}

// ------------------------------------------------------------------ Ajv

// ajv-formats is CommonJS with `exports.default`; under a bundler or tsx either shape may arrive.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv, formats: string[]) => Ajv;

/**
 * One Ajv over the vendored schemas of the five APIs, each API's components added when a schema first names them
 * (compileWith). `extraDefs` adds more `$defs` per API: the response schemas (lib/freee/openapi/responses.ts), kept
 * out of this module because no Lambda checks freee's answers.
 */
export function makeAjv(coerceTypes: boolean, rejectUnknown: boolean, extraDefs?: (api: FreeeApi) => Record<string, unknown>, strictRequired = true): Ajv {
  // verbose: an error carries its schema, so a yen field's type error can say what freee wants (toIssue).
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired, coerceTypes, useDefaults: false, verbose: true });
  addFormats(ajv, ["uri"]);
  for (const rule of FORMAT_RULES) {
    ajv.addFormat(rule.format, rule.type === "string" ? { type: "string", validate: (t: string) => rule.validate(t) } : { type: "number", validate: (n: number) => rule.validate(n) });
  }
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat("float", { type: "number", validate: () => true });
  ajv.addFormat("double", { type: "number", validate: () => true });
  // freee's date-times are validated by their `pattern` (see the header).
  ajv.addFormat("date-time", () => true);
  ajv.addFormat("binary", () => true);
  ajv.addFormat("string", () => true);
  ADDERS.set(ajv, (api) => {
    const all = { ...schemasOf(api), ...extraDefs?.(api) };
    ajv.addSchema({ $id: api, $defs: rejectUnknown ? closeObjects(all) : all });
  });
  return ajv;
}

const ADDERS = new WeakMap<Ajv, (api: FreeeApi) => void>();

/** Compiles a schema on an Ajv from makeAjv, first adding the components of every API its `$ref`s name. */
export function compileWith(ajv: Ajv, schema: object): ValidateFunction {
  for (const api of apisReferenced(schema)) {
    if (ajv.getSchema(api) === undefined) ADDERS.get(ajv)?.(api);
  }
  return ajv.compile(schema);
}

function apisReferenced(node: unknown, found = new Set<FreeeApi>()): Set<FreeeApi> {
  if (Array.isArray(node)) for (const n of node) apisReferenced(n, found);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") found.add(v.split("#")[0] as FreeeApi);
      else apisReferenced(v, found);
    }
  }
  return found;
}

/** Every object schema that lists its properties also forbids others (the `unknownProperties: "reject"` reading). */
function closeObjects<T>(node: T): T {
  if (Array.isArray(node)) return node.map(closeObjects) as T;
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closeObjects(s)])) : closeObjects(v);
  if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false;
  return out as T;
}

const instances = new Map<string, Ajv>();
const compiled = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: object, coerce: boolean, rejectUnknown: boolean): ValidateFunction {
  const cacheKey = `${coerce}|${rejectUnknown}|${key}`;
  let fn = compiled.get(cacheKey);
  if (fn === undefined) {
    const instanceKey = `${coerce}|${rejectUnknown}`;
    let ajv = instances.get(instanceKey);
    if (ajv === undefined) instances.set(instanceKey, (ajv = makeAjv(coerce, rejectUnknown)));
    fn = compileWith(ajv, rejectUnknown ? closeObjects(schema) : schema);
    compiled.set(cacheKey, fn);
  }
  return fn;
}

// ------------------------------------------------------------------ requests

export function checkRequest(request: RequestToCheck, options: CheckOptions = {}): RequestCheck {
  const found = findOperation(request.method, request.path);
  if (found === undefined) return { ok: false, reason: "unknown_operation", api: apiOfPath(request.path) };
  const { operation, pathParams } = found;
  const rejectUnknown = options.unknownProperties === "reject";
  const issues: ValidationIssue[] = [];
  const normalised: { query: Record<string, unknown>; body: unknown } = { query: {}, body: undefined };

  for (const where of ["path", "query"] as const) {
    const params = operation.parameters.filter((p) => p.in === where);
    const given = where === "path" ? { ...pathParams } : queryValues(request.query ?? {}, params);
    const schema = {
      type: "object",
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
    if (rejectUnknown && where === "query") Object.assign(schema, { additionalProperties: false });
    const closed = rejectUnknown && where === "query";
    const fn = validatorFor(`${operation.method} ${operation.path} ${where}${closed ? " closed" : ""}`, schema, true, false);
    // Ajv coerces the object it is given in place: `given` ends up as the schema reads it.
    if (!fn(given)) issues.push(...(fn.errors ?? []).map((e) => toIssue(where, e)));
    if (where === "query") normalised.query = given;
  }

  const bodySpec = operation.requestBody;
  if (bodySpec === undefined) {
    // freee ignores a body on an operation without one; a plan that sends one has misunderstood the operation.
    if (rejectUnknown && request.body !== undefined) issues.push({ in: "body", at: "", keyword: "body", message: "この操作はリクエストボディを受け付けません" });
  } else if (!bodySpec.contentTypes.includes(request.multipart === undefined ? JSON_TYPE : MULTIPART)) {
    // freee answers 400 to a JSON body where it takes only a form with a file (the file box), and the reverse.
    const wanted = bodySpec.contentTypes.join(", ");
    issues.push({ in: "body", at: "", keyword: "contentType", message: `この操作のリクエストは ${wanted} で送ります` });
  } else if (request.body === undefined && request.multipart === undefined) {
    if (bodySpec.required) issues.push({ in: "body", at: "", keyword: "required", message: "リクエストボディが必要です" });
    else {
      // An absent optional body is validated as `{}`: its own `required` list still applies (freee reads the
      // parameters from the body and answers 400 for the missing ones).
      const fn = validatorFor(`${operation.method} ${operation.path} body`, bodySpec.schema, false, rejectUnknown);
      if (!fn({})) issues.push(...(fn.errors ?? []).map((e) => toIssue("body", e)));
    }
  } else {
    // A clone: Ajv coerces in place, and the caller's value is left alone.
    const body = structuredClone(request.body ?? {}) as Record<string, unknown>;
    for (const field of request.multipart?.fileFields ?? []) body[field] = FILE_PLACEHOLDER;
    // Form fields arrive as text: a multipart body is read as freee reads it (numbers from their digits).
    const coerce = options.coerceBody === true || request.multipart !== undefined;
    const fn = validatorFor(`${operation.method} ${operation.path} body${coerce ? " coerce" : ""}`, bodySpec.schema, coerce, rejectUnknown);
    if (!fn(body)) issues.push(...(fn.errors ?? []).map((e) => toIssue("body", e)));
    for (const field of request.multipart?.fileFields ?? []) delete body[field];
    normalised.body = body;
  }
  return issues.length === 0 ? { ok: true, operation, pathParams, normalised } : { ok: false, reason: "invalid", operation, issues: dedupe(issues) };
}

/**
 * Validates a value against a schema written in the vendored vocabulary (`$ref`s into `<api>#/$defs/…`): the typed
 * tools' inputs. `coerce` reads numeric strings as numbers (the value is changed in place); `closed` refuses
 * properties the schema does not list, as plan validation does.
 */
export function checkValue(key: string, schema: object, value: unknown, options: { coerce: boolean; closed: boolean }): ValidationIssue[] {
  const fn = validatorFor(`value ${key}`, schema, options.coerce, options.closed);
  return fn(value) ? [] : dedupe((fn.errors ?? []).map((e) => toIssue("body", e)));
}

/** A schema with every `$ref` replaced by what it names: self-contained, for MCP tools/list and the catalogue. */
export function derefSchema(node: unknown, extraDefs?: (api: FreeeApi) => Record<string, unknown>, depth = 0): unknown {
  if (depth > 12) return {};
  const deref = (n: unknown) => derefSchema(n, extraDefs, depth + 1);
  if (Array.isArray(node)) return node.map(deref);
  if (node === null || typeof node !== "object") return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    const [api, pointer] = ref.split("#/$defs/") as [FreeeApi, string];
    const target = (FREEE_APIS.includes(api) ? schemasOf(api)[pointer] : undefined) ?? extraDefs?.(api)[pointer];
    if (target === undefined) throw new Error(`vendored freee schema: dangling $ref ${ref}`);
    return deref(target);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([p, sub]) => [p, deref(sub)])) : deref(v)]));
}

function queryValues(query: NonNullable<RequestToCheck["query"]>, params: FreeeParameter[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const param = params.find((p) => p.name === key || p.name === `${key}[]`);
    const isArray = param?.schema.type === "array";
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    out[param?.name ?? key] = isArray ? values : values[values.length - 1];
  }
  return out;
}

export function toIssue(where: ValidationIssue["in"], e: ErrorObject): ValidationIssue {
  const p = e.params as Record<string, unknown>;
  const child = e.keyword === "required" ? p.missingProperty : e.keyword === "additionalProperties" ? p.additionalProperty : undefined;
  const segments = [...e.instancePath.split("/").filter((s) => s !== ""), ...(child === undefined ? [] : [String(child)])];
  // Parameters by name (`month`), body fields as a dotted path (`details.0.tax_code`).
  const field = segments.length === 0 ? "リクエスト" : segments.join(".");
  const rule = formatRule(e.keyword === "format" ? p.format : e.keyword === "type" ? (e.parentSchema as { format?: unknown } | undefined)?.format : undefined);
  const messages: Record<string, () => string> = {
    required: () => `${field} は必須です`,
    pattern: () => `${field} の形式が不正です（${String(p.pattern)}）`,
    format: () => rule?.message(field) ?? `${field} の形式が不正です（${String(p.format)}）`,
    enum: () => `${field} は ${(p.allowedValues as unknown[]).map(String).join(", ")} のいずれかを指定してください`,
    type: () => rule?.message(field) ?? `${field} は ${String(p.type)} で指定してください`,
    minimum: () => `${field} は ${String(p.limit)} 以上で指定してください`,
    maximum: () => `${field} は ${String(p.limit)} 以下で指定してください`,
    minLength: () => `${field} は ${String(p.limit)} 文字以上で指定してください`,
    maxLength: () => `${field} は ${String(p.limit)} 文字以内で指定してください`,
    minItems: () => `${field} は ${String(p.limit)} 件以上指定してください`,
    maxItems: () => `${field} は ${String(p.limit)} 件以内で指定してください`,
    additionalProperties: () => `${field} は不明な項目です`,
    anyOf: () => `${field} はどの形式にも当てはまりません`,
  };
  const at = where === "body" ? `/${segments.join("/")}` : segments.join(".");
  return { in: where, at, keyword: e.keyword, message: (messages[e.keyword] ?? (() => `${field}: ${e.message ?? e.keyword}`))() };
}

/**
 * Drops repeats (two anyOf branches failing alike), the anyOf summary when a concrete issue says more, and a
 * pattern's issue where the field's format rule says the same in words.
 */
function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const concrete = issues.some((i) => i.keyword !== "anyOf");
  const formatted = new Set(issues.filter((i) => i.keyword === "format").map((i) => `${i.in}|${i.at}`));
  return issues.filter((i) => {
    if (concrete && i.keyword === "anyOf") return false;
    if (i.keyword === "pattern" && formatted.has(`${i.in}|${i.at}`)) return false;
    const key = `${i.in}|${i.at}|${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
