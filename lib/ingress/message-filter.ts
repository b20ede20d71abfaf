import { MAX_ATTACHMENTS, SlackFileRefSchema, type SlackFileRef } from "../core/domain/records";
import { TaskPipelineInputSchema, type TaskPipelineInput } from "../steps/machines/contracts";

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
  files?: unknown;
}

const ACCEPTED_CHANNEL_TYPES = new Set(["channel", "group", "im", "mpim", undefined]);

/**
 * Decide whether an event is a new request, and if so build the TaskPipeline input. Ignored: every bot's
 * messages (bot_id / bot_profile / subtype bot_message — other bots included, not only this app), every
 * subtype (edits, deletions, joins, thread broadcasts…), hidden messages, replies inside a thread (they belong
 * to a conversation already under way), and messages whose text is empty once the bot mention is removed.
 * The files shared with it (subtype file_share) are kept by id, name, size and type: a plan may upload one.
 * The input holds nothing per-delivery (no event_id): the same message always yields the same input.
 */
export function taskInputFromMessage(
  event: MessageLike,
  team: { teamId: string; enterpriseId?: string },
  botUserId?: string,
): TaskPipelineInput | undefined {
  if (event.type !== "message" && event.type !== "app_mention") return undefined;
  // A message with files (a receipt) arrives as subtype file_share; every other subtype is not a new request.
  if (event.subtype !== undefined && event.subtype !== "file_share") return undefined;
  if (event.bot_id !== undefined || event.bot_profile !== undefined || event.hidden === true) return undefined;
  if (typeof event.user !== "string" || event.user === "" || (botUserId !== undefined && event.user === botUserId)) return undefined;
  if (typeof event.channel !== "string" || typeof event.ts !== "string" || typeof event.text !== "string") return undefined;
  if (!ACCEPTED_CHANNEL_TYPES.has(event.channel_type as string | undefined)) return undefined;
  if (typeof event.thread_ts === "string" && event.thread_ts !== event.ts) return undefined;
  const text = stripMention(event.text, botUserId).trim();
  if (text === "") return undefined;
  const attachments = attachmentsOf(event.files);
  const parsed = TaskPipelineInputSchema.safeParse({
    thread: { teamId: team.teamId, ...(team.enterpriseId === undefined ? {} : { enterpriseId: team.enterpriseId }), channelId: event.channel, messageTs: event.ts },
    requesterId: event.user,
    requestText: text,
    ...(attachments.length === 0 ? {} : { attachments }),
  });
  return parsed.success ? parsed.data : undefined;
}

function stripMention(text: string, botUserId: string | undefined): string {
  if (botUserId === undefined) return text.replace(/^\s*<@[UW][A-Z0-9]+>\s*/, "");
  return text.split(`<@${botUserId}>`).join(" ");
}

/**
 * The files of the message a plan may name: hosted files with an id, a name, a size and a type. Deleted
 * (tombstone), external and size-limited files (`mode` hidden_by_limit) carry no content the app can fetch.
 */
function attachmentsOf(files: unknown): SlackFileRef[] {
  if (!Array.isArray(files)) return [];
  const refs: SlackFileRef[] = [];
  for (const file of files as Record<string, unknown>[]) {
    if (typeof file !== "object" || file === null) continue;
    if (file.mode === "tombstone" || file.mode === "hidden_by_limit" || file.mode === "external" || file.is_external === true) continue;
    const ref = SlackFileRefSchema.safeParse({ fileId: file.id, name: file.name ?? file.title, size: file.size, mimetype: file.mimetype });
    if (ref.success && refs.length < MAX_ATTACHMENTS) refs.push(ref.data);
  }
  return refs;
}
