/**
 * One HTTP request/response shape for the ingress core, so the Lambda Function URL handler and the local dev
 * server (Fetch API Request/Response) share it. `body` is already decoded to a UTF-8 string.
 */
export interface HttpRequest {
  method: string;
  path: string;
  /** Raw query string without "?". */
  query: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

export interface HttpResponse {
  statusCode: number;
  headers?: Record<string, string>;
  /** Set-Cookie values (Function URLs return them in `cookies`). */
  cookies?: string[];
  body: string;
}

/** The Function URL (API Gateway v2 payload) event fields the ingress reads. */
export interface FunctionUrlEvent {
  rawPath?: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
  requestContext?: { http?: { method?: string } };
}

/**
 * Adapt a Function URL event. Base64 bodies are decoded as UTF-8 (Bolt's receiver decodes them as ASCII,
 * which breaks Japanese text and its signature). Function URLs move cookies out of the headers: put them back.
 */
export function fromFunctionUrlEvent(event: FunctionUrlEvent): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  if (event.cookies !== undefined && event.cookies.length > 0 && headers.cookie === undefined) {
    headers.cookie = event.cookies.join("; ");
  }
  const raw = event.body ?? "";
  return {
    method: (event.requestContext?.http?.method ?? "GET").toUpperCase(),
    path: event.rawPath ?? "/",
    query: event.rawQueryString ?? "",
    headers,
    body: event.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw,
  };
}

export interface FunctionUrlResult {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: false;
}

export function toFunctionUrlResult(response: HttpResponse): FunctionUrlResult {
  return {
    statusCode: response.statusCode,
    ...(response.headers === undefined ? {} : { headers: response.headers }),
    ...(response.cookies === undefined || response.cookies.length === 0 ? {} : { cookies: response.cookies }),
    body: response.body,
    isBase64Encoded: false,
  };
}

/** Fetch API Request → HttpRequest (the local dev server, and freee's handlers mounted on the same router). */
export async function fromFetchRequest(request: Request): Promise<HttpRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const body = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
  return { method: request.method.toUpperCase(), path: url.pathname, query: url.search.replace(/^\?/, ""), headers, body };
}

export function toFetchRequest(request: HttpRequest): Request {
  const host = request.headers.host ?? "localhost";
  const proto = request.headers["x-forwarded-proto"] ?? "https";
  const url = `${proto}://${host}${request.path}${request.query === "" ? "" : `?${request.query}`}`;
  const init: RequestInit = { method: request.method, headers: request.headers };
  if (request.method !== "GET" && request.method !== "HEAD") init.body = request.body;
  return new Request(url, init);
}

export async function fromFetchResponse(response: Response): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  // Decoded keeping a leading byte order mark (Response.text() drops it): the admin's CSV starts with one for Excel.
  const body = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await response.arrayBuffer());
  return { statusCode: response.status, headers, ...(cookies.length > 0 ? { cookies } : {}), body };
}

export function toFetchResponse(response: HttpResponse): Response {
  const headers = new Headers(response.headers ?? {});
  for (const cookie of response.cookies ?? []) headers.append("set-cookie", cookie);
  return new Response(response.body, { status: response.statusCode, headers });
}

export function text(statusCode: number, body: string, contentType = "text/plain; charset=utf-8"): HttpResponse {
  return { statusCode, headers: { "content-type": contentType }, body };
}

/** The ingress as a Fetch API handler (`(Request) => Promise<Response>`), for the local dev server. */
export function toFetchHandler(handler: (request: HttpRequest) => Promise<HttpResponse>): (request: Request) => Promise<Response> {
  return async (request) => toFetchResponse(await handler(await fromFetchRequest(request)));
}
