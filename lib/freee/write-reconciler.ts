import { createHash } from "node:crypto";
import { operationEntry } from "./openapi/operations";
import { derefSchema } from "./openapi/validator";
import { noReadBack, readBackReconciler, readOk, sameValue, type WriteReconciler } from "./read-backs";
import type { FreeeRequest } from "./types";

export type { ReadBack, ReadFreee, WriteReconciler } from "./read-backs";

/**
 * Settling a freee write whose reply was lost (docs/architecture.md, error table: a write that may have reached freee is reconciled by
 * reading back, never repeated blindly), per operation: its write class (lib/freee/openapi/operations.ts) says how
 * it is marked with its task and step — where freee has a field for it (a deal's or journal's `ref_number`, 管理番号;
 * an invoice's 社内メモ) and the plan left that field empty — and how it is found again. A step that sets the field
 * keeps its value and carries no marker: its lost reply is never repeated and ends as WriteOutcomeUnknownError.
 * Two HR PUTs read back by their own rules (their GET wants the month, or answers times in another spelling).
 */

const MARKER_PREFIX = "sma";
/** freee documents no length for a deal's 管理番号; the marker stays short and readable. */
const MAX_MARKER = 64;

/**
 * `sma:<taskId>:p<version>:<stepId>` — a person looking in freee can tell which task and step wrote it. Where freee
 * takes fewer characters (`maxLength`), a digest of that text stands for it.
 */
export function writeMarker(ref: { taskId: string; processVersion: number; stepId: string }, maxLength: number = MAX_MARKER): string {
  const limit = Math.min(maxLength, MAX_MARKER);
  const text = `${MARKER_PREFIX}:${ref.taskId}:p${ref.processVersion}:${ref.stepId}`;
  if (text.length <= limit) return text;
  const digest = createHash("sha256").update(text).digest("hex");
  if (limit >= 40) return `${MARKER_PREFIX}:${ref.taskId.slice(0, limit - MARKER_PREFIX.length - 19)}:${digest.slice(0, 16)}`;
  return `${MARKER_PREFIX}:${digest.slice(0, limit - MARKER_PREFIX.length - 1)}`;
}

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

/** The work record answers bare (no wrapper) with times in ISO 8601: every sent field compared as freee stores it. */
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

const SPECIAL: Readonly<Record<string, WriteReconciler>> = {
  "PUT /hr/api/v1/employees/{employee_id}/basic_pay_rule": updateBasicPayRule,
  "PUT /hr/api/v1/employees/{employee_id}/work_records/{date}": updateWorkRecord,
};

/** The reconciler of a write request's operation; undefined for a read or a path no vendored operation has. */
export function reconcilerFor(req: Pick<FreeeRequest, "method" | "path" | "body">): WriteReconciler | undefined {
  const found = operationEntry(req.method, req.path);
  if (found === undefined || found.entry.readBack === undefined) return undefined;
  const { operation, readBack } = found.entry;
  const special = SPECIAL[`${operation.method} ${operation.path}`];
  if (special !== undefined) return special;
  if (readBack.kind === "marker" && req.body?.[readBack.field] !== undefined) {
    return noReadBack(`${readBack.field} は計画が指定した値で、照合用の印を入れられません`);
  }
  return readBackReconciler(readBack, readBack.kind === "marker" ? markerMaxLength(operation.requestBody?.schema, readBack.field) : undefined);
}

/** The field's `maxLength` in freee's body schema (manual journals' ref_number: 20). */
function markerMaxLength(bodySchema: Record<string, unknown> | undefined, field: string): number | undefined {
  const body = derefSchema(bodySchema ?? {}) as { properties?: Record<string, { maxLength?: unknown }> };
  const max = body.properties?.[field]?.maxLength;
  return typeof max === "number" ? max : undefined;
}
