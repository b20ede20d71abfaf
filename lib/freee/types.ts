/** One call to the freee API, as a tool of the registry maps its input (lib/freee/tools/registry.ts). */
export type FreeeQueryValue = string | number | boolean;

export interface FreeeRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path under the API base URL: `/api/1/...` (accounting) or `/hr/api/v1/...` (HR). */
  path: string;
  query?: Record<string, FreeeQueryValue | undefined>;
  body?: Record<string, unknown>;
  /**
   * A file-box upload (multipart/form-data): which Slack file of the request goes in which form field. The tool
   * names it; the MCP server fetches the bytes for the approved step only and sets `file` before sending.
   */
  upload?: { field: string; slackFileId: string };
  file?: FreeeFile;
}

/** A file as it is sent to freee: the form field's file name, its MIME type and its bytes. */
export interface FreeeFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * What a call returns when it is not an error of the read retry rules (docs/architecture.md, the approved Process is the capability): success, or a refusal that the
 * agent should read and decide on (403 scope / rate guard, 404 missing record, 400/422 invalid input).
 * Retries exhausted and auth failures throw taxonomy errors instead.
 */
export type FreeeResult =
  | { ok: true; status: number; data: unknown }
  | { ok: false; status: number; kind: "forbidden" | "not_found" | "rejected"; messages: string[] };
