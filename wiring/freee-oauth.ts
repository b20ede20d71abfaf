import type { Logger } from "@aws-lambda-powertools/logger";
import { requireEnv, type Env } from "../lib/core/config/env";
import { createLogger } from "../lib/core/observability/logger";
import { loadFreeeAppCredentials, loadFreeeEndpoints } from "../lib/freee/config";
import { createFreeeOAuth, loadOAuthSettings, type FreeeOAuth, type FreeeOAuthDeps } from "../lib/freee/oauth";
import { FreeeTokenEndpoint } from "../lib/freee/token-endpoint";
import { AuditLog } from "../lib/store/audit-log";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { FreeeConnectionStore } from "../lib/store/freee-connections";
import { OneTimeUses } from "../lib/store/freee-one-time-uses";
import { TaskStore } from "../lib/store/task-store";
import { createTokenCipher } from "../lib/store/token-cipher";

/**
 * The connect flow wired from the environment (TABLE_NAME, the freee settings above, TOKEN_KMS_KEY_ID or
 * FREEE_TOKEN_LOCAL_KEY) and the admin check of the workspace (wiring/admins-env.ts builds it).
 */
export async function createFreeeOAuthFromEnv(
  env: Env,
  extras: { admins: FreeeOAuthDeps["admins"]; onConnected?: FreeeOAuthDeps["onConnected"]; invalidatePlans?: FreeeOAuthDeps["invalidatePlans"]; logger?: Logger },
): Promise<FreeeOAuth> {
  const logger = extras.logger ?? createLogger("freee-oauth");
  const tableName = requireEnv("TABLE_NAME", env);
  const doc = createDocumentClient(env);
  const endpoints = loadFreeeEndpoints(env);
  const credentials = await loadFreeeAppCredentials(env);
  const settings = await loadOAuthSettings(env);
  return createFreeeOAuth({
    connections: new FreeeConnectionStore(doc, tableName, createTokenCipher(env)),
    uses: new OneTimeUses(doc, tableName),
    tokenEndpoint: new FreeeTokenEndpoint(endpoints.oauthBaseUrl, credentials),
    audit: new AuditLog(new TaskStore(doc, tableName), logger),
    admins: extras.admins,
    logger,
    apiBaseUrl: endpoints.apiBaseUrl,
    oauthBaseUrl: endpoints.oauthBaseUrl,
    clientId: credentials.clientId,
    ...settings,
    ...(extras.onConnected === undefined ? {} : { onConnected: extras.onConnected }),
    ...(extras.invalidatePlans === undefined ? {} : { invalidatePlans: extras.invalidatePlans }),
  });
}

/**
 * The web Lambda's freee routes, built on first use (a container that serves only Slack installs never needs the
 * freee settings) and once per container; a failed build is not cached.
 */
export function lazyFreeeOAuthFromEnv(env: Env, extras: Parameters<typeof createFreeeOAuthFromEnv>[1]) {
  let built: Promise<FreeeOAuth> | undefined;
  const flow = (): Promise<FreeeOAuth> => {
    built ??= createFreeeOAuthFromEnv(env, extras).catch((err: unknown) => {
      built = undefined;
      throw err;
    });
    return built;
  };
  return {
    connect: async (request: Request) => (await flow()).connect(request),
    callback: async (request: Request) => (await flow()).callback(request),
    getConnectionStatus: async (teamId: string) => (await flow()).getConnectionStatus(teamId),
    buildConnectUrl: async (teamId: string, userId: string) => (await flow()).buildConnectUrl(teamId, userId),
  };
}
