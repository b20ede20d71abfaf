import { createHash } from "node:crypto";
import { WriteOutcomeUnknownError } from "../errors/taxonomy";
import type { FreeeRequest, FreeeResult } from "./types";

/**
 * Settling a freee write whose reply was lost (DESIGN §3: a write that may have reached freee is reconciled by
 * reading back, never repeated blindly). Per write tool:
 * - how the write is marked with its task and step, where freee has a field for it (a deal's `ref_number`, 管理番号);
 * - how to read back and recognise it: the marked record, or — for a PUT that sets values and has no free field —
 *   the values it set.
 * `find` answers `found` (the write took effect: success), `absent` (freee shows no trace of it) or throws
 * `WriteOutcomeUnknownError` when the read back itself cannot settle it (a read failed, too many records).
 */
export type ReadBack = { outcome: "found"; data: unknown } | { outcome: "absent" };
export type ReadFreee = (req: FreeeRequest) => Promise<FreeeResult>;

export interface WriteReconciler {
  /** Where the marker goes; `undefined` when freee has no field for it (the read back compares values). */
  markerField: string | undefined;
  mark(req: FreeeRequest, marker: string): FreeeRequest;
  find(read: ReadFreee, req: FreeeRequest, marker: string): Promise<ReadBack>;
}

const MARKER_PREFIX = "sma";
/** freee documents no length for 管理番号; the marker stays short and readable. */
const MAX_MARKER = 64;

/** `sma:<taskId>:p<version>:<stepId>` — a person looking in freee can tell which task and step wrote it. */
export function writeMarker(ref: { taskId: string; processVersion: number; stepId: string }): string {
  const text = `${MARKER_PREFIX}:${ref.taskId}:p${ref.processVersion}:${ref.stepId}`;
  if (text.length <= MAX_MARKER) return text;
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  return `${MARKER_PREFIX}:${ref.taskId.slice(0, MAX_MARKER - MARKER_PREFIX.length - 19)}:${digest}`;
}

/** freee lists at most 100 records a page; this many pages of one day's deals are read back, no more. */
const MAX_DEAL_PAGES = 20;
const DEAL_PAGE = 100;

const createDeal: WriteReconciler = {
  markerField: "ref_number",
  mark: (req, marker) => ({ ...req, body: { ...req.body, ref_number: marker } }),
  async find(read, req, marker) {
    const body = req.body ?? {};
    const query = {
      company_id: body.company_id as number,
      type: body.type as string,
      start_issue_date: body.issue_date as string,
      end_issue_date: body.issue_date as string,
      ...(typeof body.partner_id === "number" ? { partner_id: body.partner_id } : {}),
      limit: DEAL_PAGE,
    };
    for (let page = 0; page < MAX_DEAL_PAGES; page++) {
      const result = await readOk(read, { method: "GET", path: "/api/1/deals", query: { ...query, offset: page * DEAL_PAGE } });
      const deals = (result as { deals?: unknown }).deals;
      if (!Array.isArray(deals)) throw unsettled("the deals list has no deals array", req);
      const deal = deals.find((d) => (d as { ref_number?: unknown }).ref_number === marker);
      if (deal !== undefined) return { outcome: "found", data: { deal } };
      const total = (result as { meta?: { total_count?: unknown } }).meta?.total_count;
      const end = deals.length < DEAL_PAGE || (typeof total === "number" && (page + 1) * DEAL_PAGE >= total);
      if (end) return { outcome: "absent" };
    }
    throw unsettled(`more than ${MAX_DEAL_PAGES * DEAL_PAGE} deals on that day`, req);
  },
};

const updateBasicPayRule: WriteReconciler = {
  markerField: undefined,
  mark: (req) => req,
  async find(read, req) {
    const body = req.body as { company_id: number; year: number; month: number; employee_basic_pay_rule: { pay_calc_type: string; pay_amount: number } };
    const data = await readOk(read, { method: "GET", path: req.path, query: { company_id: body.company_id, year: body.year, month: body.month } });
    const rule = (data as { employee_basic_pay_rule?: { pay_calc_type?: unknown; pay_amount?: unknown } | null }).employee_basic_pay_rule;
    const wanted = body.employee_basic_pay_rule;
    const same = rule != null && rule.pay_calc_type === wanted.pay_calc_type && rule.pay_amount === wanted.pay_amount;
    return same ? { outcome: "found", data } : { outcome: "absent" };
  },
};

const updateWorkRecord: WriteReconciler = {
  markerField: undefined,
  mark: (req) => req,
  async find(read, req) {
    const { company_id, ...fields } = req.body as Record<string, unknown> & { company_id: number };
    const data = (await readOk(read, { method: "GET", path: req.path, query: { company_id } })) as Record<string, unknown>;
    const same = Object.entries(fields).every(([key, value]) => sameValue(key, value, data[key]));
    return same ? { outcome: "found", data } : { outcome: "absent" };
  },
};

const RECONCILERS: Readonly<Record<string, WriteReconciler>> = {
  freee_accounting_create_deal: createDeal,
  freee_hr_update_basic_pay_rule: updateBasicPayRule,
  freee_hr_update_work_record: updateWorkRecord,
};

/** Every write tool has one (test/freee/write-reconciler.test.ts checks the registry against this table). */
export function reconcilerFor(tool: string): WriteReconciler | undefined {
  return RECONCILERS[tool];
}

async function readOk(read: ReadFreee, req: FreeeRequest): Promise<unknown> {
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

function unsettled(why: string, req: FreeeRequest): WriteOutcomeUnknownError {
  return new WriteOutcomeUnknownError(`freee write ${req.method} ${req.path} not settled by reading back: ${why}`, { details: { path: req.path, why } });
}

/** Times compare as instants (freee answers `2026-01-10T09:00:00.000+09:00` for `2026-01-10 09:00`). */
function sameValue(key: string, sent: unknown, stored: unknown): boolean {
  if (key.endsWith("_at") && typeof sent === "string" && typeof stored === "string") return instant(sent) === instant(stored);
  if (Array.isArray(sent) && Array.isArray(stored)) {
    return sent.length === stored.length && sent.every((item, i) => sameObject(item, stored[i]));
  }
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
