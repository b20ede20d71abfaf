import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Logger } from "@aws-lambda-powertools/logger";
import { AuditLog } from "../lib/store/audit-log";
import { optionalEnv, requireEnv, type Env } from "../lib/core/config/env";
import { resolveSecret } from "../lib/core/config/secrets";
import { lazyFreeeOAuthFromEnv } from "./freee-oauth";
import { createLogger } from "../lib/core/observability/logger";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { TaskStore } from "../lib/store/task-store";
import { createAdminDirectory } from "./admins-env";
import { createBotTokenResolver } from "../lib/slack-api/bot-token";
import { createHomeRefresher, type HomeRefresher } from "../lib/ingress/home-refresh";
import { createIngress, type IngressHandler } from "../lib/ingress/ingress";
import { DynamoInstallationStore, installationCipher } from "../lib/store/installations";
import { BOT_SCOPES, OAuthRoutes } from "../lib/ingress/oauth-routes";
import { createPlanInvalidator } from "../lib/freee/plan-invalidation";
import { createSfnClient } from "../lib/steps/machines/sfn-client";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { createCardRefresher } from "./slack-factory";
import { freeeHomePortFromEnv } from "./freee-home";
import { createWebAdminFromEnv } from "./web-admin-env";
import { webAdminUrlFromEnv } from "./web-admin-url";
import { returnToAdmin } from "../lib/web-admin/freee-return";

export interface WebOverrides {
  doc?: DynamoDBDocumentClient;
  installations?: DynamoInstallationStore;
  log?: Logger;
  sfn?: SFNClient;
}

/**
 * The web Lambda's Slack half: /slack/install and /slack/oauth_redirect (InstallProvider), in multi-workspace
 * mode (SLACK_CLIENT_ID / SLACK_CLIENT_SECRET / SLACK_STATE_SECRET). Single-workspace mode (SLACK_BOT_TOKEN)
 * has no install flow: undefined, and the routes answer 404.
 */
export async function createInstallRoutesFromEnv(env: Env = process.env, overrides: WebOverrides = {}): Promise<OAuthRoutes | undefined> {
  if (optionalEnv("SLACK_BOT_TOKEN", env) !== undefined) return undefined;
  const log = overrides.log ?? createLogger("slack-install");
  const installations = overrides.installations ?? new DynamoInstallationStore(overrides.doc ?? createDocumentClient(env), requireEnv("TABLE_NAME", env), { cipher: installationCipher(env) });
  const slackApiUrl = optionalEnv("SLACK_API_URL", env);
  const redirectUri = optionalEnv("SLACK_REDIRECT_URI", env);
  return new OAuthRoutes(
    {
      clientId: await resolveSecret("SLACK_CLIENT_ID", env),
      clientSecret: await resolveSecret("SLACK_CLIENT_SECRET", env),
      stateSecret: await resolveSecret("SLACK_STATE_SECRET", env),
      scopes: BOT_SCOPES,
      ...(redirectUri === undefined ? {} : { redirectUri }),
      ...(slackApiUrl === undefined ? {} : { slackApiUrl }),
    },
    installations,
    log,
  );
}

/**
 * Every page of the web Lambda: the Slack install, the web admin (/admin, /login) and the freee connect flow, whose admin check reads
 * the workspace's settings and asks Slack (users.info) with the bot token of its installation. After a freee
 * connect the connecting admin's App Home is republished with the new status (a failure is logged by the connect
 * flow; the connection stands).
 */
export async function createWebFromEnv(env: Env = process.env, overrides: WebOverrides = {}): Promise<IngressHandler> {
  const log = overrides.log ?? createLogger("web");
  const doc = overrides.doc ?? createDocumentClient(env);
  const tableName = requireEnv("TABLE_NAME", env);
  const installations = overrides.installations ?? new DynamoInstallationStore(doc, tableName, { cipher: installationCipher(env) });
  const oauth = await createInstallRoutesFromEnv(env, { installations, log });
  const tokens = createBotTokenResolver(installations, env);
  const { admins, settings } = createAdminDirectory(env, { doc, tableName, tokens, log });
  const store = new TaskStore(doc, tableName);
  // The Home's freee part is this flow's own status and connect link; the hook runs after its callback saved.
  const refreshHome: HomeRefresher = (teamId, userId) => republish(teamId, userId);
  const audit = new AuditLog(store, log);
  // A reconnect to another company: the workspace's plans awaiting approval can no longer be approved.
  const invalidatePlans = createPlanInvalidator({ doc, tableName, audit, sfn: overrides.sfn ?? createSfnClient(env), cards: createCardRefresher(store, doc, env, tokens), log });
  const freee = lazyFreeeOAuthFromEnv(env, { admins, logger: log, onConnected: refreshHome, invalidatePlans });
  const adminUrl = webAdminUrlFromEnv(env);
  const republish = createHomeRefresher({ tokens, home: { store, settings, admins, freee, audit, log, ...(adminUrl === undefined ? {} : { adminUrl }) }, env });
  // The web admin's 設定 disconnects as App Home does (the same store function; the page checks the admin).
  const { disconnect } = freeeHomePortFromEnv(env, doc);
  const admin = await createWebAdminFromEnv(env, { doc, tableName, installations, admins, settings, freee: { ...freee, disconnect }, tokens, log });
  return createIngress({ ...(oauth === undefined ? {} : { oauth }), freee: { ...freee, callback: returnToAdmin(freee.callback) }, admin, log, name: "web" });
}
