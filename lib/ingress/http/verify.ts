import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a request timestamp may be from now, either way (Slack: 5 minutes; Bolt only checks the past). */
export const MAX_CLOCK_SKEW_SECONDS = 300;

export type VerifyFailure = "missing_headers" | "bad_timestamp" | "stale_or_future" | "bad_signature";

/**
 * Slack request signing: `v0=` + hex HMAC-SHA256 over `v0:{timestamp}:{raw body}`. Rejects a timestamp more
 * than five minutes in the past or in the future (a replay with a forged future timestamp included).
 */
export function verifySlackSignature(
  body: string,
  headers: Record<string, string>,
  signingSecret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): { ok: true } | { ok: false; reason: VerifyFailure } {
  const signature = headers["x-slack-signature"];
  const tsHeader = headers["x-slack-request-timestamp"];
  if (signature === undefined || tsHeader === undefined) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,12}$/.test(tsHeader)) return { ok: false, reason: "bad_timestamp" };
  const ts = Number(tsHeader);
  if (Math.abs(nowSeconds - ts) > MAX_CLOCK_SKEW_SECONDS) return { ok: false, reason: "stale_or_future" };
  const expected = Buffer.from(`v0=${createHmac("sha256", signingSecret).update(`v0:${tsHeader}:${body}`).digest("hex")}`, "utf8");
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad_signature" };
  return { ok: true };
}
