/** Where the admin links out to, and the paths a redirect may return to. */

/** The task's thread in Slack's web client (opens the desktop app when the browser hands it over). */
export function slackThreadUrl(thread: { teamId: string; channelId: string; messageTs: string }, base = "https://app.slack.com"): string {
  const c = encodeURIComponent(thread.channelId);
  return `${base}/client/${encodeURIComponent(thread.teamId)}/${c}/thread/${c}-${encodeURIComponent(thread.messageTs)}`;
}

/** A path to go back to after sign-in: only pages of the admin on this origin (no `//host`, no scheme). */
export function safeNext(raw: string | undefined): string {
  if (raw === undefined) return "/admin";
  if (!/^\/admin(\/|\?|$)/.test(raw) || raw.includes("//") || raw.includes("\\")) return "/admin";
  return raw;
}
