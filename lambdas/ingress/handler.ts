import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { freeeHomePortFromEnv } from "../../lib/freee/connect-link";
import { createSlackEventsFromEnv } from "../../lib/slack/events-env";
import { fromFunctionUrlEvent, toFunctionUrlResult, type FunctionUrlResult } from "../../lib/slack/http/types";
import { beginInvocation } from "../../lib/observability/logger";
import { redactThrown } from "../../lib/observability/redact";
import { createIngress } from "../../lib/slack/ingress";

/**
 * Function URL entry point for Slack: events and interactivity (POST /slack/events), within Slack's 3 s. The
 * install and freee pages are the web Lambda's (lambdas/web). Logic lives in lib/slack.
 */
const freee = freeeHomePortFromEnv(process.env);
const ingress = createSlackEventsFromEnv(process.env, { freee }).then(({ events, log }) => createIngress({ events, freee, log }));

export async function handler(event: APIGatewayProxyEventV2, context?: Context): Promise<FunctionUrlResult> {
  beginInvocation(context);
  try {
    return toFunctionUrlResult(await (await ingress)(fromFunctionUrlEvent(event)));
  } catch (err) {
    // What escapes is logged by the Lambda runtime: no secret in it.
    throw redactThrown(err);
  }
}
