import { WriteOutcomeUnknownError } from "../core/errors/taxonomy";
import type { MarkerReadBack, ReadBackPlan } from "./openapi/operations";
import type { FreeeOperation } from "./openapi/validator";
import type { FreeeQueryValue, FreeeRequest, FreeeResult } from "./types";

/**
 * The read backs of the write classes (lib/freee/openapi/operations.ts): how a write whose reply was lost is found
 * again in freee. `find` answers `found` (the write took effect), `absent` (freee shows no trace of it) or throws
 * WriteOutcomeUnknownError when reading back cannot settle it.
 */
export type ReadBack = { outcome: "found"; data: unknown } | { outcome: "absent" };
export type ReadFreee = (req: FreeeRequest) => Promise<FreeeResult>;

export interface WriteReconciler {
  /** Where the marker goes; `undefined` when freee has no field for it (the read back compares values, or cannot). */
  markerField: string | undefined;
  /** The most characters freee takes in that field (manual journals: 20), when it says. */
  markerMaxLength?: number;
  mark(req: FreeeRequest, marker: string): FreeeRequest;
  find(read: ReadFreee, req: FreeeRequest, marker: string): Promise<ReadBack>;
}

/** freee lists at most 100 records a page in most lists; this many pages are read back, no more. */
const MAX_PAGES = 20;
const PAGE = 100;

export function markerReconciler(plan: MarkerReadBack, maxLength: number | undefined): WriteReconciler {
  return {
    markerField: plan.field,
    ...(maxLength === undefined ? {} : { markerMaxLength: maxLength }),
    mark: (req, marker) => ({ ...req, body: { ...req.body, [plan.field]: marker } }),
    async find(read, req, marker) {
      const body = req.body ?? {};
      const query = { company_id: body.company_id as number, ...plan.filters(body, marker), limit: PAGE };
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await readOk(read, { method: "GET", path: plan.list, query: { ...query, offset: page * PAGE } });
        const items = (result as Record<string, unknown>)[plan.items];
        if (!Array.isArray(items)) throw unsettled(`the ${plan.items} list has no ${plan.items} array`, req);
        const hit = items.find((d) => (d as Record<string, unknown>)[plan.field] === marker);
        if (hit !== undefined) return { outcome: "found", data: { [singular(plan.items)]: hit } };
        const total = (result as { meta?: { total_count?: unknown } }).meta?.total_count;
        const end = items.length < PAGE || (typeof total === "number" && (page + 1) * PAGE >= total);
        if (end) return { outcome: "absent" };
      }
      throw unsettled(`more than ${MAX_PAGES * PAGE} ${plan.items} on that day`, req);
    },
  };
}

/**
 * The query of the read back: the company where the GET takes one, and each value the GET requires that the write
 * carried in its query or body (an HR rule's `year` / `month`).
 */
function readBackQuery(get: FreeeOperation, req: FreeeRequest): Record<string, FreeeQueryValue> {
  const carried: Record<string, unknown> = { ...(req.body ?? {}), ...(req.query ?? {}) };
  const query: Record<string, FreeeQueryValue> = {};
  for (const p of get.parameters.filter((x) => x.in === "query" && (x.required || x.name === "company_id"))) {
    const value = carried[p.name];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") query[p.name] = value;
  }
  return query;
}

