import { createHmac } from "node:crypto";

/**
 * Sign a body as Slack does: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` (X-Slack-Signature). The one
 * signer of the repository: the sandbox, the tests (test/support/slack-signing.ts), the bench and `npm run smoke`
 * all sign through it. Here in dev/ because the sandbox ships without test/.
 */
export function slackSignature(body: string, signingSecret: string, timestamp: number): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** The two headers of a signed Slack request. */
export function slackSignatureHeaders(body: string, signingSecret: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { "x-slack-signature": slackSignature(body, signingSecret, timestamp), "x-slack-request-timestamp": String(timestamp) };
}

export interface SlackDelivery {
  status: number;
  text: string;
}

/** POST a signed Events API delivery (JSON) to an ingress URL. */
export async function deliverEvent(url: string, payload: unknown, signingSecret: string, headers: Record<string, string> = {}): Promise<SlackDelivery> {
  const body = JSON.stringify(payload);
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...slackSignatureHeaders(body, signingSecret), ...headers }, body });
  return { status: res.status, text: await res.text() };
}

/** POST a signed interactivity delivery (form-encoded `payload=<json>`) to an ingress URL. */
export async function deliverInteraction(url: string, payload: unknown, signingSecret: string): Promise<SlackDelivery> {
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...slackSignatureHeaders(body, signingSecret) }, body });
  return { status: res.status, text: await res.text() };
}
