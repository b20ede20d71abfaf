/**
 * What the Slack surface needs from the freee module (lib/freee/oauth.ts): its two HTTP routes, mounted on the
 * ingress, and the connection status / connect URL shown in App Home. Injected, so the Slack side does not
 * depend on how freee OAuth is built.
 */
export interface FreeePort {
  connect?: (request: Request) => Promise<Response>;
  callback?: (request: Request) => Promise<Response>;
  /** The signed connect link; App Home asks for it only for an admin (the connect pages check again). */
  buildConnectUrl?: (teamId: string, userId: string) => Promise<string> | string;
  /** Remove the workspace's freee tokens (lib/store/freee-disconnect.ts); the caller has checked that `by` is an admin. */
  disconnect?: (teamId: string, by: string) => Promise<{ disconnected: true; version: number } | { disconnected: false }>;
  getConnectionStatus?: (teamId: string) => Promise<{
    status: "connected" | "reauth_required" | "not_connected";
    companyName?: string;
    /** When the refresh token lapses (issue + 90 days); absent when not recorded. */
    refreshTokenExpiresAt?: string;
    reauthReason?: string;
  }>;
}
