import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { fromFunctionUrlEvent, toFunctionUrlResult, type FunctionUrlResult } from "../../lib/ingress/http/types";
import { beginInvocation } from "../../lib/core/observability/logger";
import { redactThrown } from "../../lib/core/redaction/redact";
import { createSlackLambdaFromEnv } from "../../wiring/slack-lambda";

/**
 * Function URL entry point for Slack: events and interactivity (POST /slack/events), within Slack's 3 s. The
 * install and freee pages are the web Lambda's (lambdas/web). Logic lives in lib/ingress.
 */
const ingress = createSlackLambdaFromEnv(process.env);

export async function handler(event: APIGatewayProxyEventV2, context?: Context): Promise<FunctionUrlResult> {
  beginInvocation(context);
  try {
    return toFunctionUrlResult(await (await ingress)(fromFunctionUrlEvent(event)));
  } catch (err) {
    // What escapes is logged by the Lambda runtime: no secret in it.
    throw redactThrown(err);
  }
}