/** A PUT on a path freee also reads: the stored record shows every value sent (else absent). */
export function valuesReconciler(get: FreeeOperation): WriteReconciler {
  return {
    markerField: undefined,
    mark: (req) => req,
    async find(read, req) {
      const query = readBackQuery(get, req);
      const sent = Object.fromEntries(Object.entries(req.body ?? {}).filter(([k]) => k !== "company_id" && !(k in query)));
      const data = await readOk(read, { method: "GET", path: req.path, ...(Object.keys(query).length === 0 ? {} : { query }) });
      // A body that wraps its fields as the answer does (`{ employee: {…} }`) is compared inside the wrapper.
      const [onlyKey, onlyValue] = Object.entries(sent).length === 1 ? (Object.entries(sent)[0] as [string, unknown]) : [undefined, undefined];
      const wrapped = onlyKey !== undefined && isRecord(onlyValue) && isRecord((data as Record<string, unknown>)[onlyKey]);
      const fields = wrapped ? (onlyValue as Record<string, unknown>) : sent;
      const record = wrapped ? ((data as Record<string, unknown>)[onlyKey as string] as Record<string, unknown>) : unwrap(data);
      const missing = Object.keys(fields).filter((k) => !(k in record));
      // A value freee does not show again cannot be compared: that is not evidence either way.
      if (missing.length > 0) throw unsettled(`freee does not show ${missing.join(", ")} when read back`, req);
      const same = Object.entries(fields).every(([key, value]) => sameValue(key, value, record[key]));
      return same ? { outcome: "found", data } : { outcome: "absent" };
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A DELETE on a path freee also reads: a 404 there is the delete having happened. */
export function goneReconciler(get: FreeeOperation): WriteReconciler {
  return {
    markerField: undefined,
    mark: (req) => req,
    async find(read, req) {
      const query = readBackQuery(get, req);
      let result: FreeeResult;
      try {
        result = await read({ method: "GET", path: req.path, ...(Object.keys(query).length === 0 ? {} : { query }) });
      } catch (cause) {
        throw new WriteOutcomeUnknownError(`freee read back ${req.path} failed`, { cause, details: { path: req.path } });
      }
      if (!result.ok && result.status === 404) return { outcome: "found", data: { deleted: req.path } };
      if (result.ok) return { outcome: "absent" };
      throw unsettled(`read back answered ${result.status}`, req);
    },
  };
}

/** Nothing in freee finds this write again: a lost reply stays unknown, it is never guessed. */
export function noReadBack(why: string): WriteReconciler {
  return {
    markerField: undefined,
    mark: (req) => req,
    find: async (_read, req) => {
      throw unsettled(why, req);
    },
  };
}

export function readBackReconciler(plan: ReadBackPlan, markerMaxLength: number | undefined): WriteReconciler {
  if (plan.kind === "marker") return markerReconciler(plan, markerMaxLength);
  if (plan.kind === "values") return valuesReconciler(plan.get);
  if (plan.kind === "gone") return goneReconciler(plan.get);
  return noReadBack(plan.why);
}

export async function readOk(read: ReadFreee, req: FreeeRequest): Promise<unknown> {
  let result: FreeeResult;
  try {
    result = await read(req);
  } catch (cause) {
    throw new WriteOutcomeUnknownError(`freee read back ${req.path} failed`, { cause, details: { path: req.path } });
  }
  if (!result.ok) throw unsettled(`read back answered ${result.status}`, req);
  if (result.data === null || typeof result.data !== "object") throw unsettled("read back answered no object", req);
  return result.data;
}

export function unsettled(why: string, req: FreeeRequest): WriteOutcomeUnknownError {
  return new WriteOutcomeUnknownError(`freee write ${req.method} ${req.path} not settled by reading back: ${why}`, { details: { path: req.path, why } });
}

/** freee wraps a record in its name (`{ partner: {…} }`). */
function unwrap(data: unknown): Record<string, unknown> {
  const entries = Object.entries(data as Record<string, unknown>);
  const only = entries.length === 1 ? entries[0]![1] : undefined;
  return only !== null && typeof only === "object" && !Array.isArray(only) ? (only as Record<string, unknown>) : (data as Record<string, unknown>);
}

function singular(items: string): string {
  return items.endsWith("s") ? items.slice(0, -1) : items;
}

/** Times compare as instants (freee answers `2026-01-10T09:00:00.000+09:00` for `2026-01-10 09:00`). */
export function sameValue(key: string, sent: unknown, stored: unknown): boolean {
  if (key.endsWith("_at") && typeof sent === "string" && typeof stored === "string") return instant(sent) === instant(stored);
  if (Array.isArray(sent) && Array.isArray(stored)) {
    return sent.length === stored.length && sent.every((item, i) => sameObject(item, stored[i]));
  }
  if (sent !== null && typeof sent === "object") return sameObject(sent, stored);
  return JSON.stringify(sent) === JSON.stringify(stored);
}

function sameObject(sent: unknown, stored: unknown): boolean {
  if (sent === null || typeof sent !== "object" || stored === null || typeof stored !== "object") return JSON.stringify(sent) === JSON.stringify(stored);
  return Object.entries(sent).every(([k, v]) => sameValue(k, v, (stored as Record<string, unknown>)[k]));
}

/** freee HR reads a time without an offset as Japan time. */
function instant(text: string): number | string {
  const iso = text.includes("T") ? text : text.replace(" ", "T");
  const withZone = /([+-]\d{2}:?\d{2}|Z)$/.test(iso) ? iso : `${iso}+09:00`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? text : ms;
}
