import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { Env } from "../lib/core/config/env";
import { createSlackEventsFromEnv } from "./events-env";
import type { FreeePort } from "../lib/ingress/freee-port";
import { createIngress, type IngressHandler } from "../lib/ingress/ingress";
import { createInstallRoutesFromEnv } from "./web-env";

export interface IngressOverrides {
  doc?: DynamoDBDocumentClient;
  sfn?: SFNClient;
  freee?: FreeePort;
  /** The web admin (wiring/web-admin-env.ts), mounted as the web Lambda mounts it. */
  admin?: (request: Request) => Promise<Response>;
}

/**
 * Every route in one handler, from settings: the local dev server and the tests, which run the Slack and the web
 * Lambda's halves in one process (sharing the installation store, so an install clears its cache entry). The
 * Lambdas each build only their half (lambdas/ingress, lambdas/web).
 */
export async function createIngressFromEnv(env: Env = process.env, overrides: IngressOverrides = {}): Promise<IngressHandler> {
  const slack = await createSlackEventsFromEnv(env, overrides);
  const oauth = await createInstallRoutesFromEnv(env, { installations: slack.installations, log: slack.log });
  return createIngress({ events: slack.events, ...(oauth === undefined ? {} : { oauth }), freee: overrides.freee ?? {}, ...(overrides.admin === undefined ? {} : { admin: overrides.admin }), log: slack.log });
}
