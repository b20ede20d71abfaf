import type { Env } from "../lib/core/config/env";
import { freeeHomePortFromEnv } from "./freee-home";
import { createSlackEventsFromEnv } from "./events-env";
import { createIngress, type IngressHandler } from "../lib/ingress/ingress";

/**
 * The Slack Lambda's router (lambdas/ingress), from settings: POST /slack/events and GET /healthz; App Home gets
 * the freee status and connect link, the connect pages themselves are the web Lambda's. A function of its own so
 * the docs test builds exactly what the Lambda serves.
 */
export async function createSlackLambdaFromEnv(env: Env = process.env): Promise<IngressHandler> {
  const freee = freeeHomePortFromEnv(env);
  const { events, log } = await createSlackEventsFromEnv(env, { freee });
  return createIngress({ events, freee, log, name: "ingress" });
}
