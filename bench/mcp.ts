import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ProcessStep } from "../lib/core/domain/records";
import { issueMcpBearer } from "../lib/mcp/bearer";
import { functionUrlHandler, plainFunctionUrlHandler } from "../lib/mcp/function-url";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { FreeeConnectionStore } from "../lib/store/freee-connections";
import { createTableInput } from "../lib/store/table";
import { TaskStore } from "../lib/store/task-store";
import { LocalTokenCipher } from "../lib/store/token-cipher";
import { createFreeeMcpHandlerFromEnv } from "../wiring/freee-mcp";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee, type RecordedRequest } from "../dev/fakes/freee/fake-freee";
import { seedExecution, serveFunctionUrl } from "../test/mcp/harness";
import { createForwarder, FORWARD_TOOL, type ForwardedRequest } from "./mcp-forwarder";
import { ratio, round } from "./stats";
import type { CountingDynamo } from "./dynamo";
import { stats, watchWait, type LatencyStats } from "./warm";

/**
 * The agent's path: each tool call a Managed Agents session makes waits on our freee MCP server. Ours runs as it
 * ships (wiring/freee-mcp.ts from the environment, the Function URL adapter, DynamoDB Local, every check on)
 * against the naive forwarder of bench/mcp-forwarder.ts, both served on 127.0.0.1 by the same Function URL
 * adapter and both calling the same strict freee fake with the same freee request. The agent is the official
 * SDK client; one call is awaited at a time, ours and the forwarder's alternating.
 */
export interface McpSide {
  ours: LatencyStats;
  forwarder: LatencyStats;
  p50Ratio: number;
  p99Ratio: number;
  /** DynamoDB requests one call of ours sends (the forwarder sends none), mean of the timed calls. */
  dynamoRequests: number;
  /** Of each call of ours, the time waiting on DynamoDB's answers; and the call without it, against the forwarder. */
  dynamoWait: LatencyStats;
  withoutDynamoWait: LatencyStats;
  withoutDynamoWaitP99Ratio: number;
  /** One more call of ours through the counting proxy (bench/dynamo.ts), untimed: what each request reads or writes. */
  dynamoRequestsByItem: Record<string, number>;
}

export interface McpResult {
  read: McpSide;
  write: McpSide;
  /** The tools called: ours by name with the approved input, the forwarder with the freee request ours sent. */
  tools: { read: string; write: string };
  writesPerExecution: number;
}

const TEAM = "TBENCHMCP";
const SECRET = "bench-mcp-bearer-secret-0123456789abcdef";
const READ_TOOL = "freee_hr_list_employees";
const READ_INPUT = { year: 2026, month: 1 };
const WRITE_TOOL = "freee_accounting_create_deal";
/** Each write step runs once per Task (the write ledger): a run's Process holds this many, each its own deal. */
const WRITES_PER_EXECUTION = 10;
const deal = (n: number) => ({ issue_date: "2026-12-03", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 1000 + n }] });
const STEPS: ProcessStep[] = [
  { stepId: "r1", order: 1, tool: READ_TOOL, effect: "read", toolInput: READ_INPUT },
  ...Array.from({ length: WRITES_PER_EXECUTION }, (_, i): ProcessStep => ({ stepId: `w${i + 1}`, order: i + 2, tool: WRITE_TOOL, effect: "write", toolInput: deal(i) })),
];

