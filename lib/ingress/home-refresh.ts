import type { Env } from "../core/config/env";
import type { BotTokenResolver } from "../slack-api/bot-token";
import { publishHome, type HomeDeps } from "./home-service";
import { createWebClient } from "../slack-api/web-client";

/** Republish a member's App Home from outside a Slack request (the web Lambda after a freee connect). */
export type HomeRefresher = (teamId: string, userId: string) => Promise<void>;

/** With the workspace's bot token (its installation, or SLACK_BOT_TOKEN), App Home as the ingress publishes it. */
export function createHomeRefresher(deps: { tokens: BotTokenResolver; home: HomeDeps; env: Env }): HomeRefresher {
  return async (teamId, userId) => {
    const { botToken } = await deps.tokens.resolve(teamId);
    await publishHome(createWebClient(botToken, deps.env), deps.home, { teamId, userId });
  };
}
