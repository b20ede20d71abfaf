import type { Logger } from "@aws-lambda-powertools/logger";
import type { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import * as z from "zod/mini";
import type { ActionResult, Actor, AdminCheck, TeamSettingsStore } from "../actions";
import { AccessMessages } from "../../core/messages/ja";
import { mayUseApp } from "../org-boundary";

/** The body fields of an interaction this app reads, checked before use (payloads are untrusted input). */
export const InteractionSchema = z.object({
  user: z.object({ id: z.string().check(z.minLength(1)), team_id: z.optional(z.string()) }),
  team: z.nullish(z.object({ id: z.string().check(z.minLength(1)), enterprise_id: z.optional(z.string()) })),
  channel: z.optional(z.object({ id: z.string().check(z.minLength(1)) })),
  trigger_id: z.optional(z.string()),
  /** Present when the click came from inside a modal (the full plan): the raw input is pushed over it. */
  view: z.optional(z.looseObject({ id: z.string() })),
  /** The card's thread: refusals are shown there, next to the button that was clicked. */
  container: z.optional(z.looseObject({ thread_ts: z.optional(z.string()) })),
  message: z.optional(z.looseObject({ thread_ts: z.optional(z.string()) })),
});

export interface ParsedButton<T> {
  actor: Actor;
  /** The clicking user's own workspace (`user.team_id`), for the Slack Connect check. */
  userTeamId?: string;
  value: T;
  inModal: boolean;
  channelId?: string;
  threadTs?: string;
  triggerId?: string;
}

export interface ButtonDeps {
  log: Logger;
  /** With it, a member of another organisation (Slack Connect) not allowed here is told so and nothing is done. */
  outsiders?: { settings: Pick<TeamSettingsStore, "get">; admins: Pick<AdminCheck, "teamOf"> };
}

/**
 * A button listener as every card button runs it: ack at once (Slack's 3 s), parse the clicker and the button's
 * value (a tampered or foreign payload does nothing), refuse an outsider where asked, act, then tell the clicking
 * user what the action answered (a refusal, "already done"), if anything. `act` returns undefined when it has
 * answered itself (a modal).
 */
export function onButton<T>(
  app: App,
  deps: ButtonDeps,
  actionId: string,
  schema: z.ZodMiniType<T>,
  act: (parsed: ParsedButton<T>, client: WebClient) => Promise<ActionResult | undefined>,
): void {
  app.action(actionId, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, schema);
    if (parsed === undefined) return;
    if (deps.outsiders !== undefined && (await refusedOutsider(deps.outsiders, deps.log, client, parsed))) return;
    const result = await act(parsed, client);
    if (result !== undefined) await tellUser(client, deps.log, parsed, result);
  });
}

/** A click from a member of another organisation (Slack Connect) not allowed here: told so, nothing done. */
async function refusedOutsider(outsiders: NonNullable<ButtonDeps["outsiders"]>, log: Logger, client: WebClient, parsed: ParsedButton<unknown>): Promise<boolean> {
  const facts = {
    installedTeamId: parsed.actor.teamId,
    ...(parsed.actor.enterpriseId === undefined ? {} : { installedEnterpriseId: parsed.actor.enterpriseId }),
    userTeamIds: [parsed.userTeamId],
  };
  if (await mayUseApp(outsiders.settings, facts, () => outsiders.admins.teamOf(parsed.actor))) return false;
  log.info("click from another organisation refused", { teamId: parsed.actor.teamId, layer: "ingress" });
  await tellUser(client, log, parsed, { outcome: "refused", message: AccessMessages.externalUser });
  return true;
}

/** Who acts in App Home: the verified payload's team and user (never a value the view carries). */
export function homeActor(body: unknown): Actor | undefined {
  const interaction = InteractionSchema.safeParse(body);
  if (!interaction.success) return undefined;
  const teamId = interaction.data.team?.id ?? interaction.data.user.team_id;
  if (teamId === undefined) return undefined;
  const enterpriseId = interaction.data.team?.enterprise_id;
  return { teamId, userId: interaction.data.user.id, ...(enterpriseId === undefined ? {} : { enterpriseId }) };
}

export function parseButton<T>(body: unknown, action: unknown, schema: z.ZodMiniType<T>): ParsedButton<T> | undefined {
  const interaction = InteractionSchema.safeParse(body);
  if (!interaction.success) return undefined;
  const value = safeJson((action as { value?: unknown }).value, schema);
  const teamId = interaction.data.team?.id ?? interaction.data.user.team_id;
  if (value === undefined || teamId === undefined) return undefined;
  const enterpriseId = interaction.data.team?.enterprise_id;
  const threadTs = interaction.data.message?.thread_ts ?? interaction.data.container?.thread_ts;
  return {
    actor: { teamId, userId: interaction.data.user.id, ...(enterpriseId === undefined ? {} : { enterpriseId }) },
    ...(interaction.data.user.team_id === undefined ? {} : { userTeamId: interaction.data.user.team_id }),
    value,
    inModal: interaction.data.view !== undefined,
    ...(interaction.data.channel === undefined ? {} : { channelId: interaction.data.channel.id }),
    ...(interaction.data.trigger_id === undefined ? {} : { triggerId: interaction.data.trigger_id }),
    ...(threadTs === undefined ? {} : { threadTs }),
  };
}

/** A JSON value (button value, private_metadata) checked against its schema; undefined when tampered with. */
export function safeJson<T>(raw: unknown, schema: z.ZodMiniType<T>): T | undefined {
  if (typeof raw !== "string" || raw.length > 3000) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined; // a tampered value: nothing to act on
    throw err;
  }
  const parsed = schema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

/** Refusals and "already done" notes go to the clicking user only (ephemeral), best effort. */
export async function tellUser(client: WebClient, log: Logger, parsed: ParsedButton<unknown>, result: ActionResult): Promise<void> {
  if (result.message === undefined || parsed.channelId === undefined) return;
  try {
    await client.chat.postEphemeral({
      channel: parsed.channelId,
      user: parsed.actor.userId,
      text: result.message,
      ...(parsed.threadTs === undefined ? {} : { thread_ts: parsed.threadTs }),
    });
  } catch (err) {
    log.warn("ephemeral reply failed", { layer: "slack", error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
  }
}

/** The submitting user of a modal, or undefined when the payload lacks one. */
export function submitter(body: { user?: { id?: string; team_id?: string }; team?: { id?: string } | null; enterprise?: { id?: string } | null }): Actor | undefined {
  const userId = body.user?.id;
  const teamId = body.team?.id ?? body.user?.team_id;
  if (userId === undefined || teamId === undefined) return undefined;
  return { teamId, userId, ...(body.enterprise?.id ? { enterpriseId: body.enterprise.id } : {}) };
}
