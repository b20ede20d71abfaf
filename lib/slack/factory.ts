import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { loadLimits } from "../config/limits";
import type { Env } from "../config/env";
import { createLogger } from "../observability/logger";
import type { TaskStore } from "../store/task-store";
import { createBotTokenResolver, type BotTokenResolver } from "./bot-token";
import type { CardRefresher } from "../domain/card-refresher";
import { DynamoInstallationStore } from "./installation-store";
import { SlackCardRefresher } from "./slack-card-refresher";
import { createWebClient } from "./web-client";

/**
 * The production CardRefresher for a Lambda: bot tokens from SLACK_BOT_TOKEN (single workspace) or the
 * installation items of the table, Web API at SLACK_API_URL when set.
 */
export function createCardRefresher(
  store: TaskStore,
  doc: DynamoDBDocumentClient,
  env: Env = process.env,
  tokens?: BotTokenResolver,
): CardRefresher {
  const resolver = tokens ?? createBotTokenResolver(new DynamoInstallationStore(doc, store.tableName), env);
  return new SlackCardRefresher({
    store,
    tokens: resolver,
    clientFor: (token) => createWebClient(token, env),
    limits: loadLimits(env),
    log: createLogger("slack-cards"),
  });
}
