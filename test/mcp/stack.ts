import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { issueMcpBearer } from "../../lib/mcp/bearer";
import { AuditLog } from "../../lib/store/audit-log";
import type { AuditEntry, Execution, ProcessStep, SlackFileRef } from "../../lib/core/domain/records";
import type { ToolCallDeps } from "../../lib/mcp/call-context";
import { FreeeClient, type FreeeClientOptions } from "../../lib/freee/client";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { plainFunctionUrlHandler } from "../../lib/mcp/function-url";
import { createFreeeMcpHandler } from "../../lib/mcp/server";
import { WriteOnceLedger } from "../../lib/store/write-ledger";
import { createLogger } from "../../lib/core/observability/logger";
import { TaskStore } from "../../lib/store/task-store";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { startTestTable, type TestTable } from "../support/dynamo";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { connect, makeStore, pendingOf } from "../freee/helpers";
import { seedExecution, serveFunctionUrl } from "./harness";

/**
 * The freee MCP server as it ships, at its real boundaries: the Function URL handler on 127.0.0.1, the table on
 * DynamoDB Local, the strict freee fake (dev/fakes/freee: requests checked against freee's OpenAPI schemas, stateful
 * companies 101 and 202, both reachable with the workspace's token — so "another company" is a real target), and
 * the official MCP SDK client with a valid bearer as the agent. The workspace is connected to company 101.
 */
export const SECRET = "mcp-bearer-secret-for-tests-0123456789abcdef";
export const TEAM = "TMCP";

