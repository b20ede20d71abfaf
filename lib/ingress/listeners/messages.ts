import type { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { AccessMessages } from "../../core/messages/ja";
import { startTaskPipeline } from "../../steps/machines/start-task-pipeline";
import { taskInputFromMessage, type MessageLike } from "../message-filter";
import { mayUseApp } from "../org-boundary";
import type { BoltDeps } from "./deps";
import { tellUser } from "./interaction";

interface MessageArgs {
  event: unknown;
  context: { teamId?: string; enterpriseId?: string; botUserId?: string; retryNum?: unknown };
  body: unknown;
  client: WebClient;
}

/** A request written in Slack (a message in a channel the app is in, or a mention) starts a TaskPipeline. */
export function registerMessageListeners(app: App, deps: BoltDeps): void {
  const onMessage = async ({ event, context, body, client }: MessageArgs) => {
    const teamId = context.teamId ?? (body as { team_id?: string }).team_id;
    if (teamId === undefined) return;
    const team = { teamId, ...(context.enterpriseId === undefined ? {} : { enterpriseId: context.enterpriseId }) };
    const input = taskInputFromMessage(event as MessageLike, team, context.botUserId);
    if (input === undefined) return;
    // A member of another organisation (Slack Connect) may ask here only if this workspace allows theirs.
    const sender = event as { user_team?: unknown; source_team?: unknown };
    const facts = {
      installedTeamId: teamId,
      ...(context.enterpriseId === undefined ? {} : { installedEnterpriseId: context.enterpriseId }),
      userTeamIds: [str(sender.user_team), str(sender.source_team)],
      extShared: (body as { is_ext_shared_channel?: unknown }).is_ext_shared_channel === true,
    };
    if (!(await mayUseApp(deps.home.settings, facts))) {
      deps.log.info("request from another organisation refused", { teamId, layer: "ingress" });
      const asked = { actor: { teamId, userId: input.requesterId }, value: undefined, inModal: false, channelId: input.thread.channelId };
      await tellUser(client, deps.log, asked, { outcome: "refused", message: AccessMessages.externalUser });
      return;
    }
    // Bolt passes the X-Slack-Retry-Num header through as a string.
    const retryNum = context.retryNum === undefined ? 0 : Number(context.retryNum);
    const { taskId, started } = await startTaskPipeline(deps, input);
    if (started) deps.log.info("task pipeline started", { taskId, teamId: input.thread.teamId, retryNum });
    else deps.log.info("duplicate delivery ignored", { taskId, retryNum });
  };
  app.event("message", onMessage);
  app.event("app_mention", onMessage);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
