import { derefSchema, FREEE_OPERATIONS, findOperation, type FreeeOperation, type HttpMethod } from "./validator";

/**
 * The freee operations a plan may use, from the vendored schemas (lib/freee/openapi), with what each does to freee:
 * - `effect`: a GET reads; POST / PUT / PATCH / DELETE write (writes are never retried blindly).
 * - `company`: every place the connected company goes (a `company_id` query parameter, the body's `company_id`, a
 *   path parameter naming the company): the server fills each, a plan can set none.
 * - `readBack`: how a write whose reply was lost is settled (lib/freee/write-reconciler.ts):
 *   `marker`  — a POST whose record has a text field the list answers and filters can reach, for our marker
 *               (`sma:<task>:p<v>:<step>`). The field stays the plan's: a step that sets it carries no marker and
 *               is settled as `none` (lib/freee/write-reconciler.ts), one that leaves it empty carries the marker;
 *   `values`  — a PUT on a path freee also answers GET on: read it and compare what was sent;
 *   `gone`    — a DELETE on a path freee also answers GET on: a 404 there means it took effect;
 *   `none`    — nothing in freee finds it again (no marker field, no way to tell it from an older record):
 *               a lost reply ends as WriteOutcomeUnknownError at once.
 * Only `marker`s are listed by hand (which field, which list, which filters); the test checks each against the
 * schema (the field is in the body with room for the marker, the list answers it, the filters are parameters).
 */

export type Effect = "read" | "write";

export interface MarkerReadBack {
  kind: "marker";
  /** Body field the marker is written to. */
  field: string;
  /** The list operation (GET path) that finds the record again, and the array its answer holds. */
  list: string;
  items: string;
  /** List query from the write's own body (the records of that day / partner), plus the marker where a filter takes it. */
  filters(body: Record<string, unknown>, marker: string): Record<string, string | number | undefined>;
}

export type ReadBackPlan = MarkerReadBack | { kind: "values"; get: FreeeOperation } | { kind: "gone"; get: FreeeOperation } | { kind: "none"; why: string };

export interface CompanyPlaces {
  query: boolean;
  body: boolean;
  /** The path parameter that names the company (`/api/1/taxes/companies/{company_id}`, `/api/1/companies/{id}`). */
  pathParam?: string;
}

export interface OperationEntry {
  operation: FreeeOperation;
  effect: Effect;
  company: CompanyPlaces;
  readBack?: ReadBackPlan;
}