export interface McpStack {
  /** Base URL of the MCP Function URL server. */
  url: string;
  table: TestTable;
  fake: FakeFreee;
  store: TaskStore;
  ledger: WriteOnceLedger;
  connections: FreeeConnectionStore;
  /** Metrics the server counted, in order. */
  counted: Array<{ metric: "toolRefused" | "writeOutcomeUnknown"; value: string }>;
  /** The deals of company `companyId` (101 is the connected one) whose 管理番号 is `marker`. */
  dealsWithRef(marker: string, companyId?: number): Record<string, unknown>[];
  /** Waits before a read back, as the server asked for them. */
  reconcileWaits: number[];
  /** Runs before each Execution read the MCP server makes (n = 1, 2, … per test): lets a cancel land mid-call. */
  beforeExecutionRead: ((n: number) => Promise<void>) | undefined;
  /** Runs before each write claim the MCP server makes (n = 1, 2, … per test): lets a cancel land right before it. */
  beforeClaim: ((n: number) => Promise<void>) | undefined;
  newExecution(steps: ProcessStep[], status?: "running" | "completed", attachments?: SlackFileRef[]): Promise<{ taskId: string; execution: Execution; bearer: string }>;
  /** Execution n+1 of the same task and approved Process (a rerun): running, with its own bearer. */
  rerun(taskId: string, executionNo: number): Promise<{ execution: Execution; bearer: string }>;
  agent(bearer: string): Promise<Client>;
  audit(taskId: string): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

export interface McpStackOptions {
  client?: Partial<FreeeClientOptions>;
  inFlightLeaseMs?: number;
  reconcileDelayMs?: number;
  reconcileBudgetMs?: number;
  /** By default the server's waits before a read back are recorded, not waited. */
  reconcileWaitsForReal?: boolean;
  /** Where a file-box upload fetches the request's file (lib/mcp/slack-files.ts). */
  slackFiles?: ToolCallDeps["slackFiles"];
  /** The write ledger's DynamoDB endpoint (a fault proxy in front of DynamoDB Local); the table's own by default. */
  ledgerEndpoint?: string;
}

export async function startMcpStack(options: McpStackOptions = {}): Promise<McpStack> {
  const table = await startTestTable();
  const fake = await startFakeFreee();
  const store = new TaskStore(table.doc, table.tableName);
  const connections = makeStore(table);
  await connect(connections, fake, TEAM);
  const logger = createLogger("freee-mcp-test");
  const tokenEndpoint = new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET });
  const ledger = new WriteOnceLedger(table.doc, table.tableName);
  const serverLedger = options.ledgerEndpoint === undefined ? ledger : new WriteOnceLedger(createDocumentClient({ ...table.env, DYNAMODB_ENDPOINT: options.ledgerEndpoint }), table.tableName);
  const counted: McpStack["counted"] = [];
  const reconcileWaits: number[] = [];
  let executionReads = 0;
  let claims = 0;
  const observedStore = {
    getTask: store.getTask.bind(store),
    getVersion: store.getVersion.bind(store) as TaskStore["getVersion"],
    recordRunFault: store.recordRunFault.bind(store),
    getExecution: async (taskId: string, executionNo: number) => {
      await stack.beforeExecutionRead?.(++executionReads);
      return store.getExecution(taskId, executionNo);
    },
  };
  const handle = createFreeeMcpHandler({
    taskStore: observedStore,
    audit: new AuditLog(store, logger),
    logger,
    bearerSecret: async () => SECRET,
    writes: {
      claim: async (...args: Parameters<WriteOnceLedger["claim"]>) => {
        await stack.beforeClaim?.(++claims);
        return serverLedger.claim(...args);
      },
      takeOver: serverLedger.takeOver.bind(serverLedger),
      complete: serverLedger.complete.bind(serverLedger),
      markUnknown: serverLedger.markUnknown.bind(serverLedger),
      release: serverLedger.release.bind(serverLedger),
    },
    ...(options.slackFiles === undefined ? {} : { slackFiles: options.slackFiles }),
    metrics: {
      toolRefused: (value) => counted.push({ metric: "toolRefused", value }),
      writeOutcomeUnknown: (value) => counted.push({ metric: "writeOutcomeUnknown", value }),
    },
    sleep: async (ms) => {
      reconcileWaits.push(ms);
      if (options.reconcileWaitsForReal === true) await new Promise((r) => setTimeout(r, ms));
    },
    ...(options.inFlightLeaseMs === undefined ? {} : { inFlightLeaseMs: options.inFlightLeaseMs }),
    ...(options.reconcileDelayMs === undefined ? {} : { reconcileDelayMs: options.reconcileDelayMs }),
    ...(options.reconcileBudgetMs === undefined ? {} : { reconcileBudgetMs: options.reconcileBudgetMs }),
    freeeClient: (teamId) =>
      new FreeeClient({ teamId, store: connections, pending: pendingOf(connections), tokenEndpoint, apiBaseUrl: fake.url, logger, sleep: async () => {}, ...options.client }),
  });
  const server = await serveFunctionUrl(plainFunctionUrlHandler(handle));
  const clients: Client[] = [];
  let seq = 0;
  const bearerFor = (executionId: string) => issueMcpBearer({ teamId: TEAM, executionId, ttlSeconds: 600 }, SECRET);
  const stack: McpStack = {
    beforeExecutionRead: undefined,
    beforeClaim: undefined,
    url: server.url,
    table,
    fake,
    store,
    ledger,
    connections,
    counted,
    reconcileWaits,
    dealsWithRef: (marker, companyId = 101) => fake.company(companyId).deals.filter((d) => d.ref_number === marker),
    async newExecution(steps, status = "running", attachments) {
      const { task, execution } = await seedExecution(store, TEAM, `1700000000.${String(++seq).padStart(6, "0")}`, steps, status, attachments);
      return { taskId: task.taskId, execution, bearer: bearerFor(execution.executionId) };
    },
    async rerun(taskId, executionNo) {
      const first = await store.getExecution(taskId, 1);
      await store.createExecution(taskId, { executionNo, processVersion: 1, startedBy: "U1", ...(first?.company === undefined ? {} : { company: first.company }) });
      const { record } = await store.transitionExecution(taskId, executionNo, "running");
      return { execution: record, bearer: bearerFor(record.executionId) };
    },
    async agent(bearer) {
      const client = new Client({ name: "scripted-agent", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
      clients.push(client);
      return client;
    },
    async audit(taskId) {
      return (await store.loadHistory(taskId)).audit;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await fake.stop();
      await table.close();
    },
  };
  return stack;
}

export function text(result: unknown): string {
  return (result as CallToolResult).content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
