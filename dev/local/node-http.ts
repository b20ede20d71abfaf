import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@aws-lambda-powertools/logger";
import { serve } from "../fakes/http";

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
