import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";

/**
 * Vendors the facts this project uses from freee's official OpenAPI schemas into lib/freee/openapi/ (requests and
 * responses in two files, see splitResponses):
 * the selected operations (method, path, parameters, request body, success response) and every component
 * schema they reach (as `schemas`), descriptions and examples dropped, `$ref`s rewritten to `<api>#/$defs/<name>`
 * so one Ajv instance holds all three APIs. Run it when the selection below or the upstream schemas change:
 *
 *   npx tsx scripts/vendor-freee-openapi.ts [path/to/contracts/freee]   (default: <repo>/../shared/contracts/freee)
 *
 * Only this script reads the shared contracts; tests and lib/ read the vendored file.
 */

const SOURCE = {
  repository: "freee/freee-api-schema",
  commit: "0f6b621",
  date: "2026-08-21",
  licence: "MIT (Copyright (c) 2019 freee K.K.), see lib/freee/openapi/MIT-LICENCE",
};

type Api = "accounting" | "hr" | "invoice";

/** Where each API lives under https://api.freee.co.jp, and its file. */
const APIS: Record<Api, { file: string; prefix: string }> = {
  accounting: { file: "accounting.openapi.json", prefix: "" },
  hr: { file: "hr.openapi.json", prefix: "/hr" },
  invoice: { file: "invoice.openapi.yml", prefix: "/iv" },
};

/**
 * The operations the tools call and the fake serves: what a freee team asks for week by week (deals with payments
 * and minus lines, manual journals, tags, sections, items, the file box, attendance, invoices of freee請求書).
 * Operations whose path names the company (`/companies/{company_id}/…`) stay out: the company is never the plan's.
 */
const SELECTION: Record<Api, string[]> = {
  accounting: [
    "GET /api/1/companies",
    "GET /api/1/users/me",
    "GET /api/1/deals",
    "POST /api/1/deals",
    "GET /api/1/deals/{id}",
    "PUT /api/1/deals/{id}",
    "DELETE /api/1/deals/{id}",
    "POST /api/1/deals/{id}/payments",
    "GET /api/1/manual_journals",
    "POST /api/1/manual_journals",
    "GET /api/1/manual_journals/{id}",
    "DELETE /api/1/manual_journals/{id}",
    "GET /api/1/account_items",
    "GET /api/1/account_items/{id}",
    "GET /api/1/partners",
    "POST /api/1/partners",
    "GET /api/1/partners/{id}",
    "PUT /api/1/partners/{id}",
    "GET /api/1/tags",
    "POST /api/1/tags",
    "GET /api/1/sections",
    "GET /api/1/items",
    "GET /api/1/walletables",
    "GET /api/1/taxes/codes",
    "GET /api/1/receipts",
    "GET /api/1/receipts/{id}",
    "POST /api/1/receipts",
  ],
  hr: [
    "GET /api/v1/users/me",
    "GET /api/v1/employees",
    "GET /api/v1/employees/{id}",
    "GET /api/v1/employees/{employee_id}/basic_pay_rule",
    "PUT /api/v1/employees/{employee_id}/basic_pay_rule",
    "GET /api/v1/employees/{employee_id}/work_records/{date}",
    "PUT /api/v1/employees/{employee_id}/work_records/{date}",
    "GET /api/v1/employees/{employee_id}/work_record_summaries/{year}/{month}",
  ],
  invoice: ["GET /invoices", "POST /invoices", "GET /invoices/{id}", "PUT /invoices/{id}", "GET /invoices/templates"],
};

/** Error bodies the fake answers with (kept even when no selected operation names them). */
const ERROR_SCHEMAS: Record<Api, string[]> = {
  accounting: ["badRequestError", "unauthorizedError", "forbiddenError", "badRequestNotFoundError", "tooManyRequestsError", "internalServerError"],
  hr: ["error", "unauthorizedError", "forbiddenError", "accessDeniedError", "notfoundError", "internalServerError"],
  invoice: ["badRequest", "unauthorizedError", "forbiddenError", "accessDeniedError", "notfoundError", "internalServerError"],
};

/** JSON Schema keywords kept; everything else (description, example, x-*, readOnly, ...) is dropped. */
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
  components: { schemas: Record<string, unknown> };
}

function clean(node: unknown, api: Api, refs: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => clean(n, api, refs));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEYWORDS.has(key)) continue;
    if (key === "$ref") {
      const name = String(value).replace("#/components/schemas/", "");
      refs.add(name);
      // Ajv resolves `<api>#/$defs/<name>` against the document the validator adds per API (lib/freee/openapi).
      out.$ref = `${api}#/$defs/${name}`;
    } else if (key === "description") {
      const short = typeof value === "string" ? shortDescription(value) : undefined;
      if (short !== undefined) out.description = short;
    } else if (key === "properties") {
      // Property names are data, not keywords: a property called `description` stays.
      out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([p, s]) => [p, clean(s, api, refs)]));
    } else {
      out[key] = clean(value, api, refs);
    }
  }
  return out;
}

