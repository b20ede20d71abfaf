import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { faultReply, type Dependency, type FaultKind } from "./faults";

/**
 * An HTTP fault proxy on 127.0.0.1 in front of one dependency (DynamoDB Local, the Slack, Anthropic and freee fakes, the Step Functions facade). Requests pass through unchanged unless an armed rule matches;
 * then the rule's fault happens at the protocol boundary, as the real service would show it:
 *   throttle / 5xx / auth — the service's own error reply (faults.ts), the request never reaches the target;
 *   timeout — the request is held past the client's timeout, then the connection is dropped (never forwarded);
 *   lost    — the request IS forwarded (the effect happens), then the connection is dropped before the reply.
 * Every request is recorded with the phases active when it arrived, so a cell can say what it hit.
 */
export interface ProxiedRequest {
  dependency: Dependency;
  /** Who sent it: `ingress`, `mcp`, a step Lambda's folder name (from the `/@<consumer>` prefix), or `stack`. */
  consumer: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Phases of the task active when the request arrived (phases.ts). */
  phases: readonly string[];
}

export interface FaultRule {
  /** Which requests it applies to. */
  when: (request: ProxiedRequest) => boolean;
  kind: FaultKind;
  /** How many matching requests it hits (default 1). */
  times?: number;
  /** timeout: how long the request is held before the connection drops (default 3000 ms). */
  holdMs?: number;
  /** A scripted reply instead of the dependency's standard one (base failures of a scenario). */
  reply?: { status: number; headers?: Record<string, string>; body: unknown };
  /** A scenario's base failure, not the fault under test. */
  base?: boolean;
}

export interface ProxyHit {
  kind: FaultKind;
  base: boolean;
  consumer: string;
  method: string;
  path: string;
  phases: readonly string[];
}

export interface FaultProxy {
  dependency: Dependency;
  url: string;
  requests: ProxiedRequest[];
  /** The faults that actually happened. */
  hits: ProxyHit[];
  arm(rule: FaultRule): void;
  close(): Promise<void>;
}

export async function startFaultProxy(options: {
  dependency: Dependency;
  /** Base URL of the real thing (no trailing slash; read per request, so it may be known only later). */
  target: string | (() => string);
  phases: () => readonly string[];
}): Promise<FaultProxy> {
  const rules: Array<FaultRule & { left: number }> = [];
  const requests: ProxiedRequest[] = [];
  const hits: ProxyHit[] = [];
  const held = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`fault proxy: ${err instanceof Error ? err.message : String(err)}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const tagged = /^\/@([^/?]+)(.*)$/.exec(req.url ?? "/");
    const request: ProxiedRequest = {
      dependency: options.dependency,
      consumer: tagged?.[1] ?? "stack",
      method: (req.method ?? "GET").toUpperCase(),
      path: tagged === null ? (req.url ?? "/") : tagged[2] === "" || tagged[2]!.startsWith("?") ? `/${tagged[2]}` : tagged[2]!,
      headers,
      body: body.toString("utf8"),
      phases: options.phases(),
    };
    requests.push(request);
    const rule = rules.find((r) => r.left > 0 && r.when(request));
    if (rule !== undefined) {
      rule.left -= 1;
      hits.push({ kind: rule.kind, base: rule.base === true, consumer: request.consumer, method: request.method, path: request.path, phases: request.phases });
    }

    if (rule?.kind === "timeout") {
      // Never answered: the client gives up on its own timeout; the drop ends it for clients that have none.
      const timer = setTimeout(() => {
        held.delete(timer);
        req.socket.destroy();
      }, rule.holdMs ?? 3000);
      held.add(timer);
      return;
    }
    if (rule !== undefined && rule.kind !== "lost") {
      const reply = rule.reply ?? faultReply(options.dependency, rule.kind, request);
      res.writeHead(reply.status, { "content-type": "application/json", ...(reply.headers ?? {}) });
      res.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
      return;
    }
    const upstream = await fetch(`${typeof options.target === "string" ? options.target : options.target()}${request.path}`, {
      method: request.method,
      headers: forwardHeaders(headers),
      ...(request.method === "GET" || request.method === "HEAD" || body.length === 0 ? {} : { body }),
      redirect: "manual",
    });
    const payload = Buffer.from(await upstream.arrayBuffer());
    if (rule?.kind === "lost") {
      // The effect happened upstream; the client sees its connection reset instead of the answer.
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) out[name] = value;
    });
    res.writeHead(upstream.status, out);
    res.end(payload);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    dependency: options.dependency,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    hits,
    arm: (rule) => void rules.push({ ...rule, left: rule.times ?? 1 }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of held) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"]);

function forwardHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP_BY_HOP.has(k)));
}
