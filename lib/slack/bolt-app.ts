import type { Logger } from "@aws-lambda-powertools/logger";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { App, AwsLambdaReceiver, type Authorize } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import * as z from "zod/mini";
import {
  ActionMessages,
  approve,
  cancelExecution,
  loadForFullReview,
  loadForInput,
  reject,
  rerunExecution,
  type ActionDeps,
  type ActionResult,
  type Actor,
} from "../actions";
import { AppError, TransientError } from "../errors/taxonomy";
import type { TaskPipelineInput } from "../workflow/contracts";
import { startTaskPipeline } from "../workflow/start-task-pipeline";
import type { BotTokenResolver } from "./bot-token";
import { ActionIds } from "./cards";
import { HomeActionIds } from "./home";
import { markTransientFailure } from "./request-scope";
import { slackLogger } from "./slack-logger";
import { disconnectFreeeFromHome, publishHome, saveAdminsFromHome, saveExternalTeamsFromHome, type HomeDeps } from "./home-service";
import { AccessMessages } from "../messages/ja";
import { mayUseApp } from "./org-boundary";
import type { DynamoInstallationStore } from "./installation-store";
import { taskInputFromMessage, type MessageLike } from "./message-filter";
import { buildRejectModal, reasonFromState, REASON_BLOCK_ID, REASON_MAX_LENGTH, REJECT_CALLBACK_ID, RejectMetadataSchema } from "./reject-modal";
import { APPROVE_PLAN_CALLBACK_ID, buildFullPlanModal, buildStepInputModal, PlanMetadataSchema } from "./plan-modal";

export interface BoltDeps {
  signingSecret: string;
  sfn: SFNClient;
  taskPipelineArn: string;
  actions: ActionDeps;
  home: HomeDeps;
  tokens: BotTokenResolver;
  installations: Pick<DynamoInstallationStore, "deleteInstallation">;
  slackApiUrl?: string;
  log: Logger;
}

const VersionValueSchema = z.object({ taskId: z.string().check(z.minLength(1), z.maxLength(200)), kind: z.enum(["prompt", "process"]), version: z.int().check(z.positive()) });
const StepInputValueSchema = z.object({ taskId: z.string().check(z.minLength(1), z.maxLength(200)), version: z.int().check(z.positive()), stepIds: z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(200)) });
const ExecutionValueSchema = z.object({ taskId: z.string().check(z.minLength(1), z.maxLength(200)), executionNo: z.int().check(z.positive()) });

