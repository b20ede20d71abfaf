import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { withRemainingTime } from "../core/aws/invocation-deadline";
import { beginInvocation } from "../core/observability/logger";
import { redactThrown } from "../core/redaction/redact";
import type { McpHttpHandler, McpHttpRequest, McpHttpResponse } from "./http";

/**
 * Lambda Function URL (payload 2.0) ↔ web-standard Request / Response, so one `(Request) => Promise<Response>`
 * serves Lambda, the local dev server and tests. Bodies are decoded as UTF-8 (Japanese survives); responses
 * are buffered (Function URLs in BUFFERED mode), text as is, anything else base64.
 */
export function requestFromFunctionUrlEvent(event: APIGatewayProxyEventV2): Request {
  const host = event.headers.host ?? event.requestContext.domainName;
  const query = event.rawQueryString === "" ? "" : `?${event.rawQueryString}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers)) {
    if (value !== undefined) headers.set(name, value);
  }
  if (event.cookies !== undefined && event.cookies.length > 0) headers.set("cookie", event.cookies.join("; "));
  const method = event.requestContext.http.method.toUpperCase();
  const hasBody = event.body !== undefined && method !== "GET" && method !== "HEAD";
  return new Request(`https://${host}${event.rawPath}${query}`, {
    method,
    headers,
    ...(hasBody ? { body: event.isBase64Encoded ? Buffer.from(event.body!, "base64") : event.body } : {}),
  });
}

export async function functionUrlResultFromResponse(res: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = res.headers.getSetCookie();
  const contentType = res.headers.get("content-type");
  // No content type: an empty or plain body (redirects, 405s) — sent as text.
  const isText = contentType === null || /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded))|\+json|\+xml/.test(contentType);
  const buffer = Buffer.from(await res.arrayBuffer());
  return {
    statusCode: res.status,
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    body: isText ? buffer.toString("utf8") : buffer.toString("base64"),
    isBase64Encoded: !isText,
  };
}

/**
 * Wrap a fetch-style handler as a Function URL handler. With the Lambda context, the invocation's remaining
 * time is available inside the request (lib/core/aws/invocation-deadline.ts). What escapes it (logged by the
 * runtime) is redacted.
 */
export function functionUrlHandler(
  handle: (req: Request) => Promise<Response>,
): (event: APIGatewayProxyEventV2, context?: Pick<Context, "getRemainingTimeInMillis">) => Promise<APIGatewayProxyStructuredResultV2> {
  return servedAs(async (event) => functionUrlResultFromResponse(await handle(requestFromFunctionUrlEvent(event))));
}

/**
 * The same for the MCP server's plain requests and answers (lib/mcp/http.ts): the event becomes the request with no
 * `Request` object, and the answer (text) the result as it is, so serving one loads no fetch implementation.
 */
export function plainFunctionUrlHandler(handle: McpHttpHandler): (event: APIGatewayProxyEventV2, context?: Pick<Context, "getRemainingTimeInMillis">) => Promise<APIGatewayProxyStructuredResultV2> {
  return servedAs(async (event) => functionUrlResultFromPlain(await handle(plainRequestFromFunctionUrlEvent(event))));
}

function servedAs(
  serve: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
): (event: APIGatewayProxyEventV2, context?: Pick<Context, "getRemainingTimeInMillis">) => Promise<APIGatewayProxyStructuredResultV2> {
  return async (event, context) => {
    beginInvocation(context as Context | undefined);
    try {
      return await (context === undefined ? serve(event) : withRemainingTime(() => context.getRemainingTimeInMillis(), () => serve(event)));
    } catch (err) {
      throw redactThrown(err);
    }
  };
}

/** As requestFromFunctionUrlEvent reads the event: header names in lower case, cookies joined, the body as UTF-8 text. */
export function plainRequestFromFunctionUrlEvent(event: APIGatewayProxyEventV2): McpHttpRequest {
  const host = event.headers.host ?? event.requestContext.domainName;
  const query = event.rawQueryString === "" ? "" : `?${event.rawQueryString}`;
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(event.headers)) {
    if (value !== undefined) headers.set(name.toLowerCase(), value);
  }
  if (event.cookies !== undefined && event.cookies.length > 0) headers.set("cookie", event.cookies.join("; "));
  const method = event.requestContext.http.method.toUpperCase();
  const raw = event.body === undefined || method === "GET" || method === "HEAD" ? "" : event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
  // A fetch Request's text() drops a leading byte order mark; so does this.
  const text = raw.replace(/^\uFEFF/, "");
  return { method, url: `https://${host}${event.rawPath}${query}`, headers: { get: (name) => headers.get(name.toLowerCase()) ?? null }, text: async () => text };
}

export function functionUrlResultFromPlain(res: McpHttpResponse): APIGatewayProxyStructuredResultV2 {
  return { statusCode: res.status, headers: { ...res.headers }, body: res.body ?? "", isBase64Encoded: false };
}