function jsonSchemaOf(content: Record<string, { schema?: unknown }> | undefined): { contentTypes: string[]; schema: unknown } | undefined {
  if (content === undefined) return undefined;
  const types = Object.keys(content);
  const json = content["application/json"] ?? content[types[0] as string];
  return json?.schema === undefined ? undefined : { contentTypes: types, schema: json.schema };
}

function vendorApi(api: Api, spec: Spec): unknown {
  const refs = new Set<string>(ERROR_SCHEMAS[api]);
  const operations = SELECTION[api].map((entry) => {
    const [method, path] = entry.split(" ") as [string, string];
    const op = spec.paths[path]?.[method.toLowerCase()];
    if (op === undefined) throw new Error(`${api}: no operation ${entry} in the schema`);
    const success = Object.keys(op.responses ?? {}).find((s) => /^2\d\d$/.test(s));
    const body = jsonSchemaOf(op.requestBody?.content);
    const response = success === undefined ? undefined : jsonSchemaOf(op.responses[success].content);
    return {
      operationId: op.operationId,
      summary: String(op.summary ?? op.operationId).trim(),
      method,
      path: APIS[api].prefix + path,
      parameters: (op.parameters ?? []).map((p: any) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        ...(typeof p.description === "string" && shortDescription(p.description) !== undefined ? { description: shortDescription(p.description) } : {}),
        schema: clean(p.schema ?? {}, api, refs),
      })),
      ...(body === undefined ? {} : { requestBody: { required: op.requestBody.required === true, contentTypes: body.contentTypes, schema: clean(body.schema, api, refs) } }),
      responses: Object.fromEntries(
        Object.keys(op.responses ?? {}).map((status) => [status, status === success && response !== undefined ? clean(response.schema, api, refs) : null]),
      ),
    };
  });
  // Close over references: a component may reach others.
  const schemas: Record<string, unknown> = {};
  const pending = [...refs];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in schemas) continue;
    const raw = spec.components.schemas[name];
    if (raw === undefined) throw new Error(`${api}: $ref to missing component ${name}`);
    const found = new Set<string>();
    schemas[name] = clean(raw, api, found);
    for (const n of found) if (!(n in schemas)) pending.push(n);
  }
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]]));
  return { prefix: APIS[api].prefix, operations, schemas: sorted };
}

// Default: the shared/ folder beside the repository (a worktree elsewhere passes the path).
const dir = resolve(process.argv[2] ?? resolve(import.meta.dirname, "../../shared/contracts/freee"));
const out: Record<string, unknown> = { source: SOURCE, apis: {} };
for (const api of Object.keys(APIS) as Api[]) {
  const text = readFileSync(resolve(dir, APIS[api].file), "utf8");
  const spec = (APIS[api].file.endsWith(".yml") ? parseYaml(text) : JSON.parse(text)) as Spec;
  (out.apis as Record<string, unknown>)[api] = vendorApi(api, spec);
}
/**
 * Requests and responses in two files: every Lambda that plans or checks a call bundles the request side
 * (freee-operations.json); only the freee fake checks answers (freee-responses.json, lib/freee/openapi/responses.ts),
 * so the response schemas and the components only they reach (error bodies too) stay out of the bundles.
 */
function splitResponses(all: Record<string, unknown>): { requests: Record<string, unknown>; responses: Record<string, unknown> } {
  const requests: Record<string, unknown> = { source: SOURCE, apis: {} };
  const responses: Record<string, unknown> = { source: SOURCE, apis: {} };
  for (const [api, vendoredApi] of Object.entries(all.apis as Record<string, { prefix: string; operations: any[]; schemas: Record<string, unknown> }>)) {
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
    (requests.apis as Record<string, unknown>)[api] = { prefix: vendoredApi.prefix, operations, schemas: pick(true) };
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

const { requests, responses } = splitResponses(out);
const target = resolve(import.meta.dirname, "../lib/freee/openapi/freee-operations.json");
writeFileSync(target, `${JSON.stringify(requests, null, 1)}\n`);
writeFileSync(resolve(import.meta.dirname, "../lib/freee/openapi/freee-responses.json"), `${JSON.stringify(responses, null, 1)}\n`);
writeFileSync(resolve(import.meta.dirname, "../lib/freee/openapi/MIT-LICENCE"), readFileSync(resolve(dir, "MIT-LICENCE")));
console.log(`wrote ${target} (${(JSON.stringify(requests).length / 1024).toFixed(0)} KiB) and freee-responses.json`);
