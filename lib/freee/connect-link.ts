import { signState, type SignedClaims } from "./signed-state";

/** The signed App Home link to /freee/connect (the web Lambda verifies it: lib/freee/oauth.ts). */
export interface ConnectLinkSettings {
  /** Where /freee/connect is served (the web Lambda's URL, or the custom domain in front of it). */
  publicBaseUrl: string;
  stateSecret: string;
  ttlSeconds: number;
}

export function buildConnectLink(settings: ConnectLinkSettings, teamId: string, userId: string, nowSeconds: number, options: { companyId?: number } = {}): string {
  const claims: SignedClaims = { t: teamId, u: userId, exp: nowSeconds + settings.ttlSeconds, ...(options.companyId === undefined ? {} : { c: options.companyId }) };
  const url = new URL(`${settings.publicBaseUrl.replace(/\/+$/, "")}/freee/connect`);
  url.searchParams.set("team", teamId);
  url.searchParams.set("user", userId);
  url.searchParams.set("sig", signState("freee_connect", claims, settings.stateSecret));
  return url.toString();
}
