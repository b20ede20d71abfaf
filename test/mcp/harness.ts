import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { TaskStore } from "../../lib/store/task-store";
import type { ProcessStep, SlackFileRef } from "../../lib/core/domain/records";

/**
 * Serves a Function URL handler on 127.0.0.1 the way Lambda would call it: each HTTP request becomes an
 * APIGatewayProxyEventV2 (payload 2.0, body base64 like Function URLs send binary/unknown bodies).
 */
export async function serveFunctionUrl(
  handler: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    toEvent(req)
      .then(handler)
      .then((result) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
        res.writeHead(result.statusCode ?? 200, headers);
        res.end(result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8"));
      })
      .catch((err: unknown) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`handler threw: ${String(err)}`);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function toEvent(req: IncomingMessage): Promise<APIGatewayProxyEventV2> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(req.url ?? "/", "http://x");
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(",") : v;
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ""),
    headers,
    requestContext: {
      accountId: "anonymous",
      apiId: "local",
      domainName: headers.host ?? "localhost",
      domainPrefix: "local",
      http: { method: req.method ?? "GET", path: url.pathname, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: headers["user-agent"] ?? "" },
      requestId: `req-${Math.random()}`,
      routeKey: "$default",
      stage: "$default",
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: body.length > 0,
    ...(body.length > 0 ? { body: body.toString("base64") } : {}),
  };
}

/** The company the seeded plans were previewed against: the one every test workspace connects first. */
export const APPROVED_COMPANY = { id: 101, name: "テスト株式会社" } as const;

/**
 * A task whose Process v1 (these steps) is approved, with Execution 1 in `status`, carrying the company the plan
 * was previewed against (as startExecutionRun copies it from the preview).
 */
export async function seedExecution(store: TaskStore, teamId: string, messageTs: string, steps: ProcessStep[], status: "running" | "completed" = "running", attachments?: SlackFileRef[], company: { id: number; name?: string } | null = APPROVED_COMPANY) {
  const { record: task } = await store.createTask({
    thread: { teamId, channelId: "C1", messageTs },
    requesterId: "U1",
    requestText: "1 月の勤怠を確認して",
    ...(attachments === undefined ? {} : { attachments }),
    pipelineExecutionName: `p-${messageTs}`,
  });
  await store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
  await store.saveVersionContent("process", task.taskId, 1, { steps });
  await store.openApproval("process", task.taskId, 1, "token-1");
  await store.transitionVersion("process", task.taskId, 1, "approved", { remove: ["taskToken"] });
  const { record: execution } = await store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1", ...(company === null ? {} : { company }) });
  await store.transitionExecution(task.taskId, 1, "running");
  if (status === "completed") await store.transitionExecution(task.taskId, 1, "completed");
  return { task, execution };
}
