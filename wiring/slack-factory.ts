import { ChannelPrivacy } from "../lib/ingress/channel-privacy";
import { webAdminUrlFromEnv } from "./web-admin-url";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { loadLimits } from "../lib/core/config/limits";
import type { Env } from "../lib/core/config/env";
import { createLogger } from "../lib/core/observability/logger";
import type { TaskStore } from "../lib/store/task-store";
import { createBotTokenResolver, type BotTokenResolver } from "../lib/slack-api/bot-token";
import type { CardRefresher } from "../lib/core/domain/card-refresher";
import { DynamoInstallationStore, INSTALLATION_CACHE_MS, installationCipher } from "../lib/store/installations";
import { SlackCardRefresher } from "../lib/ingress/slack-card-refresher";
import { createWebClient } from "../lib/slack-api/web-client";

/**
 * The production CardRefresher for a Lambda: bot tokens from SLACK_BOT_TOKEN (single workspace) or the
 * sealed installation items of the table (TOKEN_KMS_KEY_ID), Web API at SLACK_API_URL when set.
 */
export function createCardRefresher(
  store: TaskStore,
  doc: DynamoDBDocumentClient,
  env: Env = process.env,
  tokens?: BotTokenResolver,
): CardRefresher {
  // Step Lambdas open installations (KMS decrypt only); sealing plain items left by an earlier version is the ingress's job.
  const resolver = tokens ?? createBotTokenResolver(new DynamoInstallationStore(doc, store.tableName, { cipher: installationCipher(env), cacheTtlMs: INSTALLATION_CACHE_MS }), env);
  const log = createLogger("slack-cards");
  return new SlackCardRefresher({
    store,
    tokens: resolver,
    clientFor: (token) => createWebClient(token, env),
    limits: loadLimits(env),
    log,
    privacy: new ChannelPrivacy(log),
    ...(webAdminUrlFromEnv(env) === undefined ? {} : { links: { adminUrl: webAdminUrlFromEnv(env)! } }),
  });
}
