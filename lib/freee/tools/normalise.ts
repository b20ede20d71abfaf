import { checkRequest } from "../openapi/validator";
import { issueText } from "./define";
import type { FreeeToolDefinition } from "./registry";

/**
 * One spelling per input (an approved write matches on normalised input). The tool reads the value —
 * numeric strings become numbers, unknown keys are refused — and `company_id` leaves the input: the company is
 * the workspace's connected one. A `company_id` the caller spells out is accepted only when it is that company.
 * Then the request the input makes is checked against freee's own schema for its operation: what
 * does not validate is refused here — at plan time in L3, and in the MCP server before freee is called.
 * Keys are sorted in the canonical form, so key order never makes two writes differ.
 */

export type NormalisedInput = { ok: true; input: Record<string, unknown>; canonical: string };
export type InputProblem = { ok: false; reason: "company_mismatch" | "invalid_input"; issues: string[] };

export interface NormaliseOptions {
  /** The connected company. Undefined at plan time, where any `company_id` is refused (it is not the plan's to choose). */
  companyId?: number;
  /** Plan-time read steps may leave out what the agent fills in at run time. */
  partial?: boolean;
}

/** The company a plan-time check puts in the request (the schemas require one); never sent anywhere. */
const PLAN_TIME_COMPANY = 1;

export function normaliseToolInput(tool: FreeeToolDefinition, raw: unknown, options: NormaliseOptions = {}): NormalisedInput | InputProblem {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, reason: "invalid_input", issues: ["input is not a JSON object"] };
  }
  const { rest, named } = withoutCompany(tool, raw as Record<string, unknown>);
  for (const value of named) {
    if (options.companyId === undefined) {
      return { ok: false, reason: "invalid_input", issues: ["company_id is not an input: the connected company is always used"] };
    }
    if (asWhole(value) !== options.companyId) {
      return { ok: false, reason: "company_mismatch", issues: [`company_id ${JSON.stringify(value)} is not the connected company`] };
    }
  }
  const partial = options.partial === true;
  const read = tool.readInput(rest, partial);
  if (!read.ok) return { ok: false, reason: "invalid_input", issues: read.issues };
  const input = read.input;
  if (!partial) {
    const request = tool.toRequest(input, options.companyId ?? PLAN_TIME_COMPANY);
    const check = checkRequest({ ...request, ...(request.upload === undefined ? {} : { multipart: { fileFields: [request.upload.field] } }) }, { unknownProperties: "reject" });
    if (!check.ok) {
      const issues = check.reason === "unknown_operation" ? [`${tool.name}: freee API にない操作です`] : check.issues.map((i) => `freee のスキーマ: ${issueText(i)}`);
      return { ok: false, reason: "invalid_input", issues };
    }
  }
  return { ok: true, input, canonical: stableJson(input) };
}

/** The `company_id`s a caller named: at the top level, and in a generic tool's query and body. */
function withoutCompany(tool: FreeeToolDefinition, raw: Record<string, unknown>): { rest: Record<string, unknown>; named: unknown[] } {
  const named: unknown[] = [];
  const { company_id: top, ...rest } = raw;
  if (top !== undefined) named.push(top);
  if (tool.method === undefined) return { rest, named };
  for (const part of ["query", "body"] as const) {
    const value = rest[part];
    if (typeof value === "object" && value !== null && !Array.isArray(value) && "company_id" in value) {
      const { company_id: inPart, ...other } = value as Record<string, unknown>;
      named.push(inPart);
      rest[part] = other;
    }
  }
  return { rest, named };
}

function asWhole(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number(value);
  return undefined;
}

/** The value at a dotted path (`details.0.account_item_id`), undefined when any part is missing. */
export function getPath(root: unknown, field: string): unknown {
  let at: unknown = root;
  for (const part of field.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** JSON with object keys sorted: the same input gives the same text however its keys were ordered. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
