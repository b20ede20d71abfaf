import { WriteOutcomeUnknownError } from "../core/errors/taxonomy";
import type { FreeeRequest } from "./types";

/**
 * The write half of the client's retry policy (docs/architecture.md, error table). The retry rules hold for reads only: a write
 * (POST / PUT / PATCH / DELETE) that may have reached freee — a timeout, a connection lost after sending, a 5xx —
 * is never sent again by the client. It ends as `WriteOutcomeUnknownError`, which the MCP server settles by
 * reading back (lib/freee/write-reconciler.ts). Retrying stays safe where freee cannot have acted on the request:
 * a 401 or 429 answer (refused before it ran) and a connection that never opened.
 */
export function isWriteRequest(req: Pick<FreeeRequest, "method">): boolean {
  return req.method !== "GET";
}

/** Errors of a connection that never carried the request (DNS, refused, unreachable, TLS before the request). */
const NEVER_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_HAS_EXPIRED",
]);

/** True unless the error proves the request never left: a fetch error is ambiguous by default. */
export function mayHaveBeenSent(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NEVER_SENT_CODES.has(code)) return false;
  }
  return true;
}

/** The error a write ends with when freee may have taken it; `cause` is what the client saw. */
export function ambiguousWrite(req: FreeeRequest, cause: Error, status?: number): WriteOutcomeUnknownError {
  return new WriteOutcomeUnknownError(`freee ${req.method} ${req.path}: outcome unknown (${cause.name}); not sent again`, {
    cause,
    details: { path: req.path, method: req.method, ...(status === undefined ? {} : { status }), seen: cause.name },
  });
}
