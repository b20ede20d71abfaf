import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { webAdminUrlFromEnv } from "./web-admin-url";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { Logger } from "@aws-lambda-powertools/logger";
import { AuditLog } from "../lib/store/audit-log";
import { createSfnClient } from "../lib/steps/machines/sfn-client";
import { optionalEnv, requireEnv, type Env } from "../lib/core/config/env";
import { loadLimits } from "../lib/core/config/limits";
import { resolveSecret } from "../lib/core/config/secrets";
import { createLogger } from "../lib/core/observability/logger";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { TaskStore } from "../lib/store/task-store";
import { createAdminDirectory } from "./admins-env";
import { UsergroupDirectory } from "../lib/ingress/usergroups";
import { createWebClient } from "../lib/slack-api/web-client";
import { createBotTokenResolver } from "../lib/slack-api/bot-token";
import { createCardRefresher } from "./slack-factory";
import type { FreeePort } from "../lib/ingress/freee-port";
import { DynamoInstallationStore, INSTALLATION_CACHE_MS, installationCipher } from "../lib/store/installations";
import { createSlackEvents, type SlackEventsHandler } from "../lib/ingress/slack-events";


export interface EventsOverrides {
  doc?: DynamoDBDocumentClient;
  sfn?: SFNClient;
  /** App Home's freee status and connect link (the connect pages themselves are the web Lambda's). */
  freee?: FreeePort;
  log?: Logger;
}

export interface SlackEventsFromEnv {
  events: SlackEventsHandler;
  /** Shared with the install routes when both run in one process (an install then clears its cache entry). */
  installations: DynamoInstallationStore;
  log: Logger;
}

/**
 * The Slack Lambda's half of the ingress, from settings (once per cold start; a missing setting is a
 * FatalConfigError now): Bolt with its listeners, the store, Step Functions, bot tokens from installations (or
 * SLACK_BOT_TOKEN in single-workspace mode).
 */
export async function createSlackEventsFromEnv(env: Env = process.env, overrides: EventsOverrides = {}): Promise<SlackEventsFromEnv> {
  const log = overrides.log ?? createLogger("ingress");
  const doc = overrides.doc ?? createDocumentClient(env);
  const tableName = requireEnv("TABLE_NAME", env);
  const store = new TaskStore(doc, tableName);
  const audit = new AuditLog(store, log);
  // Every Slack request resolves its bot token: a warm instance keeps it a minute (see the bench, docs/bench.md).
  // It opens sealed installations and seals any plain item an earlier version left (KMS encrypt + decrypt).
  const installations = new DynamoInstallationStore(doc, tableName, { cipher: installationCipher(env), cacheTtlMs: INSTALLATION_CACHE_MS, sealPlainItems: true });
  const tokens = createBotTokenResolver(installations, env);
  const { admins, settings } = createAdminDirectory(env, { doc, tableName, tokens, log });
  const sfn = overrides.sfn ?? createSfnClient(env);
  const slackApiUrl = optionalEnv("SLACK_API_URL", env);
  const freee = overrides.freee ?? {};
  const events = createSlackEvents({
    signingSecret: await resolveSecret("SLACK_SIGNING_SECRET", env),
    sfn,
    taskPipelineArn: requireEnv("TASK_PIPELINE_ARN", env),
    actions: {
      store,
      doc,
      sfn,
      audit,
      cards: createCardRefresher(store, doc, env, tokens),
      admins,
      groupMembers: new UsergroupDirectory(tokens, (token) => createWebClient(token, env)),
      limits: loadLimits(env),
      executionRunArn: requireEnv("EXECUTION_RUN_ARN", env),
      log,
    },
    home: { store, settings, admins, freee, audit, log, ...adminLink(env) },
    tokens,
    installations,
    ...(slackApiUrl === undefined ? {} : { slackApiUrl }),
    log,
  });
  return { events, installations, log };
}

/** App Home links to the web admin when its URL is known (wiring/web-admin-url.ts). */
function adminLink(env: Env): { adminUrl?: string } {
  const adminUrl = webAdminUrlFromEnv(env);
  return adminUrl === undefined ? {} : { adminUrl };
}
