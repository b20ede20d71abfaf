import { randomBytes } from "node:crypto";
import { signState, type SignedClaims } from "./signed-state";

/** The signed App Home link to /freee/connect (the web Lambda verifies it: lib/freee/oauth.ts). */
export interface ConnectLinkSettings {
  /** Where /freee/connect is served (the web Lambda's URL, or the custom domain in front of it). */
  publicBaseUrl: string;
  stateSecret: string;
  ttlSeconds: number;
}

/**
 * A connect link lives at most this long: it is single-use (lib/store/freee-one-time-uses.ts) and republished with
 * App Home on every open, so a short life costs nothing, while a link copied out of Slack is useless soon.
 */
export const MAX_CONNECT_LINK_TTL_SECONDS = 10 * 60;

/** A configured lifetime, never longer than MAX_CONNECT_LINK_TTL_SECONDS. */
export function connectLinkTtl(seconds: number): number {
  return Math.min(seconds, MAX_CONNECT_LINK_TTL_SECONDS);
}

export function buildConnectLink(settings: ConnectLinkSettings, teamId: string, userId: string, nowSeconds: number, options: { companyId?: number } = {}): string {
  // `n` names this link: /freee/connect marks it used (OneTimeUses), so it opens one browser's flow once.
  const claims: SignedClaims = {
    t: teamId,
    u: userId,
    exp: nowSeconds + connectLinkTtl(settings.ttlSeconds),
    n: randomBytes(12).toString("base64url"),
    ...(options.companyId === undefined ? {} : { c: options.companyId }),
  };
  const url = new URL(`${settings.publicBaseUrl.replace(/\/+$/, "")}/freee/connect`);
  url.searchParams.set("team", teamId);
  url.searchParams.set("user", userId);
  url.searchParams.set("sig", signState("freee_connect", claims, settings.stateSecret));
  return url.toString();
}
