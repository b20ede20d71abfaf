import type { WebClient } from "@slack/web-api";
import type { BotTokenResolver } from "../slack-api/bot-token";
import { classifySlackError, slackErrorCode } from "../slack-api/web-client";
import type { Actor } from "./actions/types";

/** Who belongs to a Slack user group (the approval policy's approver groups). */
export interface UsergroupCheck {
  isMember(actor: Actor, usergroupId: string): Promise<boolean>;
}

/**
 * usergroups.users.list with the workspace's bot token (scope `usergroups:read`), kept a minute per warm
 * instance (a member removed from the group loses the right within it). A deleted group has no members, nor has
 * a group of a workspace whose plan has none. Any other failure is translated and thrown:
 * an approval is never granted, nor refused, because Slack could not be asked.
 */
export class UsergroupDirectory implements UsergroupCheck {
  private readonly cache = new Map<string, { at: number; members: Promise<ReadonlySet<string>> }>();

  constructor(
    private readonly tokens: BotTokenResolver,
    private readonly clientFor: (token: string) => WebClient,
    private readonly ttlMs = 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  async isMember(actor: Actor, usergroupId: string): Promise<boolean> {
    return (await this.members(actor, usergroupId)).has(actor.userId);
  }

  private members(actor: Actor, usergroupId: string): Promise<ReadonlySet<string>> {
    const key = `${actor.teamId}|${usergroupId}`;
    const cached = this.cache.get(key);
    if (cached !== undefined && this.clock() - cached.at < this.ttlMs) return cached.members;
    const members = this.list(actor, usergroupId).catch((err: unknown) => {
      if (this.cache.get(key)?.members === members) this.cache.delete(key);
      throw err;
    });
    this.cache.set(key, { at: this.clock(), members });
    if (this.cache.size > 500) this.cache.delete(this.cache.keys().next().value as string);
    return members;
  }

  private async list(actor: Actor, usergroupId: string): Promise<ReadonlySet<string>> {
    const { botToken } = await this.tokens.resolve(actor.teamId, actor.enterpriseId);
    try {
      const out = await this.clientFor(botToken).usergroups.users.list({ usergroup: usergroupId });
      return new Set(out.users ?? []);
    } catch (err) {
      // A group deleted since the policy named it has no members, nor has any on a plan without user groups
      // (plan_upgrade_required, a workspace moved to the free plan): nobody approves through it.
      const code = slackErrorCode(err);
      if (code === "no_such_subteam" || code === "plan_upgrade_required") return new Set();
      throw classifySlackError(err, "usergroups.users.list");
    }
  }
}

/** A Slack user group an admin can name as approvers (the App Home policy editor's choices). */
export interface UsergroupChoice {
  id: string;
  handle: string;
  name: string;
}

/**
 * The workspace's enabled user groups (usergroups.list, scope `usergroups:read`), sorted by handle. `unavailable`:
 * the workspace's plan has no user groups (`plan_upgrade_required`), so approvers are members only. Any other
 * failure is translated and thrown: the editor then says it could not load, and nothing is saved.
 */
export async function listUsergroups(client: WebClient): Promise<UsergroupChoice[] | "unavailable"> {
  try {
    const out = await client.usergroups.list({ include_disabled: false });
    return (out.usergroups ?? [])
      .filter((g) => typeof g.id === "string" && (g.date_delete ?? 0) === 0)
      .map((g) => ({ id: g.id!, handle: g.handle ?? g.id!, name: g.name ?? g.handle ?? g.id! }))
      .sort((a, b) => a.handle.localeCompare(b.handle));
  } catch (err) {
    if (slackErrorCode(err) === "plan_upgrade_required") return "unavailable";
    throw classifySlackError(err, "usergroups.list");
  }
}
