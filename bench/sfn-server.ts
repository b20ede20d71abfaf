import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A tiny Step Functions endpoint for the warm-latency bench: the AWS JSON 1.0 protocol for StartExecution and
 * SendTaskSuccess, which is all the ingress (ours and the baseline) calls. Point `SFN_ENDPOINT` at `url`.
 * StartExecution of a taken name answers ExecutionAlreadyExists, as AWS does; every call is counted.
 */
export interface LocalSfnServer {
  url: string;
  calls: Record<string, number>;
  started: Map<string, string>;
  tokensSent: string[];
  close(): Promise<void>;
}

export async function startSfnServer(): Promise<LocalSfnServer> {
  const calls: Record<string, number> = {};
  const started = new Map<string, string>();
  const tokensSent: string[] = [];

  function answer(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/x-amz-json-1.0" });
    res.end(JSON.stringify(body));
  }

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const target = String(req.headers["x-amz-target"] ?? "");
    const operation = target.replace(/^AWSStepFunctions\./, "");
    calls[operation] = (calls[operation] ?? 0) + 1;
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(raw === "" ? "{}" : raw) as Record<string, unknown>;
    } catch (err) {
      return answer(res, 400, { __type: "SerializationException", message: err instanceof Error ? err.message : "bad JSON" });
    }
    if (operation === "StartExecution") {
      const arn = String(input.stateMachineArn);
      const name = String(input.name);
      const key = `${arn}:${name}`;
      if (started.has(key)) return answer(res, 400, { __type: "ExecutionAlreadyExists", message: `Execution Already Exists: '${name}'` });
      started.set(key, String(input.input));
      return answer(res, 200, { executionArn: `${arn.replace(":stateMachine:", ":execution:")}:${name}`, startDate: Date.now() / 1000 });
    }
    if (operation === "SendTaskSuccess") {
      tokensSent.push(String(input.taskToken));
      return answer(res, 200, {});
    }
    return answer(res, 400, { __type: "UnknownOperationException", message: `${operation} is not served by the bench` });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    started,
    tokensSent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
