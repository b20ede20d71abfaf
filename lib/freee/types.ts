/** One call to the freee API, as a tool of the registry maps its input (lib/tools/registry.ts). */
export type FreeeQueryValue = string | number | boolean;

export interface FreeeRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path under the API base URL: `/api/1/...` (accounting) or `/hr/api/v1/...` (HR). */
  path: string;
  query?: Record<string, FreeeQueryValue | undefined>;
  body?: Record<string, unknown>;
}

/**
 * What a call returns when it is not an error of the seed §7.1 retry rows: success, or a refusal that the
 * agent should read and decide on (403 scope / rate guard, 404 missing record, 400/422 invalid input).
 * Retries exhausted and auth failures throw taxonomy errors instead.
 */
export type FreeeResult =
  | { ok: true; status: number; data: unknown }
  | { ok: false; status: number; kind: "forbidden" | "not_found" | "rejected"; messages: string[] };
