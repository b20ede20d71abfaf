/**
 * The MCP server's HTTP request and answer, as plain values. A web-standard `Request` is one (what the local dev
 * server and tests send); the Lambda builds one straight from its Function URL event (lib/mcp/function-url.ts), and
 * answers are plain too: constructing a `Request` or `Response` loads Node's fetch implementation (undici, ~30 ms
 * of a cold start), which the `initialize` and `tools/list` a session opens with never need (only a call to freee
 * fetches).
 */
export interface McpHttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface McpHttpResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Text (JSON here), or null for none. */
  body: string | null;
}

export type McpHttpHandler = (req: McpHttpRequest) => Promise<McpHttpResponse>;

export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): McpHttpResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(value) };
}

/** For a web server (dev/local) or a test that reads a `Response`. */
export function toWebResponse(res: McpHttpResponse): Response {
  return new Response(res.body, { status: res.status, headers: res.headers });
}

/** A handler of plain answers behind a fetch-style entry. */
export function webHandler(handle: McpHttpHandler): (req: Request) => Promise<Response> {
  return async (req) => toWebResponse(await handle(req));
}
