import type { Logger } from "@aws-lambda-powertools/logger";
import type { WebClient } from "@slack/web-api";
import type { SlackThread } from "../core/domain/records";
import { classifySlackError, slackErrorCode } from "../slack-api/web-client";

export type Audience = "public" | "private";

/**
 * Whether a conversation is public, from Slack's own facts (conversations.info: `is_im`, `is_mpim`,
 * `is_private`), never from its name. A public channel is one any member of the workspace can open and read;
 * a private channel, a DM and a group DM are not. Kept 5 minutes per warm instance (a channel made private in
 * between is still treated as public for that long: the safe side). When Slack cannot say (`channel_not_found`
 * for a channel the app was removed from, `missing_scope` on an installation made before the app asked for the
 * read scopes) the conversation counts as public: HR personal data is then sent privately rather than posted.
 */
export class ChannelPrivacy {
  private readonly cache = new Map<string, { at: number; audience: Promise<Audience> }>();

  constructor(
    private readonly log: Logger,
    private readonly ttlMs = 5 * 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  audienceOf(client: WebClient, thread: Pick<SlackThread, "teamId" | "channelId">): Promise<Audience> {
    // DM channel ids start with D: Slack's own id scheme, no call needed.
    if (thread.channelId.startsWith("D")) return Promise.resolve("private");
    const key = `${thread.teamId}|${thread.channelId}`;
    const cached = this.cache.get(key);
    if (cached !== undefined && this.clock() - cached.at < this.ttlMs) return cached.audience;
    const audience = this.ask(client, thread).catch((err: unknown) => {
      if (this.cache.get(key)?.audience === audience) this.cache.delete(key);
      throw err;
    });
    this.cache.set(key, { at: this.clock(), audience });
    if (this.cache.size > 1000) this.cache.delete(this.cache.keys().next().value as string);
    return audience;
  }

  private async ask(client: WebClient, thread: Pick<SlackThread, "teamId" | "channelId">): Promise<Audience> {
    try {
      const { channel } = await client.conversations.info({ channel: thread.channelId });
      if (channel === undefined) return "public";
      return channel.is_im === true || channel.is_mpim === true || channel.is_private === true ? "private" : "public";
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === "channel_not_found" || code === "missing_scope") {
        this.log.warn("conversations.info could not say whether the channel is public: treated as public", { teamId: thread.teamId, channelId: thread.channelId, slackError: code });
        return "public";
      }
      throw classifySlackError(err, "conversations.info");
    }
  }
}