export async function measureMcp(options: { requests: number; warmup: number; dynamo: CountingDynamo }): Promise<McpResult> {
  const total = options.requests + options.warmup;
  // Timed against DynamoDB Local itself: the counting proxy's hop in this process would be timed as ours.
  const endpoint = options.dynamo.directEndpoint;
  const tableName = `bench-mcp-${process.pid}-${Date.now()}`;
  const local = { AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local" };
  const raw = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    await raw.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    raw.destroy();
  }
  const fake = await startFakeFreee();
  // The server's loggers read the level from the process (the warm bench's settings are gone by now).
  process.env.LOG_LEVEL = "SILENT";
  const tokenKey = randomBytes(32).toString("base64");
  const env = {
    ...local,
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    MCP_BEARER_SECRET: SECRET,
    FREEE_CLIENT_ID: FAKE_CLIENT_ID,
    FREEE_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    FREEE_API_BASE_URL: fake.url,
    FREEE_OAUTH_BASE_URL: fake.url,
    FREEE_TOKEN_LOCAL_KEY: tokenKey,
    SLACK_BOT_TOKEN: "xoxb-bench",
    LOG_LEVEL: "SILENT",
  };
  const doc = createDocumentClient(env);
  const store = new TaskStore(doc, tableName);
  const pair = fake.issueTokens();
  await new FreeeConnectionStore(doc, tableName, new LocalTokenCipher(tokenKey)).save({
    teamId: TEAM,
    tokens: { ...pair, accessTokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString(), scope: "read write" },
    companyId: 101,
    companyName: "テスト株式会社",
    connectedBy: "U1",
  });
  const ours = await serveFunctionUrl(plainFunctionUrlHandler(await createFreeeMcpHandlerFromEnv(env)));
  const forwarder = await serveFunctionUrl(functionUrlHandler(createForwarder(fake.url, pair.accessToken)));
  const clients: Client[] = [];
  const connect = async (url: string, bearer?: string) => {
    const client = new Client({ name: "bench-agent", version: "1.0.0" });
    const headers: Record<string, string> = bearer === undefined ? {} : { authorization: `Bearer ${bearer}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  // A second instance of ours, through the counting proxy, for the breakdown by item.
  const counted = await serveFunctionUrl(plainFunctionUrlHandler(await createFreeeMcpHandlerFromEnv({ ...env, DYNAMODB_ENDPOINT: options.dynamo.endpoint })));
  const dynamo = watchWait(endpoint);
  try {
    // Seeded before timing: one run per WRITES_PER_EXECUTION writes (each write step runs once per Task).
    const runs = Math.ceil(total / WRITES_PER_EXECUTION);
    const agents: Client[] = [];
    for (let i = 0; i < runs; i++) {
      const { execution } = await seedExecution(store, TEAM, `1700000000.${String(i).padStart(6, "0")}`, STEPS);
      agents.push(await connect(ours.url, issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 3600 }, SECRET)));
    }
    const naive = await connect(forwarder.url);

    const side = () => ({ ours: [] as number[], forwarder: [] as number[], dynamo: [] as number[], wait: [] as number[] });
    const read = side();
    const write = side();
    let readRequest: ForwardedRequest | undefined;
    let writeRequest: ForwardedRequest | undefined;
    const timeOurs = async (into: ReturnType<typeof side>, agent: Client, name: string, args: Record<string, unknown>, timed: boolean) => {
      dynamo.reset();
      const t0 = performance.now();
      const result = (await agent.callTool({ name, arguments: args })) as CallToolResult;
      const ms = performance.now() - t0;
      if (result.isError === true) throw new Error(`bench mcp: our ${name} answered an error: ${textOf(result).slice(0, 300)}`);
      if (timed) {
        into.ours.push(ms);
        into.dynamo.push(dynamo.count());
        into.wait.push(dynamo.total());
      }
    };
    const timeForwarder = async (into: ReturnType<typeof side>, request: ForwardedRequest, timed: boolean) => {
      const t0 = performance.now();
      const result = (await naive.callTool({ name: FORWARD_TOOL, arguments: { ...request } })) as CallToolResult;
      const ms = performance.now() - t0;
      if (result.isError === true) throw new Error(`bench mcp: the forwarder's ${request.method} ${request.path} answered an error: ${textOf(result).slice(0, 300)}`);
      if (timed) into.forwarder.push(ms);
    };
    for (let i = 0; i < total; i++) {
      const timed = i >= options.warmup;
      const agent = agents[Math.floor(i / WRITES_PER_EXECUTION)]!;
      await timeOurs(read, agent, READ_TOOL, READ_INPUT, timed);
      // The forwarder sends what ours sent to freee for the same call (taken from the fake's log once).
      readRequest ??= forwarded(lastApiRequest(fake, "GET"));
      await timeForwarder(read, readRequest, timed);
      await timeOurs(write, agent, WRITE_TOOL, deal(i % WRITES_PER_EXECUTION), timed);
      writeRequest ??= forwarded(lastApiRequest(fake, "POST"));
      await timeForwarder(write, writeRequest, timed);
    }
    const { execution } = await seedExecution(store, TEAM, "1700000001.000000", STEPS);
    const countedAgent = await connect(counted.url, issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 3600 }, SECRET));
    const byItem = async (name: string, args: Record<string, unknown>) => {
      options.dynamo.reset();
      const result = (await countedAgent.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError === true) throw new Error(`bench mcp: the counted ${name} answered an error: ${textOf(result).slice(0, 300)}`);
      return { ...options.dynamo.byItem };
    };
    const readByItem = await byItem(READ_TOOL, READ_INPUT);
    const writeByItem = await byItem(WRITE_TOOL, deal(0));
    return { read: summarise(read, readByItem), write: summarise(write, writeByItem), tools: { read: READ_TOOL, write: WRITE_TOOL }, writesPerExecution: WRITES_PER_EXECUTION };
  } finally {
    dynamo.stop();
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([ours.close(), forwarder.close(), counted.close()]);
    await fake.stop();
    doc.destroy();
  }
}

function summarise(s: { ours: number[]; forwarder: number[]; dynamo: number[]; wait: number[] }, dynamoRequestsByItem: Record<string, number>): McpSide {
  const ours = stats(s.ours);
  const forwarder = stats(s.forwarder);
  const without = stats(s.ours.map((ms, i) => ms - s.wait[i]!));
  return {
    ours,
    forwarder,
    p50Ratio: ratio(ours.p50Ms, forwarder.p50Ms),
    p99Ratio: ratio(ours.p99Ms, forwarder.p99Ms),
    dynamoRequests: round(s.dynamo.reduce((a, b) => a + b, 0) / s.dynamo.length, 2),
    dynamoWait: stats(s.wait),
    withoutDynamoWait: without,
    withoutDynamoWaitP99Ratio: ratio(without.p99Ms, forwarder.p99Ms),
    dynamoRequestsByItem,
  };
}

function lastApiRequest(fake: FakeFreee, method: string): RecordedRequest {
  const found = [...fake.requests].reverse().find((r) => r.api !== undefined && r.method === method);
  if (found === undefined) throw new Error(`bench mcp: our server sent freee no ${method}`);
  return found;
}

function forwarded(r: RecordedRequest): ForwardedRequest {
  return { method: r.method, path: r.path, ...(Object.keys(r.query).length === 0 ? {} : { query: r.query }), ...(r.body === undefined || r.body === null ? {} : { body: r.body }) };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
