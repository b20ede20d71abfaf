import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { TeamSettingsStore } from "../actions";
import { AuditLog } from "../audit/audit-log";
import { createSfnClient } from "../workflow/sfn-client";
import { optionalEnv, requireEnv, type Env } from "../config/env";
import { loadAdminUserIds, loadLimits } from "../config/limits";
import { resolveSecret } from "../config/secrets";
import { createLogger } from "../observability/logger";
import { createDocumentClient } from "../store/dynamo-client";
import { TaskStore } from "../store/task-store";
import { createBotTokenResolver } from "./bot-token";
import { createCardRefresher } from "./factory";
import type { FreeePort } from "./freee-port";
import { createIngress, type IngressHandler } from "./ingress";
import { DynamoInstallationStore, installationCipher } from "./installation-store";
import { BOT_SCOPES, OAuthRoutes } from "./oauth-routes";

const INSTALLATION_CACHE_MS = 60_000;

export interface IngressOverrides {
  doc?: DynamoDBDocumentClient;
  sfn?: SFNClient;
  freee?: FreeePort;
}

/**
 * Build the ingress from settings (once per cold start; a missing setting is a FatalConfigError now).
 * Multi-workspace mode when SLACK_CLIENT_ID / SLACK_CLIENT_SECRET / SLACK_STATE_SECRET are set (install
 * routes on, tokens from installations); single-workspace mode when SLACK_BOT_TOKEN is set.
 */
export async function createIngressFromEnv(env: Env = process.env, overrides: IngressOverrides = {}): Promise<IngressHandler> {
  const log = createLogger("ingress");
  const doc = overrides.doc ?? createDocumentClient(env);
  const tableName = requireEnv("TABLE_NAME", env);
  const store = new TaskStore(doc, tableName);
  const audit = new AuditLog(store, log);
  // Every Slack request resolves its bot token: a warm instance keeps it a minute (see the bench, docs/bench.md).
  // The ingress stores installations and seals any plain item an earlier version left (KMS encrypt + decrypt).
  const installations = new DynamoInstallationStore(doc, tableName, { cipher: installationCipher(env), cacheTtlMs: INSTALLATION_CACHE_MS, sealPlainItems: true });
  const tokens = createBotTokenResolver(installations, env);
  const settings = new TeamSettingsStore(doc, tableName);
  const sfn = overrides.sfn ?? createSfnClient(env);
  const adminUserIds = loadAdminUserIds(env);
  const slackApiUrl = optionalEnv("SLACK_API_URL", env);
  const freee = overrides.freee ?? {};
  const singleWorkspace = optionalEnv("SLACK_BOT_TOKEN", env) !== undefined;
  const oauth = singleWorkspace
    ? undefined
    : new OAuthRoutes(
        {
          clientId: await resolveSecret("SLACK_CLIENT_ID", env),
          clientSecret: await resolveSecret("SLACK_CLIENT_SECRET", env),
          stateSecret: await resolveSecret("SLACK_STATE_SECRET", env),
          scopes: BOT_SCOPES,
          ...(optionalEnv("SLACK_REDIRECT_URI", env) === undefined ? {} : { redirectUri: optionalEnv("SLACK_REDIRECT_URI", env) }),
          ...(slackApiUrl === undefined ? {} : { slackApiUrl }),
        },
        installations,
        log,
      );
  return createIngress({
    signingSecret: await resolveSecret("SLACK_SIGNING_SECRET", env),
    sfn,
    taskPipelineArn: requireEnv("TASK_PIPELINE_ARN", env),
    actions: {
      store,
      sfn,
      audit,
      cards: createCardRefresher(store, doc, env, tokens),
      settings,
      adminUserIds,
      limits: loadLimits(env),
      executionRunArn: requireEnv("EXECUTION_RUN_ARN", env),
      log,
    },
    home: { store, settings, adminUserIds, freee, log },
    tokens,
    installations,
    ...(slackApiUrl === undefined ? {} : { slackApiUrl }),
    ...(oauth === undefined ? {} : { oauth }),
    freee,
    log,
  });
}
