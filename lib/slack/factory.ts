import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { loadLimits } from "../config/limits";
import type { Env } from "../config/env";
import { createLogger } from "../observability/logger";
import type { TaskStore } from "../store/task-store";
import { createBotTokenResolver, type BotTokenResolver } from "./bot-token";
import type { CardRefresher } from "../domain/card-refresher";
import { DynamoInstallationStore, INSTALLATION_CACHE_MS, installationCipher } from "./installation-store";
import { SlackCardRefresher } from "./slack-card-refresher";
import { createWebClient } from "./web-client";

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
  return new SlackCardRefresher({
    store,
    tokens: resolver,
    clientFor: (token) => createWebClient(token, env),
    limits: loadLimits(env),
    log: createLogger("slack-cards"),
  });
}
