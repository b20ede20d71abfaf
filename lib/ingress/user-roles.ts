import type { Logger } from "@aws-lambda-powertools/logger";
import type { WebClient } from "@slack/web-api";
import type { Actor, SlackRole, SlackRoleLookup } from "./actions";
import type { BotTokenResolver } from "../slack-api/bot-token";
import { classifySlackError, slackErrorCode } from "../slack-api/web-client";

/**
 * users.info with the workspace's bot token (scope `users:read`). `user_not_found`: Slack does not know the
 * member, so no admin. `missing_scope`: an installation made before the app asked for users:read — Slack's
 * roles cannot be read until the workspace reinstalls the app; only the configured admins count meanwhile (logged).
 * Any other failure is translated (lib/slack-api/web-client.ts) and thrown: a refusal must not come from an outage.
 */
export function usersInfoRoles(tokens: BotTokenResolver, clientFor: (token: string) => WebClient, log: Logger): SlackRoleLookup {
  return async (actor: Actor): Promise<SlackRole | undefined> => {
    const { botToken } = await tokens.resolve(actor.teamId, actor.enterpriseId);
    let user;
    try {
      user = (await clientFor(botToken).users.info({ user: actor.userId })).user;
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === "user_not_found") return undefined;
      if (code === "missing_scope") {
        log.warn("users.info needs the users:read scope: reinstall the app; Slack admins are not recognised meanwhile", { teamId: actor.teamId });
        return undefined;
      }
      throw classifySlackError(err, "users.info");
    }
    if (user?.team_id === undefined) return undefined;
    const enterpriseId = user.enterprise_user?.enterprise_id ?? user.enterprise_id;
    return {
      teamId: user.team_id,
      ...(enterpriseId === undefined ? {} : { enterpriseId }),
      isWorkspaceAdmin: user.deleted !== true && (user.is_admin === true || user.is_owner === true || user.is_primary_owner === true),
    };
  };
}
