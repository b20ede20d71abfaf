import { intEnv, requireEnv, type Env } from "../lib/core/config/env";
import { FatalConfigError } from "../lib/core/errors/taxonomy";
import { createLogger } from "../lib/core/observability/logger";
import { loadFreeeAppCredentials, loadFreeeEndpoints } from "../lib/freee/config";
import { FreeeTokenEndpoint } from "../lib/freee/token-endpoint";
import type { TokenRefresherDeps } from "../lib/freee/token-refresher";
import { AuditLog } from "../lib/store/audit-log";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { FreeeConnectionStore } from "../lib/store/freee-connections";
import { PendingTokenStore } from "../lib/store/pending-freee-tokens";
import { TaskStore } from "../lib/store/task-store";
import { createTokenCipher } from "../lib/store/token-cipher";

/**
 * Wired from the environment: TABLE_NAME (+ DYNAMODB_ENDPOINT), TOKEN_KMS_KEY_ID (or FREEE_TOKEN_LOCAL_KEY
 * locally), FREEE_CLIENT_ID, FREEE_CLIENT_SECRET(_SECRET_ARN), FREEE_OAUTH_BASE_URL, FREEE_REFRESH_AFTER_DAYS.
 */
export async function createTokenRefresherFromEnv(env: Env = process.env): Promise<TokenRefresherDeps> {
  const logger = createLogger("refresh-freee-tokens");
  const tableName = requireEnv("TABLE_NAME", env);
  const refreshAfterDays = intEnv("FREEE_REFRESH_AFTER_DAYS", 60, env);
  if (refreshAfterDays < 1 || refreshAfterDays >= 90) {
    throw new FatalConfigError(`FREEE_REFRESH_AFTER_DAYS must be 1..89 (freee refresh tokens lapse after 90 days), got ${refreshAfterDays}`, {
      details: { setting: "FREEE_REFRESH_AFTER_DAYS" },
    });
  }
  const doc = createDocumentClient(env);
  const cipher = createTokenCipher(env);
  const endpoints = loadFreeeEndpoints(env);
  return {
    connections: new FreeeConnectionStore(doc, tableName, cipher),
    pending: new PendingTokenStore(doc, tableName, cipher),
    tokenEndpoint: new FreeeTokenEndpoint(endpoints.oauthBaseUrl, await loadFreeeAppCredentials(env)),
    audit: new AuditLog(new TaskStore(doc, tableName), logger),
    logger,
    refreshAfterDays,
  };
}

