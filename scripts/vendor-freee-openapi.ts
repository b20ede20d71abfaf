import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import { parse as parseYaml } from "yaml";
import { detailsWithFormatRules } from "../lib/freee/openapi/format-rules";

/**
 * Vendors the facts this project uses from freee's five official OpenAPI schemas (会計, 人事労務, 請求書, 工数管理,
 * 販売) into lib/freee/openapi/ (requests and responses in two files, see splitResponses): every operation of every
 * schema (method, path, parameters, request body, success response) and every component schema they reach (as
 * `schemas`), examples dropped, descriptions shortened, component `$ref`s rewritten to `<api>#/$defs/<name>` so one
 * Ajv instance holds all five APIs, and every other `$ref` (parameters, request bodies, responses, pointers into
 * paths or into a component) resolved as an RFC 6901 JSON pointer and inlined. Each API records its source commit
 * and licence. Run it when the upstream schemas change:
 *
 *   npx tsx scripts/vendor-freee-openapi.ts [contracts/freee] [out]   (defaults: <repo>/../shared/contracts/freee, lib/freee/openapi)
 *
 * Only this script reads the shared contracts; tests and lib/ read the vendored file.
 */

interface Source {
  repository: string;
  commit: string;
  date: string;
  /** The file in that repository, where the copy says which. */
  file?: string;
  licence: string;
}

const FREEE_API_SCHEMA = { repository: "freee/freee-api-schema", commit: "0f6b621", date: "2026-08-21", licence: "MIT (Copyright (c) 2019 freee K.K.), see lib/freee/openapi/MIT-LICENCE" };
const FREEE_MCP = { repository: "freee/freee-mcp", commit: "ff3e506", date: "2026-03-16", licence: "Apache License 2.0, see lib/freee/openapi/APACHE-2.0-LICENCE-freee-mcp" };

type Api = "accounting" | "hr" | "invoice" | "pm" | "sm";

/** Where each API lives under https://api.freee.co.jp (its `servers` entry), its file, and where the file comes from. */
const APIS: Record<Api, { file: string; prefix: string; source: Source }> = {
  accounting: { file: "accounting.openapi.json", prefix: "", source: FREEE_API_SCHEMA },
  hr: { file: "hr.openapi.json", prefix: "/hr", source: FREEE_API_SCHEMA },
  invoice: { file: "invoice.openapi.yml", prefix: "/iv", source: FREEE_API_SCHEMA },
  pm: { file: "pm.openapi.json", prefix: "/pm", source: { ...FREEE_MCP, file: "openapi/pm-api-schema.json" } },
  sm: { file: "sm.openapi.json", prefix: "/sm", source: { ...FREEE_MCP, file: "openapi/sm-api-schema.json" } },
};

/** Every operation of every schema: the methods freee's schemas use. */
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Error bodies the fake answers with (kept even when no operation names them). */
const ERROR_SCHEMAS: Record<Api, string[]> = {
  accounting: ["badRequestError", "unauthorizedError", "forbiddenError", "badRequestNotFoundError", "tooManyRequestsError", "internalServerError"],
  hr: ["error", "unauthorizedError", "forbiddenError", "accessDeniedError", "notfoundError", "internalServerError"],
  invoice: ["badRequest", "unauthorizedError", "forbiddenError", "accessDeniedError", "notfoundError", "internalServerError"],
  pm: [],
  sm: [],
};

/** JSON Schema keywords kept; everything else (example, x-*, readOnly, ...) is dropped. */
const KEYWORDS = new Set([
  "type", "format", "enum", "const", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
  "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "items", "properties", "required",
  "additionalProperties", "anyOf", "oneOf", "allOf", "not", "nullable", "default", "$ref", "description",
]);

/**
 * freee's own Japanese descriptions, kept short: the first sentence, at most this long (the tool catalogue shows
 * them to the model; the rest of freee's text is for people reading the reference).
 */
const MAX_DESCRIPTION = 60;

function shortDescription(text: string): string | undefined {
  const first = text.split(/<br>|\n|。/)[0]?.replace(/<[^>]+>/g, "").trim() ?? "";
  if (first === "") return undefined;
  return first.length > MAX_DESCRIPTION ? `${first.slice(0, MAX_DESCRIPTION - 1)}…` : first;
}

interface Spec {
  paths: Record<string, Record<string, any>>;
  components: { schemas?: Record<string, unknown> } & Record<string, unknown>;
}

const COMPONENT = /^#\/components\/schemas\/([^/]+)$/;