/** The body fields of an interaction this app reads, checked before use (payloads are untrusted input). */
const InteractionSchema = z.object({
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

/**
 * Bolt in HTTP mode behind AwsLambdaReceiver. Every listener does only what fits the 3 s budget:
 * StartExecution (a message), a conditional write + SendTaskSuccess (a button), views.open / views.publish.
 */
export function createBoltApp(deps: BoltDeps): { app: App; receiver: AwsLambdaReceiver } {
  const logger = slackLogger(deps.log, "bolt");
  const receiver = new AwsLambdaReceiver({ signingSecret: deps.signingSecret, logger });
  const authorize: Authorize<boolean> = async (source) => {
    if (source.teamId === undefined) throw new Error("event has no team id");
    const credentials = await deps.tokens.resolve(source.teamId, source.enterpriseId);
    return { ...credentials, teamId: source.teamId, ...(source.enterpriseId === undefined ? {} : { enterpriseId: source.enterpriseId }) };
  };
  const app = new App({
    receiver,
    authorize,
    logger,
    clientOptions: {
      ...(deps.slackApiUrl === undefined ? {} : { slackApiUrl: deps.slackApiUrl }),
      retryConfig: { retries: 1, factor: 1, minTimeout: 100, maxTimeout: 300 },
      rejectRateLimitedCalls: true,
    },
  });

  // Transient failures (StartExecution throttled, DynamoDB unreachable) answer 500 so Slack redelivers;
  // everything else is logged and acknowledged (a redelivery could not succeed either).
  app.error(async (error) => {
    const original = unwrap(error);
    if (original instanceof TransientError) {
      markTransientFailure();
      throw original;
    }
    deps.log.warn("Slack request not processed", {
      layer: "ingress",
      error_type: original instanceof Error ? original.name : "unknown",
      error_message: original instanceof Error ? original.message : String(original),
    });
  });

  const onMessage = async ({ event, context, body, client }: { event: unknown; context: { teamId?: string; enterpriseId?: string; botUserId?: string; retryNum?: unknown }; body: unknown; client: WebClient }) => {
    const teamId = context.teamId ?? (body as { team_id?: string }).team_id;
    if (teamId === undefined) return;
    const input = taskInputFromMessage(event as MessageLike, { teamId, ...(context.enterpriseId === undefined ? {} : { enterpriseId: context.enterpriseId }) }, context.botUserId);
    if (input === undefined) return;
    const sender = event as { user_team?: unknown; source_team?: unknown };
    const facts = {
      installedTeamId: teamId,
      ...(context.enterpriseId === undefined ? {} : { installedEnterpriseId: context.enterpriseId }),
      userTeamIds: [str(sender.user_team), str(sender.source_team)],
      extShared: (body as { is_ext_shared_channel?: unknown }).is_ext_shared_channel === true,
    };
    if (!(await mayUseApp(deps.home.settings, facts))) {
      deps.log.info("request from another organisation refused", { teamId, layer: "ingress" });
      await tellUser(client, deps.log, { actor: { teamId, userId: input.requesterId }, value: undefined, inModal: false, channelId: input.thread.channelId }, { outcome: "refused", message: AccessMessages.externalUser });
      return;
    }
    // Bolt passes the X-Slack-Retry-Num header through as a string.
    const retryNum = context.retryNum === undefined ? 0 : Number(context.retryNum);
    await startTask(deps, input, retryNum);
  };
  app.event("message", onMessage);
  app.event("app_mention", onMessage);

  app.event("app_uninstalled", async ({ context }) => {
    await deps.installations.deleteInstallation({ teamId: context.teamId, enterpriseId: context.enterpriseId, isEnterpriseInstall: context.isEnterpriseInstall === true });
    deps.log.info("Slack app uninstalled; installation deleted", { teamId: context.teamId });
  });
  app.event("tokens_revoked", async ({ event, context }) => {
    if ((event.tokens.bot ?? []).length === 0) return;
    await deps.installations.deleteInstallation({ teamId: context.teamId, enterpriseId: context.enterpriseId, isEnterpriseInstall: context.isEnterpriseInstall === true });
    deps.log.info("bot token revoked; installation deleted", { teamId: context.teamId });
  });
  app.event("app_home_opened", async ({ event, context, client }) => {
    // Without a user there is no Home tab to publish (Slack refuses views.publish without user_id).
    if (event.tab !== "home" || context.teamId === undefined || typeof event.user !== "string" || event.user === "") return;
    await publishHome(client, deps.home, { teamId: context.teamId, userId: event.user, ...(context.enterpriseId === undefined ? {} : { enterpriseId: context.enterpriseId }) });
  });

  app.action(ActionIds.approve, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, VersionValueSchema);
    if (parsed === undefined || (await refusedOutsider(deps, client, parsed))) return;
    const result = await approve(deps.actions, parsed.actor, parsed.value);
    await tellUser(client, deps.log, parsed, result);
  });

  app.action(ActionIds.reject, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, VersionValueSchema);
    if (parsed === undefined || parsed.triggerId === undefined) return;
    // An outsider's reject click opens the modal too (the trigger_id dies in 3 s); its submit is refused.
    // First and only call: the trigger_id dies 3 s after the click. Who may reject, and whether the version is
    // still pending, is decided by the submit's conditional write and shown inside the modal.
    await client.views.open({ trigger_id: parsed.triggerId, view: buildRejectModal(parsed.value) });
  });

  app.view(REJECT_CALLBACK_ID, async ({ ack, body, view }) => {
    const meta = safeJson(view.private_metadata, RejectMetadataSchema);
    const userId = body.user?.id;
    const teamId = body.team?.id ?? body.user?.team_id;
    if (meta === undefined || userId === undefined || teamId === undefined) return ack();
    const facts = { installedTeamId: teamId, ...(body.enterprise?.id ? { installedEnterpriseId: body.enterprise.id } : {}), userTeamIds: [body.user?.team_id] };
    if (!(await mayUseApp(deps.home.settings, facts))) return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: AccessMessages.externalUser } });
    const reason = reasonFromState(view.state?.values);
    if (reason === undefined || reason.trim() === "") {
      return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: ActionMessages.reasonRequired } });
    }
    // reject() refuses an over-long reason too; the view answers it in the modal without touching the table.
    if ([...reason].length > REASON_MAX_LENGTH) {
      return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: ActionMessages.reasonTooLong } });
    }
    const result = await reject(deps.actions, { teamId, userId, ...(body.enterprise?.id ? { enterpriseId: body.enterprise.id } : {}) }, meta, reason);
    // A refusal (not permitted, already decided) is shown inside the modal: there is no channel to post to.
    if (result.outcome !== "applied" && result.message !== undefined) {
      return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: result.message } });
    }
    return ack();
  });

  // ---- Process review (issue 13): the raw input of a step, and the whole plan in the modal that approves it.
  app.action(ActionIds.showInput, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, StepInputValueSchema);
    if (parsed === undefined || parsed.triggerId === undefined) return;
    const loaded = await loadForInput(deps.actions, parsed.actor, parsed.value);
    if (!loaded.ok) return tellUser(client, deps.log, parsed, loaded.result);
    const view = buildStepInputModal(loaded.version, parsed.value.stepIds);
    if (parsed.inModal) await client.views.push({ trigger_id: parsed.triggerId, view });
    else await client.views.open({ trigger_id: parsed.triggerId, view });
  });

  app.action(ActionIds.reviewPlan, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, VersionValueSchema);
    if (parsed === undefined || parsed.value.kind !== "process" || parsed.triggerId === undefined) return;
    const loaded = await loadForFullReview(deps.actions, parsed.actor, parsed.value);
    if (!loaded.ok) return tellUser(client, deps.log, parsed, loaded.result);
    await client.views.open({ trigger_id: parsed.triggerId, view: buildFullPlanModal(loaded.task, loaded.version) });
  });

  app.view(APPROVE_PLAN_CALLBACK_ID, async ({ ack, body, view }) => {
    const meta = safeJson(view.private_metadata, PlanMetadataSchema);
    const userId = body.user?.id;
    const teamId = body.team?.id ?? body.user?.team_id;
    if (meta === undefined || userId === undefined || teamId === undefined) return ack();
    // The modal has no input to hang an error on: a refusal replaces it by the reason, with nothing to submit.
    const refusal = (message: string) => ({
      response_action: "update" as const,
      view: { type: "modal" as const, title: { type: "plain_text" as const, text: "承認できません" }, close: { type: "plain_text" as const, text: "閉じる" }, blocks: [{ type: "section", text: { type: "mrkdwn", text: message } }] },
    });
    // A member of another organisation (Slack Connect) approves nothing, from the card or from here.
    const facts = { installedTeamId: teamId, ...(body.enterprise?.id ? { installedEnterpriseId: body.enterprise.id } : {}), userTeamIds: [body.user?.team_id] };
    if (!(await mayUseApp(deps.home.settings, facts))) return ack(refusal(AccessMessages.externalUser));
    const result = await approve(deps.actions, { teamId, userId, ...(body.enterprise?.id ? { enterpriseId: body.enterprise.id } : {}) }, meta, "full_plan");
    if (result.outcome === "applied" || result.message === undefined) return ack();
    return ack(refusal(result.message));
  });

  app.action(ActionIds.cancel, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, ExecutionValueSchema);
    if (parsed === undefined || (await refusedOutsider(deps, client, parsed))) return;
    await tellUser(client, deps.log, parsed, await cancelExecution(deps.actions, parsed.actor, parsed.value));
  });

  app.action(ActionIds.rerun, async ({ ack, body, action, client }) => {
    await ack();
    const parsed = parseButton(body, action, ExecutionValueSchema);
    if (parsed === undefined || (await refusedOutsider(deps, client, parsed))) return;
    await tellUser(client, deps.log, parsed, await rerunExecution(deps.actions, parsed.actor, parsed.value));
  });

  // App Home changes are admins' (home-service.ts checks, then re-publishes the Home with the outcome).
  app.action(HomeActionIds.admins, async ({ ack, body, action, client }) => {
    await ack();
    const actor = homeActor(body);
    const selected = (action as { selected_users?: unknown }).selected_users;
    if (actor === undefined || !Array.isArray(selected)) return;
    await saveAdminsFromHome(client, deps.home, actor, selected.filter((u): u is string => typeof u === "string"));
  });
  app.action(HomeActionIds.externalTeams, async ({ ack, body, action, client }) => {
    await ack();
    const actor = homeActor(body);
    const value = (action as { value?: unknown }).value;
    if (actor === undefined) return;
    await saveExternalTeamsFromHome(client, deps.home, actor, typeof value === "string" ? value : "");
  });
  app.action(HomeActionIds.freeeDisconnect, async ({ ack, body, client }) => {
    await ack();
    const actor = homeActor(body);
    if (actor !== undefined) await disconnectFreeeFromHome(client, deps.home, actor);
  });
  // The connect button is a link; Slack still sends an action, which only needs an ack.
  app.action(HomeActionIds.freeeConnect, async ({ ack }) => ack());

  return { app, receiver };
}

