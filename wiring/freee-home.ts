import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { intEnv, optionalEnv, requireEnv, type Env } from "../lib/core/config/env";
import { resolveSecret } from "../lib/core/config/secrets";
import { FatalConfigError } from "../lib/core/errors/taxonomy";
import { buildConnectLink, connectLinkTtl, MAX_CONNECT_LINK_TTL_SECONDS, type ConnectLinkSettings } from "../lib/freee/connect-link";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { readConnectionStatus } from "../lib/store/freee-connection-status";
import { disconnectFreee } from "../lib/store/freee-disconnect";

/**
 * The App Home side of freee, from settings: TABLE_NAME, FREEE_STATE_SECRET (or _SECRET_ARN), and where the
 * connect page lives — FREEE_CONNECT_BASE_URL (the web Lambda's URL) or PUBLIC_BASE_URL. Built once per
 * container; a failed build is not cached.
 */
export function freeeHomePortFromEnv(env: Env = process.env, doc?: DynamoDBDocumentClient) {
  let settings: Promise<ConnectLinkSettings> | undefined;
  const load = (): Promise<ConnectLinkSettings> => {
    settings ??= (async () => {
      const publicBaseUrl = optionalEnv("FREEE_CONNECT_BASE_URL", env) ?? optionalEnv("PUBLIC_BASE_URL", env);
      if (publicBaseUrl === undefined) {
        throw new FatalConfigError("missing setting FREEE_CONNECT_BASE_URL (or PUBLIC_BASE_URL)", { details: { setting: "FREEE_CONNECT_BASE_URL" } });
      }
      return { publicBaseUrl, stateSecret: await resolveSecret("FREEE_STATE_SECRET", env), ttlSeconds: connectLinkTtl(intEnv("FREEE_CONNECT_LINK_TTL_SECONDS", MAX_CONNECT_LINK_TTL_SECONDS, env)) };
    })().catch((err: unknown) => {
      settings = undefined;
      throw err;
    });
    return settings;
  };
  let client = doc;
  return {
    buildConnectUrl: async (teamId: string, userId: string) => buildConnectLink(await load(), teamId, userId, Math.floor(Date.now() / 1000)),
    getConnectionStatus: (teamId: string) => readConnectionStatus((client ??= createDocumentClient(env)), requireEnv("TABLE_NAME", env), teamId),
    // The caller (App Home) has checked that `by` is an admin of the workspace.
    disconnect: (teamId: string, by: string) => disconnectFreee((client ??= createDocumentClient(env)), requireEnv("TABLE_NAME", env), { teamId, by, at: new Date().toISOString() }),
  };
}
