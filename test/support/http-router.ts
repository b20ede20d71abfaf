import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One base URL in front of several fake servers, routed by path prefix. A bundled Lambda reads its endpoints
 * from `process.env` like on AWS, and one process holds every bundle: the Messages fake and the Managed Agents
 * fake must therefore share `ANTHROPIC_BASE_URL`, as the real API does.
 */
export interface HttpRouter {
  url: string;
  close(): Promise<void>;
}

export async function startHttpRouter(routes: ReadonlyArray<{ prefix: string; target: string }>, fallback: string): Promise<HttpRouter> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? "/";
    const target = new URL(routes.find((r) => path.startsWith(r.prefix))?.target ?? fallback);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", (err) => {
      // The client already saw the upstream fail (a dropped connection is the fault some tests inject).
      res.destroy(err);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
