import { TaskPipelineInputSchema, type TaskPipelineInput } from "../workflow/contracts";

/** The fields of a `message` / `app_mention` event this app reads (everything else is ignored). */
export interface MessageLike {
  type?: unknown;
  subtype?: unknown;
  bot_id?: unknown;
  bot_profile?: unknown;
  app_id?: unknown;
  user?: unknown;
  text?: unknown;
  ts?: unknown;
  thread_ts?: unknown;
  channel?: unknown;
  channel_type?: unknown;
  hidden?: unknown;
}

const ACCEPTED_CHANNEL_TYPES = new Set(["channel", "group", "im", "mpim", undefined]);

/**
 * Decide whether an event is a new request, and if so build the TaskPipeline input. Ignored: every bot's
 * messages (bot_id / bot_profile / subtype bot_message — other bots included, not only this app), every
 * subtype (edits, deletions, joins, thread broadcasts…), hidden messages, replies inside a thread (they belong
 * to a conversation already under way), and messages whose text is empty once the bot mention is removed.
 * The input holds nothing per-delivery (no event_id): the same message always yields the same input.
 */
export function taskInputFromMessage(
  event: MessageLike,
  team: { teamId: string; enterpriseId?: string },
  botUserId?: string,
): TaskPipelineInput | undefined {
  if (event.type !== "message" && event.type !== "app_mention") return undefined;
  if (event.subtype !== undefined) return undefined;
  if (event.bot_id !== undefined || event.bot_profile !== undefined || event.hidden === true) return undefined;
  if (typeof event.user !== "string" || event.user === "" || (botUserId !== undefined && event.user === botUserId)) return undefined;
  if (typeof event.channel !== "string" || typeof event.ts !== "string" || typeof event.text !== "string") return undefined;
  if (!ACCEPTED_CHANNEL_TYPES.has(event.channel_type as string | undefined)) return undefined;
  if (typeof event.thread_ts === "string" && event.thread_ts !== event.ts) return undefined;
  const text = stripMention(event.text, botUserId).trim();
  if (text === "") return undefined;
  const parsed = TaskPipelineInputSchema.safeParse({
    thread: { teamId: team.teamId, ...(team.enterpriseId === undefined ? {} : { enterpriseId: team.enterpriseId }), channelId: event.channel, messageTs: event.ts },
    requesterId: event.user,
    requestText: text,
  });
  return parsed.success ? parsed.data : undefined;
}

function stripMention(text: string, botUserId: string | undefined): string {
  if (botUserId === undefined) return text.replace(/^\s*<@[UW][A-Z0-9]+>\s*/, "");
  return text.split(`<@${botUserId}>`).join(" ");
}
