import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { fromFunctionUrlEvent, toFunctionUrlResult, type FunctionUrlResult } from "../../lib/slack/http/types";
import { redactThrown } from "../../lib/observability/redact";
import { createIngressFromEnv } from "../../lib/slack/ingress-env";
import { freeePort } from "./freee";

/** Function URL entry point: Slack events / interactivity, Slack install, freee connect. Logic lives in lib/slack. */
const ingress = createIngressFromEnv(process.env, { freee: freeePort });

export async function handler(event: APIGatewayProxyEventV2): Promise<FunctionUrlResult> {
  try {
    return toFunctionUrlResult(await (await ingress)(fromFunctionUrlEvent(event)));
  } catch (err) {
    // What escapes is logged by the Lambda runtime: no secret in it.
    throw redactThrown(err);
  }
}
