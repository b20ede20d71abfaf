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
    is_bot: false,
    is_app_user: false,
    updated: 1_700_000_000,
    ...(u.enterpriseId === undefined ? {} : { enterprise_user: { id: u.id, enterprise_id: u.enterpriseId, enterprise_name: "Grid", is_admin: false, is_owner: false, teams: [u.teamId] } }),
  };
}
