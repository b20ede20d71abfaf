import { FREEE_OPERATIONS, type FreeeOperation } from "../../../lib/freee/openapi/validator";
import { TAX_CODES, type CompanyData } from "./state";

/**
 * Where the generic routes of the freee fake find the records a path names. A path parameter is either a key
 * (year, month, date, a walletable's type, a segment number: any value the schema allows exists) or names a record
 * of a collection: the records the hand-written routes keep (deals, partners, employees…) are the same arrays, so a
 * generic update of a partner is seen by the hand-written read; every other collection is kept per company by its
 * path and starts with one record, id SEED_ID (a company in use has one of each).
 */

export type Rec = Record<string, unknown>;

export const SEED_ID = 1;

/** 販売 (sm) names its records by 26-character ULIDs; the other APIs by integers. */
export function recordId(path: string, n: number): number | string {
  return path.startsWith("/sm/") ? `01JFAKE${String(n).padStart(19, "0")}` : n;
}

/** Path parameters that are keys, not record ids. */
const KEY_PARAMS = new Set(["year", "month", "date", "type", "segment_id", "company_id"]);

export interface IdParam {
  name: string;
  /** The collection path (concrete) the record is looked up in. */
  collection: string;
  /** The field of the record the parameter matches (`id`, or `code` for `/code/{code}` paths). */
  field: string;
}

/** The path's own template with the request's values put in, up to (not including) the segment at `end`. */
function concrete(segments: string[], params: Record<string, string>, end: number): string {
  return segments
    .slice(0, end)
    .map((s) => (s.startsWith("{") ? (params[s.slice(1, -1)] ?? s) : s))
    .join("/");
}

/** The path parameters of an operation that name records, in path order, each with its collection. */
export function idParams(op: FreeeOperation, params: Record<string, string>): IdParam[] {
  const segments = op.path.split("/");
  const out: IdParam[] = [];
  segments.forEach((s, i) => {
    if (!s.startsWith("{")) return;
    const name = s.slice(1, -1);
    if (KEY_PARAMS.has(name) || (name === "id" && /\/companies$/.test(concrete(segments, params, i)))) return;
    // An employee is the HR employee wherever the path names one; /walletables/{type}/{id} is one list of wallets.
    if (name === "employee_id" && op.api === "hr") out.push({ name, collection: "/hr/api/v1/employees", field: "id" });
    else if (name === "code") out.push({ name, collection: concrete(segments, params, segments[i - 1] === "code" ? i - 1 : i), field: "code" });
    else out.push({ name, collection: concrete(segments, params, i).replace(/^\/api\/1\/walletables\/[^/]+$/, "/api/1/walletables"), field: "id" });
  });
  return out;
}

/** The records of a collection: the hand-written routes' arrays where those hold it, else the generic ones. */
export function collection(company: CompanyData, path: string): Rec[] {
  const bound = boundCollection(company, path);
  if (bound !== undefined) return bound;
  let list = company.records.get(path);
  if (list === undefined) company.records.set(path, (list = [{ id: recordId(path, SEED_ID), company_id: company.id }]));
  return list;
}

/** Whether the hand-written routes hold this collection (their answers are the records as stored). */
export function isBound(company: CompanyData, path: string): boolean {
  return boundCollection(company, path) !== undefined;
}

function boundCollection(company: CompanyData, path: string): Rec[] | undefined {
  const byPath: Record<string, Rec[]> = {
    "/api/1/deals": company.deals,
    "/api/1/partners": company.partners,
    "/api/1/account_items": company.accountItems,
    "/api/1/tags": company.tags,
    "/api/1/sections": company.sections,
    "/api/1/items": company.items,
    "/api/1/receipts": company.receipts,
    "/api/1/manual_journals": company.manualJournals,
    "/api/1/walletables": company.walletables,
    "/api/1/taxes/codes": TAX_CODES,
    "/iv/invoices": company.invoices,
    "/hr/api/v1/employees": company.employees as unknown as Rec[],
  };
  const hit = byPath[path];
  if (hit !== undefined) return hit;
  if (path === `/hr/api/v1/companies/${company.id}/employees`) return company.employees as unknown as Rec[];
  const payments = /^\/api\/1\/deals\/([^/]+)\/payments$/.exec(path);
  if (payments !== null) return company.deals.find((d) => String(d.id) === payments[1])?.payments as Rec[] | undefined;
  return undefined;
}

/** The record a parameter names, or undefined (freee's 404). */
export function findRecord(company: CompanyData, p: IdParam, value: string, params: Record<string, string>): Rec | undefined {
  const found = collection(company, p.collection).find((r) => String(r[p.field]) === value);
  // A wallet is named by its type and id together.
  if (found !== undefined && p.collection === "/api/1/walletables" && params.type !== undefined && found.type !== params.type) return undefined;
  return found;
}

const hasItemsUnder = new Map<string, boolean>();

/** Whether freee keeps records under this path (some operation reads or writes `<path>/{…}`). */
export function isCollectionPath(template: string): boolean {
  let known = hasItemsUnder.get(template);
  if (known === undefined) hasItemsUnder.set(template, (known = FREEE_OPERATIONS.some((o) => o.path.startsWith(`${template}/{`))));
  return known;
}

/** The upsert paths (`/api/1/sections/code/upsert`, `/api/1/partners/upsert_by_code`): the collection they write. */
export function upsertCollection(template: string): string | undefined {
  const m = /^(.*?)\/(code\/upsert|upsert_by_code)$/.exec(template);
  return m?.[1];
}
