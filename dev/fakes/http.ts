import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The one HTTP shell every fake runs in: a node:http server on 127.0.0.1 (ephemeral port unless given) around a
 * Fetch-style handler, so the same handler also mounts inside the sandbox's single server. A handler may answer
 * `LOST_REPLY` to make the connection drop after the request was processed (a reply lost on the way back).
 */
export const LOST_REPLY = Symbol("lost-reply");
export type FakeReply = Response | typeof LOST_REPLY;
export type FakeHandler = (request: Request) => Promise<FakeReply>;

export interface ListeningFake {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function listen(handler: FakeHandler, options: { port?: number; host?: string } = {}): Promise<ListeningFake> {
  const host = options.host ?? "127.0.0.1";
  const server: Server = createServer((req, res) => {
    void serve(req, res, handler).catch((err: unknown) => {
      // A fault in the fake itself: answer it loudly (the caller's test fails on the 599), never hang.
      if (!res.headersSent) res.writeHead(599, { "content-type": "text/plain; charset=utf-8" });
      res.end(`fake failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One node:http request through a Fetch-style handler, its reply written back (or the connection dropped). */
export async function serve(req: IncomingMessage, res: ServerResponse, handler: FakeHandler): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = (req.method ?? "GET").toUpperCase();
  const body = method === "GET" || method === "HEAD" || chunks.length === 0 ? undefined : Buffer.concat(chunks);
  const reply = await handler(new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method, headers, ...(body === undefined ? {} : { body }) }));
  if (reply === LOST_REPLY) {
    req.socket.destroy();
    return;
  }
  const out: Record<string, string | string[]> = {};
  reply.headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = reply.headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  if (res.destroyed) return; // the client gave up (a timeout test)
  res.writeHead(reply.status, out);
  res.end(Buffer.from(await reply.arrayBuffer()));
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  // 204 No Content carries no body (freee's DELETEs).
  if (status === 204) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/** Matches a path by exact string or regular expression (the fakes' fault rules). */
export function pathMatches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === "string" ? pattern === path : pattern.test(path);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
