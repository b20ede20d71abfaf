/**
 * User groups and conversations as Slack answers them, for the approval policy and result delivery:
 *   usergroups.list (https://docs.slack.dev/reference/methods/usergroups.list) and usergroups.users.list
 *   (…/usergroups.users.list) need `usergroups:read`; an unknown group is `no_such_subteam`. usergroups.list
 *   leaves disabled groups out unless `include_disabled`, gives `user_count` (a string, as Slack does) only with
 *   `include_count` and `users` only with `include_users`, in no particular order (the fake: newest first). A
 *   workspace on the free plan has no user groups: both answer `plan_upgrade_required`.
 *   conversations.info (…/conversations.info) needs the read scope of the channel's type — `channels:read` public,
 *   `groups:read` private, `im:read` DM, `mpim:read` group DM — and answers `missing_scope` (with `needed`) when
 *   the token lacks it; an unknown channel is `channel_not_found`.
 *   conversations.open (…/conversations.open) with `users` opens (or finds) the DM: it needs `im:write`.
 */
export interface FakeUsergroup {
  id: string;
  handle: string;
  name: string;
  users: string[];
  /** Disabled by an admin (Slack keeps it, with `date_delete` set). */
  disabled?: boolean;
}

export interface FakeConversation {
  id: string;
  isPrivate: boolean;
  isIm: boolean;
  isMpim: boolean;
  /** A DM's other member. */
  user?: string;
  name?: string;
}

type Answer = Record<string, unknown>;

export class SlackDirectory {
  readonly usergroups = new Map<string, FakeUsergroup>();
  readonly conversations = new Map<string, FakeConversation>();
  /** The workspace's plan has no user groups (Slack's free plan). */
  usergroupsUnavailable = false;

  addUsergroup(group: FakeUsergroup): void {
    this.usergroups.set(group.id, group);
  }

  addChannel(channel: { id: string; isPrivate?: boolean; name?: string }): void {
    this.conversations.set(channel.id, { id: channel.id, isPrivate: channel.isPrivate ?? false, isIm: false, isMpim: false, ...(channel.name === undefined ? {} : { name: channel.name }) });
  }

  /** The DM channel with a member (Slack gives each pair one). */
  imWith(user: string): FakeConversation {
    const found = [...this.conversations.values()].find((c) => c.isIm && c.user === user);
    if (found !== undefined) return found;
    const im = { id: `D${user.replace(/^[UW]/, "")}`.slice(0, 11), isPrivate: true, isIm: true, isMpim: false, user };
    this.conversations.set(im.id, im);
    return im;
  }

  method(name: string, body: Record<string, unknown>, scopes: readonly string[] | undefined, teamId = ""): Answer | undefined {
    const has = (scope: string) => scopes === undefined || scopes.includes(scope);
    const missing = (needed: string): Answer => ({ ok: false, error: "missing_scope", needed, provided: (scopes ?? []).join(",") });
    switch (name) {
      case "usergroups.list": {
        if (!has("usergroups:read")) return missing("usergroups:read");
        if (this.usergroupsUnavailable) return { ok: false, error: "plan_upgrade_required" };
        const flag = (name: string) => body[name] === true || body[name] === "true" || body[name] === "1" || body[name] === 1;
        return {
          ok: true,
          usergroups: [...this.usergroups.values()]
            .filter((g) => flag("include_disabled") || g.disabled !== true)
            .reverse()
            .map((g) => ({
              id: g.id,
              team_id: teamId,
              is_usergroup: true,
              name: g.name,
              description: "",
              handle: g.handle,
              is_external: false,
              date_create: 1_700_000_000,
              date_update: 1_700_000_000,
              date_delete: g.disabled === true ? 1_700_000_100 : 0,
              auto_type: null,
              prefs: { channels: [], groups: [] },
              ...(flag("include_count") ? { user_count: String(g.users.length) } : {}),
              ...(flag("include_users") ? { users: [...g.users] } : {}),
            })),
        };
      }
      case "usergroups.users.list": {
        if (!has("usergroups:read")) return missing("usergroups:read");
        if (this.usergroupsUnavailable) return { ok: false, error: "plan_upgrade_required" };
        const group = typeof body.usergroup === "string" ? this.usergroups.get(body.usergroup) : undefined;
        if (group === undefined) return { ok: false, error: "no_such_subteam" };
        return { ok: true, users: [...group.users] };
      }
      case "conversations.info": {
        const channel = typeof body.channel === "string" ? this.conversations.get(body.channel) : undefined;
        if (channel === undefined) return { ok: false, error: "channel_not_found" };
        const needed = channel.isIm ? "im:read" : channel.isMpim ? "mpim:read" : channel.isPrivate ? "groups:read" : "channels:read";
        if (!has(needed)) return missing(needed);
        return {
          ok: true,
          channel: { id: channel.id, is_channel: !channel.isIm && !channel.isMpim && !channel.isPrivate, is_group: channel.isPrivate && !channel.isIm && !channel.isMpim, is_im: channel.isIm, is_mpim: channel.isMpim, is_private: channel.isPrivate, ...(channel.name === undefined ? {} : { name: channel.name }), ...(channel.user === undefined ? {} : { user: channel.user }) },
        };
      }
      case "conversations.open": {
        if (!has("im:write")) return missing("im:write");
        const users = typeof body.users === "string" ? body.users.split(",").filter((u) => u !== "") : [];
        if (users.length !== 1) return { ok: false, error: users.length === 0 ? "users_list_not_supplied" : "not_supported" };
        const im = this.imWith(users[0]!);
        return { ok: true, channel: { id: im.id } };
      }
      default:
        return undefined;
    }
  }
}
