import * as z from "zod/mini";

/**
 * The outer shape of every Slack delivery this app handles, checked before Bolt sees it: Bolt reads these
 * fields without checking them, and a wrong type there would crash the request (a 500 Slack keeps retrying).
 */
const slackId = z.string().check(z.minLength(1), z.maxLength(64));

const EventCallback = z.object({
  type: z.literal("event_callback"),
  team_id: slackId,
  enterprise_id: z.nullish(slackId),
  api_app_id: z.optional(z.string()),
  event_id: z.optional(z.string()),
  authorizations: z.optional(z.array(z.object({ team_id: z.nullish(slackId), enterprise_id: z.nullish(slackId), user_id: z.optional(z.string()), is_enterprise_install: z.optional(z.boolean()) }))),
  is_ext_shared_channel: z.optional(z.boolean()),
  event: z.object({
    type: z.string().check(z.minLength(1), z.maxLength(64)),
    channel: z.optional(z.union([z.string(), z.object({ id: z.string() })])),
    user: z.optional(z.union([z.string(), z.object({ id: z.string() })])),
    item: z.nullish(z.object({ channel: z.optional(z.string()) })),
    ts: z.optional(z.string()),
    event_ts: z.optional(z.string()),
  }),
});

const Interaction = z.object({
  type: z.enum(["block_actions", "view_submission", "view_closed"]),
  user: z.object({ id: slackId, team_id: z.optional(slackId) }),
  team: z.nullable(z.object({ id: slackId, enterprise_id: z.optional(slackId) })),
  enterprise: z.nullish(z.object({ id: slackId })),
  is_enterprise_install: z.optional(z.boolean()),
  channel: z.nullish(z.object({ id: slackId })),
  actions: z.optional(z.array(z.object({ action_id: z.string().check(z.minLength(1)), block_id: z.optional(z.string()), type: z.string() }))),
  view: z.optional(z.object({ id: z.optional(z.string()), callback_id: z.string(), private_metadata: z.optional(z.string()), team_id: z.nullish(z.string()), state: z.optional(z.object({ values: z.record(z.string(), z.unknown()) })) })),
  container: z.optional(z.record(z.string(), z.unknown())),
  message: z.optional(z.looseObject({ ts: z.string() })),
});

/** Slack's notice that it drops a workspace's events for a minute (Events API rate limit). */
const AppRateLimited = z.object({
  type: z.literal("app_rate_limited"),
  team_id: slackId,
  minute_rate_limited: z.int().check(z.nonnegative()),
  api_app_id: z.optional(z.string()),
});

export function parseAppRateLimited(body: Record<string, unknown>): z.infer<typeof AppRateLimited> | undefined {
  const parsed = AppRateLimited.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** True when the body is an envelope Bolt can process safely. */
export function isHandledEnvelope(body: Record<string, unknown>): boolean {
  if (body.type === "event_callback") return EventCallback.safeParse(body).success;
  const interaction = Interaction.safeParse(body);
  if (!interaction.success) return false;
  if (interaction.data.type === "block_actions") return (interaction.data.actions ?? []).length > 0;
  return interaction.data.view !== undefined;
}
