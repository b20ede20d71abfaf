import { randomBytes } from "node:crypto";

/**
 * Slack payloads as Slack sends them (Events API envelope, block_actions, view_submission), for the sandbox
 * page and the end-to-end suite. Only what Slack would put there: no per-app shortcuts.
 */
export interface SlackWho {
  teamId: string;
  userId: string;
  channelId: string;
  /** The channel's kind as the Events API names it: `channel` (public, the default) or `group` (private). */
  channelType?: "channel" | "group";
  appId: string;
  botUserId: string;
}

/** The Events API envelope around any event: the app, the workspace, and the bot the event is delivered to. */
function eventCallback(who: SlackWho, eventId: string) {
  return {
    token: "sandbox-verification-token",
    team_id: who.teamId,
    api_app_id: who.appId,
    type: "event_callback" as const,
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: who.teamId, user_id: who.botUserId, is_bot: true, is_enterprise_install: false }],
  };
}

export function messageEnvelope(who: SlackWho, message: { ts: string; text: string; threadTs?: string; files?: Record<string, unknown>[] }, eventId = `Ev${randomBytes(6).toString("hex").toUpperCase()}`) {
  return {
    ...eventCallback(who, eventId),
    event: {
      type: "message",
      channel: who.channelId,
      channel_type: who.channelType ?? "channel",
      user: who.userId,
      text: message.text,
      ts: message.ts,
      event_ts: message.ts,
      ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
      // A message that shares files arrives as subtype file_share with the files' objects.
      ...(message.files === undefined ? {} : { subtype: "file_share", files: message.files, upload: true }),
    },
  };
}

/** A button clicked inside a modal: Slack sends the view and a view container, no channel or message. */
export function viewBlockActionsPayload(who: SlackWho, click: { triggerId: string; actionId: string; blockId?: string; value?: string; text?: string }, view: { id: string; callbackId: string; privateMetadata: string }) {
  const { channel: _channel, message: _message, container: _container, response_url: _url, ...rest } = blockActionsPayload(who, { ...click, messageTs: "0" });
  return {
    ...rest,
    container: { type: "view", view_id: view.id },
    view: { id: view.id, team_id: who.teamId, type: "modal", callback_id: view.callbackId, private_metadata: view.privateMetadata, state: { values: {} }, hash: "sandbox" },
  };
}

export function blockActionsPayload(
  who: SlackWho,
  click: { triggerId: string; actionId: string; blockId?: string; value?: string; messageTs: string; threadTs?: string; text?: string },
) {
  return {
    type: "block_actions",
    user: { id: who.userId, username: who.userId.toLowerCase(), team_id: who.teamId },
    api_app_id: who.appId,
    token: "sandbox-verification-token",
    team: { id: who.teamId, domain: "sandbox" },
    channel: { id: who.channelId, name: "sandbox" },
    container: { type: "message", message_ts: click.messageTs, channel_id: who.channelId, is_ephemeral: false, ...(click.threadTs === undefined ? {} : { thread_ts: click.threadTs }) },
    trigger_id: click.triggerId,
    message: { type: "message", ts: click.messageTs, text: "", ...(click.threadTs === undefined ? {} : { thread_ts: click.threadTs }) },
    response_url: "https://hooks.slack.invalid/actions/sandbox",
    actions: [
      {
        type: "button",
        action_id: click.actionId,
        block_id: click.blockId ?? "actions",
        ...(click.value === undefined ? {} : { value: click.value }),
        text: { type: "plain_text", text: click.text ?? click.actionId },
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

export function viewSubmissionPayload(who: SlackWho, view: { triggerId: string; id: string; callbackId: string; privateMetadata: string; values: Record<string, unknown> }) {
  return {
    type: "view_submission",
    team: { id: who.teamId, domain: "sandbox" },
    user: { id: who.userId, username: who.userId.toLowerCase(), team_id: who.teamId },
    api_app_id: who.appId,
    token: "sandbox-verification-token",
    trigger_id: view.triggerId,
    view: {
      id: view.id,
      team_id: who.teamId,
      type: "modal",
      callback_id: view.callbackId,
      private_metadata: view.privateMetadata,
      blocks: [],
      state: { values: view.values },
      hash: randomBytes(4).toString("hex"),
      app_id: who.appId,
      bot_id: "BSANDBOX",
    },
  };
}

/** The user opened the app's Home tab (Events API `app_home_opened`, tab "home"). */
export function appHomeOpenedEnvelope(who: SlackWho, eventId = `Ev${randomBytes(6).toString("hex").toUpperCase()}`) {
  const ts = `${(Date.now() / 1000).toFixed(6)}`;
  return {
    ...eventCallback(who, eventId),
    event: { type: "app_home_opened", user: who.userId, channel: `D${who.userId.slice(1)}`, tab: "home", event_ts: ts },
  };
}

/**
 * An element used on the Home tab: Slack sends the home view as the container. A button carries `value`, a
 * plain_text_input with dispatch_action its typed `value`, a multi_users_select its `selected_users`.
 */
export function homeBlockActionsPayload(
  who: SlackWho,
  click: { triggerId: string; actionId: string; blockId?: string; type: "button" | "plain_text_input" | "multi_users_select"; value?: string; selectedUsers?: string[]; text?: string },
  home: { id: string; hash: string },
) {
  const action = {
    type: click.type,
    action_id: click.actionId,
    block_id: click.blockId ?? "home",
    ...(click.type === "multi_users_select" ? { selected_users: click.selectedUsers ?? [] } : click.value === undefined ? {} : { value: click.value }),
    ...(click.type === "button" ? { text: { type: "plain_text", text: click.text ?? click.actionId } } : {}),
    action_ts: `${Date.now() / 1000}`,
  };
  return {
    type: "block_actions",
    user: { id: who.userId, username: who.userId.toLowerCase(), team_id: who.teamId },
    api_app_id: who.appId,
    token: "sandbox-verification-token",
    team: { id: who.teamId, domain: "sandbox" },
    container: { type: "view", view_id: home.id },
    trigger_id: click.triggerId,
    view: { id: home.id, team_id: who.teamId, type: "home", callback_id: "", private_metadata: "", state: { values: {} }, hash: home.hash, app_id: who.appId },
    actions: [action],
  };
}
