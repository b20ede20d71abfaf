import type { SlackUser, Workspace } from "./workspace";

/**
 * users.info as Slack answers it (https://docs.slack.dev/reference/methods/users.info): the bot token needs
 * `users:read` (`missing_scope`, with `needed` / `provided`); `user` is required (`invalid_arguments`); an id the
 * workspace does not know is `user_not_found`. The user carries `team_id` (their own workspace — a Slack Connect
 * member from another organisation has theirs), `is_admin`, `is_owner`, `is_primary_owner`, `deleted`.
 */
export function usersInfo(ws: Workspace, body: Record<string, unknown>, scopes: readonly string[] | undefined): Record<string, unknown> {
  if (scopes !== undefined && !scopes.includes("users:read")) {
    return { ok: false, error: "missing_scope", needed: "users:read", provided: scopes.join(",") };
  }
  const id = typeof body.user === "string" ? body.user : undefined;
  if (id === undefined || id === "") return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: user"] } };
  const user = ws.users.get(id);
  if (user === undefined) return { ok: false, error: "user_not_found" };
  return { ok: true, user: userView(user) };
}

/**
 * users.list as Slack answers it (https://docs.slack.dev/reference/methods/users.list): `users:read`; the members
 * of the token's workspace, deactivated ones (`deleted`) and bots (`is_bot`) among them, and Slackbot (USLACKBOT,
 * `is_bot` false, as Slack lists it); `limit` pages, with `response_metadata.next_cursor` ("" on the last page);
 * a cursor it did not hand out is `invalid_cursor`. Without a limit Slack tries the whole set.
 */
export function usersList(ws: Workspace, body: Record<string, unknown>, scopes: readonly string[] | undefined, teamId: string): Record<string, unknown> {
  if (scopes !== undefined && !scopes.includes("users:read")) {
    return { ok: false, error: "missing_scope", needed: "users:read", provided: scopes.join(",") };
  }
  const slackbot: SlackUser = { id: "USLACKBOT", teamId, isAdmin: false, isOwner: false, isPrimaryOwner: false, deleted: false, displayName: "Slackbot", realName: "Slackbot" };
  const all = [...[...ws.users.values()].filter((u) => u.teamId === teamId), slackbot].sort((a, b) => a.id.localeCompare(b.id));
  const limit = Number(body.limit ?? 0);
  let start = 0;
  if (typeof body.cursor === "string" && body.cursor !== "") {
    const m = /^user:(\d+)$/.exec(Buffer.from(body.cursor, "base64").toString("utf8"));
    if (m === null || Number(m[1]) > all.length) return { ok: false, error: "invalid_cursor" };
    start = Number(m[1]);
  }
  const end = Number.isInteger(limit) && limit > 0 ? Math.min(all.length, start + limit) : all.length;
  const next = end < all.length ? Buffer.from(`user:${end}`).toString("base64") : "";
  return { ok: true, members: all.slice(start, end).map(userView), cache_ts: Math.floor(Date.now() / 1000), response_metadata: { next_cursor: next } };
}

function userView(u: SlackUser): Record<string, unknown> {
  return {
    id: u.id,
    team_id: u.teamId,
    name: u.id.toLowerCase(),
    deleted: u.deleted,
    is_admin: u.isAdmin,
    is_owner: u.isOwner,
    is_primary_owner: u.isPrimaryOwner,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: u.isBot === true,
    real_name: u.realName ?? "",
    profile: { display_name: u.displayName ?? "", real_name: u.realName ?? "" },
    is_app_user: false,
    updated: 1_700_000_000,
    ...(u.enterpriseId === undefined ? {} : { enterprise_user: { id: u.id, enterprise_id: u.enterpriseId, enterprise_name: "Grid", is_admin: false, is_owner: false, teams: [u.teamId] } }),
  };
}
