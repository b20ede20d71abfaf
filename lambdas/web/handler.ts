import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { beginInvocation, createLogger } from "../../lib/core/observability/logger";
import { redactThrown } from "../../lib/core/redaction/redact";
import { fromFunctionUrlEvent, toFunctionUrlResult, type FunctionUrlResult } from "../../lib/ingress/http/types";
import { createWebFromEnv } from "../../wiring/web-env";

/**
 * Function URL entry point for the browser pages: Slack install (/slack/install, /slack/oauth_redirect) and the
 * freee connect flow (/freee/connect, /freee/callback). Kept out of the Slack Lambda so its bundle and cold start
 * stay small (docs/bench.md). Logic lives in lib/ingress and lib/freee.
 */
const web = createWebFromEnv(process.env, { log: createLogger("web") });

export async function handler(event: APIGatewayProxyEventV2, context?: Context): Promise<FunctionUrlResult> {
  beginInvocation(context);
  try {
    return toFunctionUrlResult(await (await web)(fromFunctionUrlEvent(event)));
  } catch (err) {
    // What escapes is logged by the Lambda runtime: no secret in it.
    throw redactThrown(err);
  }
}
