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
 * instance (a member removed from the group loses the right within it). A deleted group has no members. Any
 * other failure is translated and thrown:
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
      // A group deleted since the policy named it has no members: nobody approves through it.
      if (slackErrorCode(err) === "no_such_subteam") return new Set();
      throw classifySlackError(err, "usergroups.users.list");
    }
  }
}
