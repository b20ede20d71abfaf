import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@aws-lambda-powertools/logger";

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * A node:http server that speaks Fetch API Request/Response, so the ingress, MCP and freee entry points
 * (all `(Request) => Promise<Response>`) mount without adapters. The handler is set after listen(), because
 * the routes need the port (PUBLIC_BASE_URL, MCP_SERVER_URL) before they can be built.
 */
export interface FetchServer {
  server: Server;
  port: number;
  setHandler(handler: FetchHandler): void;
  close(): Promise<void>;
}

export async function listenFetch(host: string, port: number, log: Logger): Promise<FetchServer> {
  let handler: FetchHandler = async () => new Response("starting", { status: 503 });
  const server = createServer((req, res) => {
    void serve(req, res, handler).catch((err: unknown) => {
      log.error("local server request failed", { path: req.url, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    setHandler: (h) => {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, handler: FetchHandler): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = (req.method ?? "GET").toUpperCase();
  const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`;
  const body = method === "GET" || method === "HEAD" || chunks.length === 0 ? undefined : Buffer.concat(chunks);
  const response = await handler(new Request(url, { method, headers, ...(body === undefined ? {} : { body }) }));
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  res.writeHead(response.status, out);
  res.end(Buffer.from(await response.arrayBuffer()));
}
