import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WriteOnceLedger } from "../../lib/mcp/write-once";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { issueMcpBearer } from "../../lib/agent/mcp-bearer";
import { AuditLog } from "../../lib/audit/audit-log";
import { FreeeClient } from "../../lib/freee/client";
import type { FreeeConnectionStore } from "../../lib/freee/connection-store";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { functionUrlHandler } from "../../lib/mcp/function-url";
import { createFreeeMcpHandler } from "../../lib/mcp/server";
import { createLogger } from "../../lib/observability/logger";
import { TaskStore } from "../../lib/store/task-store";
import { FREEE_TOOLS } from "../../lib/tools/registry";
import { startTestTable, type TestTable } from "../support/dynamo";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../support/fake-freee";
import { connect, makeStore } from "../freee/helpers";
import { seedExecution, serveFunctionUrl } from "./harness";

const SECRET = "mcp-bearer-secret-for-tests-0123456789abcdef";
const TEAM = "TMCP";

let table: TestTable;
let fake: FakeFreee;
let store: TaskStore;
let connections: FreeeConnectionStore;
let server: { url: string; close(): Promise<void> };
let clients: Client[] = [];
let seq = 0;

beforeAll(async () => {
  table = await startTestTable();
  fake = await startFakeFreee();
  store = new TaskStore(table.doc, table.tableName);
  connections = makeStore(table);
  await connect(connections, fake, TEAM);
  const logger = createLogger("freee-mcp-test");
  const tokenEndpoint = new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET });
  const handle = createFreeeMcpHandler({
    taskStore: store,
    audit: new AuditLog(store, logger),
    logger,
    bearerSecret: async () => SECRET,
    writes: new WriteOnceLedger(table.doc, table.tableName),
    freeeClient: (teamId) =>
      new FreeeClient({ teamId, store: connections, tokenEndpoint, apiBaseUrl: fake.url, logger, sleep: async () => {} }),
  });
  server = await serveFunctionUrl(functionUrlHandler(handle));
});
afterAll(async () => {
  await server.close();
  await fake.stop();
  await table.close();
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const readSteps = [
  { stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 1 } },
  { stepId: "s2", order: 2, tool: "freee_accounting_create_deal", toolInput: {} },
];

async function newExecution(steps = readSteps, status: "running" | "completed" = "running") {
  const { task, execution } = await seedExecution(store, TEAM, `1700000000.${String(++seq).padStart(6, "0")}`, steps, status);
  const bearer = issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 600 }, SECRET);
  return { task, execution, bearer };
}

