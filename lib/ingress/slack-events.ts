import type { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { createBoltApp, type BoltDeps } from "./bolt-app";
import { text, type HttpRequest, type HttpResponse } from "./http/types";
import { verifySlackSignature } from "./http/verify";
import { isHandledEnvelope, parseAppRateLimited } from "./http/envelope";
import { emitCount, SLACK_CALLBACKS_METRIC } from "../core/observability/emf";
import { requestScope } from "./request-scope";

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";

export type SlackEventsHandler = (request: HttpRequest) => Promise<HttpResponse>;

/**
 * POST /slack/events: Slack events and interactivity through Bolt. Closes the receiver's gaps: the body arrives
 * already UTF-8 decoded; the signature is checked here with a ±5 min window (Bolt checks only the past); a body
 * that does not parse is a 400, not a crash; only then does Bolt see the request.
 */
export function createSlackEvents(deps: BoltDeps & { log: Logger; count?: typeof emitCount }): SlackEventsHandler {
  const count = deps.count ?? emitCount;
  const { receiver } = createBoltApp(deps);
  const bolt = receiver.toHandler();

  return async (request) => {
    const verified = verifySlackSignature(request.body, request.headers, deps.signingSecret);
    if (!verified.ok) {
      deps.log.warn("Slack signature rejected", { layer: "ingress", reason: verified.reason });
      return text(401, "");
    }
    const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const body = parseBody(request.body, contentType);
    if (body === undefined) return text(400, "");
    if (body.ssl_check !== undefined) return text(200, "");
    if (body.type === "url_verification") {
      if (typeof body.challenge !== "string") return text(400, "");
      return { statusCode: 200, headers: { "content-type": JSON_TYPE }, body: JSON.stringify({ challenge: body.challenge }) };
    }
    if (body.type === "app_rate_limited") {
      // Slack stopped delivering this workspace's events for a minute (over 30,000 an hour). Acknowledged: a
      // refusal would count as a failed delivery against the app. Nothing to do but say so.
      const limited = parseAppRateLimited(body);
      if (limited === undefined) return text(400, "");
      deps.log.warn("Slack rate-limited the app's events for a workspace", { layer: "ingress", team_id: limited.team_id, minute_rate_limited: limited.minute_rate_limited });
      count(SLACK_CALLBACKS_METRIC, { Type: "app_rate_limited" });
      return text(200, "");
    }
    if (!isHandledEnvelope(body)) {
      deps.log.warn("Slack payload of an unexpected shape ignored", { layer: "ingress", type: typeof body.type === "string" ? body.type.slice(0, 40) : typeof body.type });
      return text(400, "");
    }
    // Bolt matches the content type exactly and re-parses the body: give it the normalised type and the
    // already-decoded UTF-8 body (never base64, which it would decode as ASCII).
    const event = {
      version: "2.0",
      rawPath: request.path,
      headers: { ...request.headers, "content-type": contentType === FORM ? FORM : JSON_TYPE },
      body: request.body,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const scope = { transientFailure: false };
    const result = (await requestScope.run(scope, () => bolt(event as never, {} as never))) as { statusCode: number; headers?: Record<string, string>; body?: string };
    if (result.statusCode >= 500 && !scope.transientFailure) {
      // Bolt itself failed on a payload it could not process: a redelivery would fail the same way.
      deps.log.warn("Bolt could not process a Slack payload", { layer: "ingress", type: String(body.type).slice(0, 40) });
      return text(400, "");
    }
    return { statusCode: result.statusCode, ...(result.headers === undefined ? {} : { headers: lower(result.headers) }), body: result.body ?? "" };
  };
}

/** The body as Bolt will read it, or undefined when it is not a JSON object / form with a JSON-object payload. */
function parseBody(raw: string, contentType: string): Record<string, unknown> | undefined {
  try {
    if (contentType === FORM) {
      const params = new URLSearchParams(raw);
      const payload = params.get("payload");
      if (payload === null) return undefined; // slash commands are not used by this app
      const parsed: unknown = JSON.parse(payload);
      return isObject(parsed) ? parsed : undefined;
    }
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) ? parsed : undefined;
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof URIError) return undefined;
    throw err;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