/** RFC 6901: `#/paths/~1api~1v1~1x/post/requestBody` → the node it names (`~1` is `/`, `~0` is `~`). */
function resolvePointer(spec: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) throw new Error(`external $ref ${ref} is not supported`);
  let node: unknown = spec;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !(key in node)) throw new Error(`dangling $ref ${ref}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * Follows `$ref`s that do not name a whole component schema (parameters, request bodies, responses, pointers into
 * paths or into a component) until a node that is not such a reference: what the schema means at that place.
 */
function follow(spec: Spec, node: unknown, seen: string[] = []): unknown {
  let here = node;
  while (here !== null && typeof here === "object" && typeof (here as { $ref?: unknown }).$ref === "string") {
    const ref = (here as { $ref: string }).$ref;
    if (COMPONENT.test(ref)) return here;
    if (seen.includes(ref)) throw new Error(`$ref cycle through ${ref}`);
    seen = [...seen, ref];
    here = resolvePointer(spec, ref);
  }
  return here;
}

/**
 * A schema in the vendored vocabulary: kept keywords only, short descriptions, `$ref`s to a whole component
 * rewritten to `<api>#/$defs/<name>` (one Ajv instance holds every API) and collected in `refs`; every other
 * `$ref` (a pointer into a component or into paths) inlined, so each vendored `$ref` names one `$defs` entry.
 */
function clean(node: unknown, api: Api, refs: Set<string>, spec: Spec, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((n) => clean(n, api, refs, spec, seen));
  if (node === null || typeof node !== "object") return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    const component = COMPONENT.exec(ref);
    if (component !== null) {
      const name = decodeURIComponent(component[1] as string);
      refs.add(name);
      // Ajv resolves `<api>#/$defs/<name>` against the document the validator adds per API (lib/freee/openapi).
      return { $ref: `${api}#/$defs/${name}` };
    }
    if (seen.includes(ref)) throw new Error(`${api}: $ref cycle through ${ref}`);
    return clean(resolvePointer(spec, ref), api, refs, spec, [...seen, ref]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEYWORDS.has(key)) continue;
    if (key === "description") {
      const short = typeof value === "string" ? shortDescription(value) : undefined;
      if (short !== undefined) out.description = short;
    } else if (key === "properties") {
      // Property names are data, not keywords: a property called `description` stays.
      out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([p, s]) => [p, clean(s, api, refs, spec, seen)]));
    } else {
      out[key] = clean(value, api, refs, spec, seen);
    }
  }
  // OpenAPI's `nullable` needs a `type` beside it (Ajv refuses it alone): on a bare anyOf / oneOf it is one more branch.
  if (out.nullable === true && out.type === undefined) {
    const branches = out.anyOf !== undefined ? "anyOf" : out.oneOf !== undefined ? "oneOf" : undefined;
    delete out.nullable;
    if (branches !== undefined) out[branches] = [...(out[branches] as unknown[]), { type: "null" }];
  }
  return out;
}

function jsonSchemaOf(content: Record<string, { schema?: unknown }> | undefined): { contentTypes: string[]; schema: unknown } | undefined {
  if (content === undefined) return undefined;
  const types = Object.keys(content);
  const json = content["application/json"] ?? content[types[0] as string];
  return json?.schema === undefined ? undefined : { contentTypes: types, schema: json.schema };
}

/**
 * freee販売 writes its bodies as `allOf: [WithCompanyId, <fields>, {required}]`. Merged into one object, so the
 * body has one list of properties: plan validation closes objects (unknown fields refused), which an `allOf` of
 * closed parts would turn into "no field allowed" — and the parts already say `additionalProperties: false`, which
 * read literally refuses every real body (company_id is not a field of the other part). The parts' closedness is
 * dropped; plan validation closes the merged object. Left alone unless every part is a plain object schema.
 */
const MERGEABLE = new Set(["type", "properties", "required", "description", "additionalProperties"]);

function mergeAllOf(spec: Spec, schema: unknown): unknown {
  const parts = (schema as { allOf?: unknown[] } | undefined)?.allOf;
  if (!Array.isArray(parts) || Object.keys(schema as object).some((k) => k !== "allOf" && k !== "description")) return schema;
  const resolved = parts.map((part) => {
    const ref = (part as { $ref?: unknown }).$ref;
    return (typeof ref === "string" ? resolvePointer(spec, ref) : part) as Record<string, unknown>;
  });
  if (!resolved.every((r) => Object.keys(r).every((k) => MERGEABLE.has(k)) && (r.type === undefined || r.type === "object"))) return schema;
  const properties = Object.assign({}, ...resolved.map((r) => r.properties ?? {}));
  const required = [...new Set(resolved.flatMap((r) => (r.required ?? []) as string[]))];
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

function operationsOf(spec: Spec): Array<{ method: string; path: string; op: any; shared: unknown[] }> {
  const out: Array<{ method: string; path: string; op: any; shared: unknown[] }> = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op !== undefined) out.push({ method: method.toUpperCase(), path, op, shared: (item.parameters ?? []) as unknown[] });
    }
  }
  return out;
}