async function mcpClient(bearer: string): Promise<Client> {
  const client = new Client({ name: "managed-agents-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("freee MCP server over Streamable HTTP (MCP SDK client)", () => {
  it("lists the registry's tools with their Japanese descriptions and input schemas", async () => {
    const { bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(FREEE_TOOLS.map((t) => t.name).sort());
    const list = tools.find((t) => t.name === "freee_hr_list_employees")!;
    expect(list.description).toBe("指定した年月に在籍する従業員の一覧を取得します（人事労務 API）。");
    expect(list.inputSchema.required).toEqual(expect.arrayContaining(["year", "month"]));
    expect(list.annotations?.readOnlyHint).toBe(true);
  });

  it("calls an approved tool: freee gets the mapped request with the connected company, and the call is audited", async () => {
    const { task, execution, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const before = fake.apiRequests("/hr/api/v1/employees").length;
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ employees: [{ id: 1 }, { id: 2 }] });
    const calls = fake.apiRequests("/hr/api/v1/employees");
    expect(calls.length).toBe(before + 1);
    expect(calls.at(-1)!.query).toEqual({ company_id: "101", year: "2026", month: "1" });

    const { audit } = await store.loadHistory(task.taskId);
    const actions = audit.map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["freee.tool_called", "freee.tool_completed"]));
    const called = audit.find((a) => a.action === "freee.tool_called")!;
    expect(called.auditKey).toContain(execution.executionId);
    expect(called.details).toMatchObject({ tool: "freee_hr_list_employees", input: { year: 2026, month: 1 } });
    expect(audit.find((a) => a.action === "freee.tool_completed")!.details).toMatchObject({ status: 200, path: "/hr/api/v1/employees" });
  });

  it("a write tool sends its mapped body", async () => {
    const { bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const result = await client.callTool({
      name: "freee_accounting_create_deal",
      arguments: { issue_date: "2026-01-10", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 1200 }] },
    });
    expect(result.isError).toBeFalsy();
    const post = fake.apiRequests("/api/1/deals").filter((r) => r.method === "POST").at(-1)!;
    expect(post.body).toEqual({ company_id: 101, issue_date: "2026-01-10", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 1200 }] });
  });

  it("the same write asked twice in one run reaches freee once; the repeat gets the first result back, audited", async () => {
    const { task, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const deal = { issue_date: "2026-01-11", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 3300 }] };
    const posts = () => fake.apiRequests("/api/1/deals").filter((r) => r.method === "POST" && (r.body as { issue_date?: string }).issue_date === "2026-01-11");
    const first = await client.callTool({ name: "freee_accounting_create_deal", arguments: deal });
    // Same input, keys in another order: still the same write.
    const again = await client.callTool({ name: "freee_accounting_create_deal", arguments: { details: deal.details, type: "expense", issue_date: "2026-01-11" } });
    expect(first.isError).toBeFalsy();
    expect(again.isError).toBeFalsy();
    expect(posts()).toHaveLength(1);
    expect(JSON.stringify(again.content)).toContain("すでに完了しています");
    const actions = (await store.loadHistory(task.taskId)).audit.map((a) => a.action);
    expect(actions).toContain("freee.tool_deduplicated");
    // A different input is a different write.
    await client.callTool({ name: "freee_accounting_create_deal", arguments: { ...deal, details: [{ ...deal.details[0]!, amount: 4400 }] } });
    expect(posts()).toHaveLength(2);
  });

  it("a write freee refused is released: the agent may try it again", async () => {
    const { bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const deal = { issue_date: "2026-01-12", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 100 }] };
    fake.fail({ method: "POST", path: "/api/1/deals" }, { status: 400, body: { status_code: 400, errors: [{ type: "validation", messages: ["勘定科目が不正です"] }] } });
    expect((await client.callTool({ name: "freee_accounting_create_deal", arguments: deal })).isError).toBe(true);
    expect((await client.callTool({ name: "freee_accounting_create_deal", arguments: deal })).isError).toBeFalsy();
  });

  it("refuses a tool outside the execution's approved list (isError) and audits the refusal; freee is not called", async () => {
    const { task, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const before = fake.apiRequests().length;
    const result = await client.callTool({ name: "freee_hr_update_basic_pay_rule", arguments: { year: 2026, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("承認済みステップに含まれていない");
    expect(fake.apiRequests().length).toBe(before);
    const { audit } = await store.loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_refused")!.details).toMatchObject({ tool: "freee_hr_update_basic_pay_rule", reason: "not_approved" });
  });

  it("agent_decide steps allow the read-only tools only", async () => {
    const { bearer } = await newExecution([{ stepId: "s1", order: 1, tool: "agent_decide", toolInput: {} }]);
    const client = await mcpClient(bearer);
    const read = await client.callTool({ name: "freee_accounting_list_partners", arguments: {} });
    expect(read.isError).toBeFalsy();
    const write = await client.callTool({ name: "freee_accounting_create_deal", arguments: { issue_date: "2026-01-10", type: "expense", details: [{ account_item_id: 21, tax_code: 1, amount: 1 }] } });
    expect(write.isError).toBe(true);
  });

  it("freee 404 becomes error text for the agent (isError), audited as freee.tool_failed", async () => {
    const { task, bearer } = await newExecution([{ stepId: "s1", order: 1, tool: "freee_hr_get_employee", toolInput: {} }]);
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_get_employee", arguments: { year: 2026, month: 1, employee_id: 404 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("見つかりません (404)");
    expect(text(result)).toContain("従業員が見つかりません");
    const { audit } = await store.loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_failed")!.details).toMatchObject({ status: 404, kind: "not_found" });
  });

  it("freee 5xx ×4 becomes error text (retries exhausted), audited with the error class", async () => {
    const { task, bearer } = await newExecution();
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 502 }, 4);
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("一時的に応答しません");
    const { audit } = await store.loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_failed")!.details).toMatchObject({ errorType: "UpstreamServerError" });
  });

  it("a finished execution may call nothing", async () => {
    const { bearer } = await newExecution(readSteps, "completed");
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("終了しています");
  });
});

describe("bearer authentication", () => {
  const initialize = (authorization?: string) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
    });

  it("missing or bad bearer → HTTP 401", async () => {
    const { execution } = await newExecution();
    expect((await initialize()).status).toBe(401);
    expect((await initialize("Bearer not-a-token")).status).toBe(401);
    const otherSecret = issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 600 }, "another-secret-that-is-long-enough-000000");
    const res = await initialize(`Bearer ${otherSecret}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("invalid_token");
    const expired = issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 1, now: new Date(Date.now() - 60_000) }, SECRET);
    expect((await initialize(`Bearer ${expired}`)).status).toBe(401);
  });

  it("the MCP SDK client fails to connect with a bad bearer", async () => {
    const client = new Client({ name: "x", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: "Bearer mcp1.bad.sig" } } });
    await expect(client.connect(transport)).rejects.toThrow();
  });

  it("a valid bearer of another workspace cannot reach this workspace's execution → 403", async () => {
    const { execution } = await newExecution();
    const foreign = issueMcpBearer({ teamId: "TOTHER", executionId: execution.executionId, ttlSeconds: 600 }, SECRET);
    expect((await initialize(`Bearer ${foreign}`)).status).toBe(403);
  });

  it("a valid bearer with a good execution: initialize answers 200 JSON", async () => {
    const { bearer } = await newExecution();
    const res = await initialize(`Bearer ${bearer}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: { serverInfo: { name: "freee" } } });
  });
});
