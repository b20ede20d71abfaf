import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { freeeOAuthFromEnv } from "../../lib/freee/oauth";
import { createLogger } from "../../lib/observability/logger";
import { redactThrown } from "../../lib/observability/redact";
import { fromFunctionUrlEvent, toFunctionUrlResult, type FunctionUrlResult } from "../../lib/slack/http/types";
import { createIngress } from "../../lib/slack/ingress";
import { createInstallRoutesFromEnv } from "../../lib/slack/web-env";

/**
 * Function URL entry point for the browser pages: Slack install (/slack/install, /slack/oauth_redirect) and the
 * freee connect flow (/freee/connect, /freee/callback). Kept out of the Slack Lambda so its bundle and cold start
 * stay small (docs/bench.md). Logic lives in lib/slack and lib/freee.
 */
const log = createLogger("web");
const web = createInstallRoutesFromEnv(process.env, { log }).then((oauth) => createIngress({ ...(oauth === undefined ? {} : { oauth }), freee: freeeOAuthFromEnv, log }));

export async function handler(event: APIGatewayProxyEventV2): Promise<FunctionUrlResult> {
  try {
    return toFunctionUrlResult(await (await web)(fromFunctionUrlEvent(event)));
  } catch (err) {
    // What escapes is logged by the Lambda runtime: no secret in it.
    throw redactThrown(err);
  }
}