function vendorApi(api: Api, spec: Spec): unknown {
  const refs = new Set<string>(ERROR_SCHEMAS[api]);
  const operations = operationsOf(spec).map(({ method, path, op, shared }) => {
    // An operation's own parameter overrides the path item's one of the same name and place (OpenAPI 3).
    const params = new Map<string, any>();
    for (const raw of [...shared, ...(op.parameters ?? [])]) {
      const p = follow(spec, raw) as any;
      params.set(`${p.in} ${p.name}`, p);
    }
    const responses = follow(spec, op.responses ?? {}) as Record<string, unknown>;
    const statuses = Object.keys(responses);
    const success = statuses.find((s) => /^2\d\d$/.test(s));
    const requestBody = op.requestBody === undefined ? undefined : (follow(spec, op.requestBody) as any);
    const body = jsonSchemaOf(requestBody?.content);
    const response = success === undefined ? undefined : jsonSchemaOf((follow(spec, responses[success]) as any).content);
    return {
      // pm names some operations `/projects/create` and leaves others unnamed: those get `get_projects_id`.
      operationId: typeof op.operationId === "string" ? op.operationId : `${method.toLowerCase()}${path.replace(/[{}]/g, "").replaceAll("/", "_")}`,
      summary: String(op.summary ?? op.operationId).trim(),
      method,
      path: APIS[api].prefix + path,
      parameters: [...params.values()].map((p: any) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        ...(typeof p.description === "string" && shortDescription(p.description) !== undefined ? { description: shortDescription(p.description) } : {}),
        schema: clean(p.schema ?? {}, api, refs, spec),
      })),
      ...(body === undefined ? {} : { requestBody: { required: requestBody.required === true, contentTypes: body.contentTypes, schema: clean(mergeAllOf(spec, body.schema), api, refs, spec) } }),
      responses: Object.fromEntries(statuses.map((status) => [status, status === success && response !== undefined ? clean(response.schema, api, refs, spec) : null])),
    };
  });
  // Close over references: a component may reach others.
  const schemas: Record<string, unknown> = {};
  const pending = [...refs];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in schemas) continue;
    const raw = spec.components.schemas?.[name];
    if (raw === undefined) throw new Error(`${api}: $ref to missing component ${name}`);
    const found = new Set<string>();
    schemas[name] = clean(raw, api, found, spec);
    for (const n of found) if (!(n in schemas)) pending.push(n);
  }
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]]));
  return { prefix: APIS[api].prefix, source: APIS[api].source, operations, schemas: sorted };
}

/**
 * Requests and responses in two files: every Lambda that plans or checks a call bundles the request side
 * (freee-operations.json); only the freee fake checks answers (freee-responses.json, lib/freee/openapi/responses.ts),
 * so the response schemas and the components only they reach (error bodies too) stay out of the bundles.
 */
function splitResponses(all: Record<string, unknown>): { requests: Record<string, unknown>; responses: Record<string, unknown> } {
  const requests: Record<string, unknown> = { apis: {} };
  const responses: Record<string, unknown> = { apis: {} };
  for (const [api, vendoredApi] of Object.entries(all.apis as Record<string, { prefix: string; source: Source; operations: any[]; schemas: Record<string, unknown> }>)) {
    const operations = vendoredApi.operations.map(({ responses: _r, ...op }) => op);
    const needed = new Set<string>();
    const pending = [...refsIn(operations)];
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (needed.has(name)) continue;
      needed.add(name);
      pending.push(...refsIn(vendoredApi.schemas[name]));
    }
    const pick = (keep: boolean) => Object.fromEntries(Object.entries(vendoredApi.schemas).filter(([name]) => needed.has(name) === keep));
    (requests.apis as Record<string, unknown>)[api] = { prefix: vendoredApi.prefix, source: vendoredApi.source, operations, schemas: pick(true) };
    (responses.apis as Record<string, unknown>)[api] = {
      responses: Object.fromEntries(vendoredApi.operations.map((op) => [`${op.method} ${op.path}`, op.responses])),
      schemas: pick(false),
    };
  }
  return { requests, responses };
}

function refsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) refsIn(n, found);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") found.add(v.split("#/$defs/")[1] as string);
      else refsIn(v, found);
    }
  }
  return found;
}

