import type { WebClient } from "@slack/web-api";
import type { Logger } from "@aws-lambda-powertools/logger";
import { WebAdminMessages } from "../core/messages/ja";
import { listUsergroups } from "../ingress/usergroups";
import type { BotTokenResolver } from "../slack-api/bot-token";
import { classifySlackError } from "../slack-api/web-client";

/** One choice of an approver field: a member or a user group, by the name Slack shows for it. */
export interface PersonChoice {
  id: string;
  name: string;
}

/**
 * Who the approver fields offer (設定): the workspace's human members and its user groups, each by its display
 * name, or — when Slack cannot say or the workspace is too large to list on one page — the id text fields, with
 * the reason shown on the page.
 */
export type People =
  | { kind: "listed"; members: PersonChoice[]; groups: PersonChoice[] | "unavailable"; names: ReadonlyMap<string, string> }
  | { kind: "typed"; why: string };

/** Above this many members a `<select>` is no longer a way to find someone: the id fields instead. */
export const MEMBER_LIST_LIMIT = 500;
/** users.list pages (Slack recommends no more than 200 a page). */
const PAGE = 200;

/** The members (users.list, scope `users:read`) and user groups (usergroups.list, `usergroups:read`) of a workspace. */
export class SlackPeople {
  /** A workspace's list, kept `ttlMs` per warm instance: users.list is Tier 2 (about 20 a minute). */
  private readonly cache = new Map<string, { at: number; people: People }>();

  constructor(
    private readonly tokens: BotTokenResolver,
    private readonly clientFor: (token: string) => WebClient,
    private readonly log: Logger,
    private readonly options: { ttlMs: number; limit?: number; clock?: () => number } = { ttlMs: 60_000 },
  ) {}

  private get limit(): number {
    return this.options.limit ?? MEMBER_LIST_LIMIT;
  }

  /** Never throws: a Slack failure is logged and answered with the id fields (the caller audits `failure`). */
  async of(teamId: string): Promise<People & { failure?: Error }> {
    const now = (this.options.clock ?? Date.now)();
    const kept = this.cache.get(teamId);
    if (kept !== undefined && now - kept.at < this.options.ttlMs) return kept.people;
    const people = await this.fetch(teamId);
    // Only an answer is kept: after a failure the next page asks Slack again.
    if (!("failure" in people) && this.options.ttlMs > 0) {
      this.cache.set(teamId, { at: now, people });
      if (this.cache.size > 500) this.cache.delete(this.cache.keys().next().value as string);
    }
    return people;
  }

  private async fetch(teamId: string): Promise<People & { failure?: Error }> {
    try {
      const { botToken } = await this.tokens.resolve(teamId);
      const client = this.clientFor(botToken);
      const [members, groups] = await Promise.all([this.members(client), listUsergroups(client)]);
      if (members === "too_many") return { kind: "typed", why: WebAdminMessages.peopleTooMany(this.limit) };
      const named = groups === "unavailable" ? [] : groups.map((g) => ({ id: g.id, name: `@${g.handle}（${g.name}）` }));
      return { kind: "listed", members, groups: groups === "unavailable" ? "unavailable" : named, names: new Map([...members, ...named].map((p) => [p.id, p.name])) };
    } catch (err) {
      const failure = err instanceof Error ? err : new Error(String(err));
      this.log.error("web admin could not list the workspace's members", { layer: "admin", teamId, error_type: failure.name, error_message: failure.message });
      return { kind: "typed", why: WebAdminMessages.peopleUnavailable, failure };
    }
  }

  /** Every human member (no bot, no Slackbot, no deactivated account), by display name; past the limit: too_many. */
  private async members(client: WebClient): Promise<PersonChoice[] | "too_many"> {
    const found: PersonChoice[] = [];
    let cursor: string | undefined;
    do {
      let out;
      try {
        out = await client.users.list({ limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
      } catch (err) {
        throw classifySlackError(err, "users.list");
      }
      for (const m of out.members ?? []) {
        if (typeof m.id !== "string" || m.deleted === true || m.is_bot === true || m.id === "USLACKBOT") continue;
        const name = nonEmpty(m.profile?.display_name) ?? nonEmpty(m.profile?.real_name) ?? nonEmpty(m.real_name) ?? nonEmpty(m.name) ?? m.id;
        found.push({ id: m.id, name });
        if (found.length > this.limit) return "too_many";
      }
      cursor = nonEmpty(out.response_metadata?.next_cursor);
    } while (cursor !== undefined);
    return found.sort((a, b) => a.name.localeCompare(b.name, "ja"));
  }
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s.trim() === "" ? undefined : s;
}