const asNumber = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const asString = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Why a POST without a listed marker cannot be found again (every text field of those bodies is the user's). */
export const NO_MARKER_FIELD = "作成したレコードに照合用の印を残せる項目がありません";

/** POSTs that can be found again by a marker (checked against the schemas in test/freee/tools/operations.test.ts). */
export const MARKER_READ_BACKS: Readonly<Record<string, MarkerReadBack>> = {
  "POST /api/1/deals": {
    kind: "marker",
    field: "ref_number",
    list: "/api/1/deals",
    items: "deals",
    filters: (b) => ({ type: asString(b.type), start_issue_date: asString(b.issue_date), end_issue_date: asString(b.issue_date), partner_id: asNumber(b.partner_id) }),
  },
  "POST /api/1/manual_journals": {
    kind: "marker",
    field: "ref_number",
    list: "/api/1/manual_journals",
    items: "manual_journals",
    filters: (b, marker) => ({ start_issue_date: asString(b.issue_date), end_issue_date: asString(b.issue_date), ref_number: marker }),
  },
  "POST /iv/invoices": {
    kind: "marker",
    field: "memo",
    list: "/iv/invoices",
    items: "invoices",
    filters: (b) => ({ start_billing_date: asString(b.billing_date), end_billing_date: asString(b.billing_date), partner_ids: asNumber(b.partner_id)?.toString() }),
  },
};

/**
 * The write class, by rule: a marker where one is listed; a DELETE whose path freee also reads is checked gone; a
 * PUT / PATCH whose path freee also reads is compared by values; both only when that GET needs no query value the
 * write does not carry (company_id aside). Everything else cannot be found again: `none`.
 */
function readBackOf(op: FreeeOperation): ReadBackPlan {
  const key = `${op.method} ${op.path}`;
  const marker = MARKER_READ_BACKS[key];
  if (marker !== undefined) return marker;
  const get = FREEE_OPERATIONS.find((o) => o.method === "GET" && o.path === op.path);
  if (op.method === "POST") return { kind: "none", why: NO_MARKER_FIELD };
  if (get === undefined) return { kind: "none", why: "書き込みの結果を読み取る GET がありません" };
  // freee answers a day's GET for every date (an empty record where none is kept): a 404 never shows the delete.
  if (op.method === "DELETE" && /\{date\}$/.test(op.path)) return { kind: "none", why: "日付の GET は削除後も空の記録を返すため、削除を確かめられません" };
  const carried = new Set([...op.parameters.filter((p) => p.in === "query").map((p) => p.name), ...bodyFields(op), "company_id"]);
  const wanted = get.parameters.filter((p) => p.in === "query" && p.required && !carried.has(p.name)).map((p) => p.name);
  if (wanted.length > 0) return { kind: "none", why: `読み取りの GET に書き込みにない ${wanted.join(", ")} が要ります` };
  return { kind: op.method === "DELETE" ? "gone" : "values", get };
}

/** Top-level properties of an operation's body (each alternative of an anyOf / oneOf body). */
export function bodyFields(op: FreeeOperation): string[] {
  if (op.requestBody === undefined) return [];
  const schema = derefSchema(op.requestBody.schema) as { properties?: object; anyOf?: unknown[]; oneOf?: unknown[] };
  const parts = [schema, ...((schema.anyOf ?? schema.oneOf ?? []) as Array<{ properties?: object }>)];
  return [...new Set(parts.flatMap((p) => Object.keys(p.properties ?? {})))];
}

/** `/api/1/companies/{id}` names the company by its id; elsewhere a path parameter called company_id does. */
const COMPANY_BY_ID = /\/companies\/\{id\}$/;

function companyOf(op: FreeeOperation): CompanyPlaces {
  const pathParam = op.parameters.find((p) => p.in === "path" && p.name === "company_id")?.name ?? (COMPANY_BY_ID.test(op.path) ? "id" : undefined);
  return {
    query: op.parameters.some((p) => p.in === "query" && p.name === "company_id"),
    body: bodyFields(op).includes("company_id"),
    ...(pathParam === undefined ? {} : { pathParam }),
  };
}

/** Where the company goes and the write class are worked out on first use: they inflate that API's schemas. */
export const OPERATIONS: readonly OperationEntry[] = FREEE_OPERATIONS.map((operation) => {
  const effect: Effect = operation.method === "GET" ? "read" : "write";
  const entry = { operation, effect } as OperationEntry;
  lazy(entry, "company", () => companyOf(operation));
  if (effect === "write") lazy(entry, "readBack", () => readBackOf(operation));
  return entry;
});

function lazy<K extends keyof OperationEntry>(entry: OperationEntry, key: K, make: () => OperationEntry[K]): void {
  let value: OperationEntry[K] | undefined;
  Object.defineProperty(entry, key, { enumerable: true, get: () => (value ??= make()) });
}

export function operationEntry(method: string, path: string): { entry: OperationEntry; pathParams: Record<string, string> } | undefined {
  const found = findOperation(method, path);
  if (found === undefined) return undefined;
  const entry = OPERATIONS.find((e) => e.operation === found.operation) as OperationEntry;
  return { entry, pathParams: found.pathParams };
}

/** The entry of an operation named by its template (`POST /api/1/deals`). */
export function operationByTemplate(template: string): OperationEntry {
  const [method, path] = template.split(" ") as [HttpMethod, string];
  const entry = OPERATIONS.find((e) => e.operation.method === method && e.operation.path === path);
  if (entry === undefined) throw new Error(`no vendored freee operation ${template} (scripts/vendor-freee-openapi.ts SELECTION)`);
  return entry;
}

export function operationsByMethod(method: HttpMethod): OperationEntry[] {
  return OPERATIONS.filter((e) => e.operation.method === method);
}