async function startTask(deps: BoltDeps, input: TaskPipelineInput, retryNum: number): Promise<void> {
  const { taskId, started } = await startTaskPipeline(deps, input);
  if (started) deps.log.info("task pipeline started", { taskId, teamId: input.thread.teamId, retryNum });
  else deps.log.info("duplicate delivery ignored", { taskId, retryNum });
}

/** Who acts in App Home: the verified payload's team and user (never a value the view carries). */
function homeActor(body: unknown): Actor | undefined {
  const interaction = InteractionSchema.safeParse(body);
  if (!interaction.success) return undefined;
  const teamId = interaction.data.team?.id ?? interaction.data.user.team_id;
  if (teamId === undefined) return undefined;
  const enterpriseId = interaction.data.team?.enterprise_id;
  return { teamId, userId: interaction.data.user.id, ...(enterpriseId === undefined ? {} : { enterpriseId }) };
}

/** A click from a member of another organisation (Slack Connect) not allowed here: told so, nothing done. */
async function refusedOutsider(deps: BoltDeps, client: WebClient, parsed: ParsedButton<unknown>): Promise<boolean> {
  const facts = {
    installedTeamId: parsed.actor.teamId,
    ...(parsed.actor.enterpriseId === undefined ? {} : { installedEnterpriseId: parsed.actor.enterpriseId }),
    userTeamIds: [parsed.userTeamId],
  };
  if (await mayUseApp(deps.home.settings, facts)) return false;
  deps.log.info("click from another organisation refused", { teamId: parsed.actor.teamId, layer: "ingress" });
  await tellUser(client, deps.log, parsed, { outcome: "refused", message: AccessMessages.externalUser });
  return true;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

interface ParsedButton<T> {
  actor: Actor;
  /** The clicking user's own workspace (`user.team_id`), for the Slack Connect check. */
  userTeamId?: string;
  value: T;
  inModal: boolean;
  channelId?: string;
  threadTs?: string;
  triggerId?: string;
}

function parseButton<T>(body: unknown, action: unknown, schema: z.ZodMiniType<T>): ParsedButton<T> | undefined {
  const interaction = InteractionSchema.safeParse(body);
  if (!interaction.success) return undefined;
  const value = safeJson((action as { value?: unknown }).value, schema);
  const teamId = interaction.data.team?.id ?? interaction.data.user.team_id;
  if (value === undefined || teamId === undefined) return undefined;
  const enterpriseId = interaction.data.team?.enterprise_id;
  return {
    actor: { teamId, userId: interaction.data.user.id, ...(enterpriseId === undefined ? {} : { enterpriseId }) },
    ...(interaction.data.user.team_id === undefined ? {} : { userTeamId: interaction.data.user.team_id }),
    value,
    inModal: interaction.data.view !== undefined,
    ...(interaction.data.channel === undefined ? {} : { channelId: interaction.data.channel.id }),
    ...(interaction.data.trigger_id === undefined ? {} : { triggerId: interaction.data.trigger_id }),
    ...threadOf(interaction.data),
  };
}

function threadOf(interaction: { container?: { thread_ts?: string }; message?: { thread_ts?: string } }): { threadTs?: string } {
  const threadTs = interaction.message?.thread_ts ?? interaction.container?.thread_ts;
  return threadTs === undefined ? {} : { threadTs };
}

function safeJson<T>(raw: unknown, schema: z.ZodMiniType<T>): T | undefined {
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
async function tellUser(client: WebClient, log: Logger, parsed: ParsedButton<unknown>, result: ActionResult): Promise<void> {
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

/** Bolt wraps listener errors (UnknownError.original, MultipleListenerError.originals). */
function unwrap(error: unknown): unknown {
  let current = error as { original?: unknown; originals?: unknown[] } | undefined;
  for (let i = 0; i < 3 && current !== undefined; i++) {
    if (current instanceof AppError) return current;
    if (Array.isArray(current.originals)) {
      const transient = current.originals.map(unwrap).find((e) => e instanceof TransientError);
      return transient ?? current.originals[0];
    }
    if (current.original === undefined) break;
    current = current.original as typeof current;
  }
  return current;
}
