import type { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { AdminDirectory, TeamSettingsStore } from "../lib/ingress/actions";
import { intEnv, type Env } from "../lib/core/config/env";
import { loadAdminUserIds } from "../lib/core/config/limits";
import type { BotTokenResolver } from "../lib/slack-api/bot-token";
import { usersInfoRoles } from "../lib/ingress/user-roles";
import { createWebClient } from "../lib/slack-api/web-client";

/**
 * The admins of a workspace as both Lambdas see them (Slack events and the freee connect pages): ADMIN_USER_IDS,
 * the team settings list, and Slack's is_admin / is_owner by users.info with the workspace's bot token, kept
 * ADMIN_ROLE_CACHE_SECONDS (default 60) per warm instance.
 */
export function createAdminDirectory(env: Env, deps: { doc: DynamoDBDocumentClient; tableName: string; tokens: BotTokenResolver; log: Logger }) {
  const settings = new TeamSettingsStore(deps.doc, deps.tableName);
  const admins = new AdminDirectory({
    adminUserIds: loadAdminUserIds(env),
    settings,
    lookup: usersInfoRoles(deps.tokens, (token) => createWebClient(token, env), deps.log),
    cacheTtlMs: intEnv("ADMIN_ROLE_CACHE_SECONDS", 60, env) * 1000,
  });
  return { admins, settings };
}
