import { createHmac, timingSafeEqual } from "node:crypto";
import { AuthError } from "../core/errors/taxonomy";

/**
 * Signed, expiring tokens for the freee OAuth connect flow: `<base64url(JSON)>.<base64url(HMAC-SHA256)>`.
 * The payload names its purpose, so a connect-link signature can never stand in for an OAuth state.
 */
export type StatePurpose = "freee_connect" | "freee_state";

export interface SignedClaims {
  /** Workspace. */
  t: string;
  /** Slack user who started the connect. */
  u: string;
  /** Unix seconds. */
  exp: number;
  /** Nonce (OAuth state only), also kept in a cookie to bind the state to the browser. */
  n?: string;
  /** Company requested on the connect link, if any. */
  c?: number;
}

export type StateRejection = "malformed" | "bad_signature" | "wrong_purpose" | "expired";

export function signState(purpose: StatePurpose, claims: SignedClaims, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ p: purpose, ...claims }), "utf8").toString("base64url");
  return `${payload}.${mac(payload, secret)}`;
}

/** Claims of a valid token, or AuthError with `details.reason` (a StateRejection). */
export function verifyState(purpose: StatePurpose, token: string, secret: string, now: Date): SignedClaims {
  const parts = token.split(".");
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") throw rejection("malformed");
  const [payload, signature] = parts as [string, string];
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw rejection("bad_signature");
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch (cause) {
    throw rejection("malformed", cause);
  }
  if (raw.p !== purpose) throw rejection("wrong_purpose");
  if (typeof raw.t !== "string" || raw.t === "" || typeof raw.u !== "string" || raw.u === "" || typeof raw.exp !== "number") {
    throw rejection("malformed");
  }
  if (raw.exp <= Math.floor(now.getTime() / 1000)) throw rejection("expired");
  return {
    t: raw.t,
    u: raw.u,
    exp: raw.exp,
    ...(typeof raw.n === "string" ? { n: raw.n } : {}),
    ...(typeof raw.c === "number" && Number.isInteger(raw.c) && raw.c > 0 ? { c: raw.c } : {}),
  };
}

function mac(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

function rejection(reason: StateRejection, cause?: unknown): AuthError {
  return new AuthError(`freee OAuth state rejected: ${reason}`, { service: "freee", cause, details: { reason } });
}