// Default: the shared/ folder beside the repository (a worktree elsewhere passes the path); the output folder
// can be named too (the script's own test vendors a small schema into a temporary folder).
const dir = resolve(process.argv[2] ?? resolve(import.meta.dirname, "../../shared/contracts/freee"));
const outDir = resolve(process.argv[3] ?? resolve(import.meta.dirname, "../lib/freee/openapi"));
const all: Record<string, unknown> = { apis: {} };
for (const api of Object.keys(APIS) as Api[]) {
  const path = resolve(dir, APIS[api].file);
  if (!existsSync(path)) throw new Error(`no ${APIS[api].file} in ${dir}`);
  const text = readFileSync(path, "utf8");
  const spec = (APIS[api].file.endsWith(".yml") ? parseYaml(text) : JSON.parse(text)) as Spec;
  (all.apis as Record<string, unknown>)[api] = vendorApi(api, spec);
}
const { requests, responses } = splitResponses(all);
// One line per operation and per component: small in the bundles, and a schema change is a readable diff.
writeFileSync(resolve(outDir, "freee-operations.json"), compactJson(requests));
writeFileSync(resolve(outDir, "freee-responses.json"), compactJson(responses));
writeFileSync(resolve(outDir, "packed-requests.ts"), packedModule(requests));
for (const licence of ["MIT-LICENCE", "APACHE-2.0-LICENCE-freee-mcp"]) writeFileSync(resolve(outDir, licence), readFileSync(resolve(dir, licence)));
const count = Object.values(requests.apis as Record<string, { operations: unknown[] }>).map((a) => a.operations.length);
console.log(`wrote ${outDir}/freee-operations.json (${count.reduce((a, b) => a + b, 0)} operations, ${(JSON.stringify(requests).length / 1024).toFixed(0)} KiB) and freee-responses.json`);

/** JSON with a line break before each operation and each component schema, nothing else indented. */
function compactJson(value: Record<string, unknown>): string {
  const apis = value.apis as Record<string, Record<string, unknown>>;
  const parts = Object.entries(apis).map(([api, body]) => {
    const fields = Object.entries(body).map(([key, v]) => {
      if (Array.isArray(v)) return `${JSON.stringify(key)}:[\n${v.map((x) => JSON.stringify(x)).join(",\n")}\n]`;
      if (v !== null && typeof v === "object" && (key === "schemas" || key === "responses")) {
        return `${JSON.stringify(key)}:{\n${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${JSON.stringify(x)}`).join(",\n")}\n}`;
      }
      return `${JSON.stringify(key)}:${JSON.stringify(v)}`;
    });
    return `${JSON.stringify(api)}:{\n${fields.join(",\n")}\n}`;
  });
  return `{"apis":{\n${parts.join(",\n")}\n}}\n`;
}

/**
 * The request side as the Lambdas bundle it (lib/freee/openapi/packed-requests.ts): per API, an index in plain text
 * (method, path, operation id, summary: what routing, the catalogue and the write classes read) and the rest
 * (parameters, bodies, components, with freee's format rules put on: lib/freee/openapi/format-rules.ts) as
 * Brotli-compressed JSON, inflated on first use of that API. 327 operations
 * are about 470 KB of JSON and about 30 KB packed, so each Lambda bundle stays under its 1 MiB goal.
 */
function packedModule(value: Record<string, unknown>): string {
  const apis = value.apis as Record<string, { prefix: string; source: Source; operations: any[]; schemas: Record<string, unknown> }>;
  const index: Record<string, unknown> = {};
  const packed: Record<string, string> = {};
  for (const [api, body] of Object.entries(apis)) {
    index[api] = { prefix: body.prefix, source: body.source, operations: body.operations.map((op) => [op.method, op.path, op.operationId, op.summary]) };
    // freee's format rules go on at vendoring (the validator reads the packed details as they are): no Lambda
    // walks an API's schemas to put them on when it inflates them.
    const details = detailsWithFormatRules(api, { operations: body.operations.map((op) => ({ parameters: op.parameters, ...(op.requestBody === undefined ? {} : { requestBody: op.requestBody }) })), schemas: body.schemas });
    const json = Buffer.from(JSON.stringify(details), "utf8");
    packed[api] = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } }).toString("base64");
  }
  const lines = Object.entries(index).map(([api, body]) => {
    const { prefix, source, operations } = body as { prefix: string; source: Source; operations: unknown[] };
    return `  ${api}: {\n    prefix: ${JSON.stringify(prefix)},\n    source: ${JSON.stringify(source)},\n    operations: [\n${operations.map((o) => `      ${JSON.stringify(o)},`).join("\n")}\n    ],\n  },`;
  });
  return [
    "// Generated by scripts/vendor-freee-openapi.ts from freee's schemas (freee-operations.json is the same data, readable). Do not edit.",
    "import type { PackedApi } from \"./packed\";",
    "",
    "export const PACKED_INDEX: Record<string, PackedApi> = {",
    ...lines,
    "};",
    "",
    "/** Per API: `{ operations: [{ parameters, requestBody }], schemas }` as Brotli-compressed JSON, base64. */",
    "export const PACKED_DETAILS: Record<string, string> = {",
    ...Object.entries(packed).map(([api, b64]) => `  ${api}: ${JSON.stringify(b64)},`),
    "};",
    "",
  ].join("\n");
}
