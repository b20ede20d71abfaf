import { z } from "zod";

/**
 * The outer shape of every Slack delivery this app handles, checked before Bolt sees it: Bolt reads these
 * fields without checking them, and a wrong type there would crash the request (a 500 Slack keeps retrying).
 */
const slackId = z.string().min(1).max(64);

const EventCallback = z.object({
  type: z.literal("event_callback"),
  team_id: slackId,
  enterprise_id: slackId.nullish(),
  api_app_id: z.string().optional(),
  event_id: z.string().optional(),
  authorizations: z.array(z.object({ team_id: slackId.nullish(), enterprise_id: slackId.nullish(), user_id: z.string().optional(), is_enterprise_install: z.boolean().optional() })).optional(),
  is_ext_shared_channel: z.boolean().optional(),
  event: z.object({
    type: z.string().min(1).max(64),
    channel: z.union([z.string(), z.object({ id: z.string() })]).optional(),
    user: z.union([z.string(), z.object({ id: z.string() })]).optional(),
    item: z.object({ channel: z.string().optional() }).nullish(),
    ts: z.string().optional(),
    event_ts: z.string().optional(),
  }),
});

const Interaction = z.object({
  type: z.enum(["block_actions", "view_submission", "view_closed"]),
  user: z.object({ id: slackId, team_id: slackId.optional() }),
  team: z.object({ id: slackId, enterprise_id: slackId.optional() }).nullable(),
  enterprise: z.object({ id: slackId }).nullish(),
  is_enterprise_install: z.boolean().optional(),
  channel: z.object({ id: slackId }).nullish(),
  actions: z.array(z.object({ action_id: z.string().min(1), block_id: z.string().optional(), type: z.string() })).optional(),
  view: z.object({ id: z.string().optional(), callback_id: z.string(), private_metadata: z.string().optional(), team_id: z.string().nullish(), state: z.object({ values: z.record(z.string(), z.unknown()) }).optional() }).optional(),
  container: z.record(z.string(), z.unknown()).optional(),
  message: z.object({ ts: z.string() }).passthrough().optional(),
});

/** True when the body is an envelope Bolt can process safely. */
export function isHandledEnvelope(body: Record<string, unknown>): boolean {
  if (body.type === "event_callback") return EventCallback.safeParse(body).success;
  const interaction = Interaction.safeParse(body);
  if (!interaction.success) return false;
  if (interaction.data.type === "block_actions") return (interaction.data.actions ?? []).length > 0;
  return interaction.data.view !== undefined;
}
