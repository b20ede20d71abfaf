/**
 * What the Slack surface needs from the freee module (lib/freee/oauth.ts): its two HTTP routes, mounted on the
 * ingress, and the connection status / connect URL shown in App Home. Injected, so the Slack side does not
 * depend on how freee OAuth is built.
 */
export interface FreeePort {
  connect?: (request: Request) => Promise<Response>;
  callback?: (request: Request) => Promise<Response>;
  buildConnectUrl?: (teamId: string, userId: string) => Promise<string> | string;
  getConnectionStatus?: (teamId: string) => Promise<{
    status: "connected" | "reauth_required" | "not_connected";
    companyName?: string;
    /** When the refresh token lapses (issue + 90 days); absent when not recorded. */
    refreshTokenExpiresAt?: string;
    reauthReason?: string;
  }>;
}
