import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueMcpBearer } from "../../lib/mcp/bearer";
import type { ProcessStep } from "../../lib/core/domain/records";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { writeMarker } from "../../lib/freee/write-reconciler";
import { FreeeAuthMessages } from "../../lib/core/messages/ja";
import { FREEE_TOOLS } from "../../lib/freee/tools/registry";
import { SECRET, startMcpStack, TEAM, text, type McpStack } from "./stack";

let stack: McpStack;
beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => stack.close());

const DEAL = { issue_date: "2026-01-10", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 1200 }] };
const readSteps: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_list_employees", effect: "read", toolInput: { year: 2026, month: 1 } },
  { stepId: "s2", order: 2, tool: "freee_accounting_create_deal", effect: "write", toolInput: DEAL },
];

async function newExecution(steps = readSteps, status: "running" | "completed" = "running") {
  const { taskId, execution, bearer } = await stack.newExecution(steps, status);
  return { task: { taskId }, execution, bearer };
}
const mcpClient = (bearer: string) => stack.agent(bearer);
const fake = () => stack.fake;
const store = () => stack.store;

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
    const before = fake().apiRequests("/hr/api/v1/employees").length;
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ employees: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] });
    const calls = fake().apiRequests("/hr/api/v1/employees");
    expect(calls.length).toBe(before + 1);
    expect(calls.at(-1)!.query).toEqual({ company_id: "101", year: "2026", month: "1" });

    const { audit } = await store().loadHistory(task.taskId);
    const actions = audit.map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["freee.tool_called", "freee.tool_completed"]));
    const called = audit.find((a) => a.action === "freee.tool_called")!;
    expect(called.auditKey).toContain(execution.executionId);
    expect(called.details).toMatchObject({ tool: "freee_hr_list_employees", input: { year: 2026, month: 1 } });
    expect(audit.find((a) => a.action === "freee.tool_completed")!.details).toMatchObject({ status: 200, path: "/hr/api/v1/employees" });
  });

  it("an approved write sends its mapped body: the connected company, the step's marker as 管理番号", async () => {
    const { task, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL });
    expect(result.isError).toBeFalsy();
    const post = fake().apiRequests("/api/1/deals").filter((r) => r.method === "POST").at(-1)!;
    const marker = writeMarker({ taskId: task.taskId, processVersion: 1, stepId: "s2" });
    expect(post.body).toEqual({ company_id: 101, ...DEAL, ref_number: marker });
    expect(marker).toBe(`sma:${task.taskId}:p1:s2`);
    const record = await stack.ledger.get({ taskId: task.taskId, processVersion: 1, stepId: "s2" });
    expect(record).toMatchObject({ state: "done", how: "written", executionId: `${task.taskId}-e1` });
  });

  it("the approved write asked again reaches freee once; the repeat is refused with the first result, audited", async () => {
    const { task, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const posts = () => fake().apiRequests("/api/1/deals").filter((r) => r.method === "POST" && (r.body as { ref_number?: string }).ref_number?.includes(task.taskId));
    const first = await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL });
    // Same input, keys in another order: still the same write.
    const again = await client.callTool({ name: "freee_accounting_create_deal", arguments: { details: DEAL.details, type: "expense", issue_date: DEAL.issue_date } });
    expect(first.isError).toBeFalsy();
    expect(again.isError).toBe(true);
    expect(posts()).toHaveLength(1);
    expect(text(again)).toContain("すでに完了しています");
    expect(text(again)).toContain(text(first));
    const refused = (await store().loadHistory(task.taskId)).audit.find((a) => a.action === "freee.tool_refused");
    expect(refused!.details).toMatchObject({ reason: "step_already_done", completedBy: `${task.taskId}-e1` });
  });

  it("two identical approved writes are two steps: each runs once, a third call is refused", async () => {
    const { task, bearer } = await newExecution([
      { stepId: "s1", order: 1, tool: "freee_accounting_create_deal", effect: "write", toolInput: DEAL },
      { stepId: "s2", order: 2, tool: "freee_accounting_create_deal", effect: "write", toolInput: DEAL },
    ]);
    const client = await mcpClient(bearer);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL }));
    expect(results.map((r) => r.isError === true)).toEqual([false, false, true]);
    expect(fake().company(101).deals.filter((d) => String(d.ref_number).startsWith(`sma:${task.taskId}:`)).map((d) => d.ref_number)).toEqual([
      `sma:${task.taskId}:p1:s1`,
      `sma:${task.taskId}:p1:s2`,
    ]);
  });

  it("a write freee refused (4xx) is released: it may be tried again", async () => {
    const { task, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    fake().fail({ method: "POST", path: "/api/1/deals" }, { status: 400, body: { status_code: 400, errors: [{ type: "validation", messages: ["勘定科目が不正です"] }] } });
    const refused = await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("勘定科目が不正です");
    expect(await stack.ledger.get({ taskId: task.taskId, processVersion: 1, stepId: "s2" })).toBeUndefined();
    expect((await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL })).isError).toBeFalsy();
  });

  it("freee's error text is redacted before the agent reads it (a header freee echoed back)", async () => {
    const { bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const echoed = "Authorization: Bearer onlylettersaccesstoken";
    fake().fail({ method: "POST", path: "/api/1/deals" }, { status: 400, body: { status_code: 400, errors: [{ type: "validation", messages: ["勘定科目が不正です", `received ${echoed}`, 'header "authorization":"bearer abcdefghij"'] }] } });
    const refused = await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("勘定科目が不正です");
    expect(text(refused)).not.toContain("onlylettersaccesstoken");
    expect(text(refused)).not.toContain("abcdefghij");
    expect(text(refused)).toContain("[REDACTED]");
  });

  it("refuses a tool outside the execution's approved list (isError) and audits the refusal; freee is not called", async () => {
    const { task, bearer } = await newExecution();
    const client = await mcpClient(bearer);
    const before = fake().requests.length;
    const result = await client.callTool({ name: "freee_hr_update_basic_pay_rule", arguments: { year: 2026, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("承認済みステップに含まれていない");
    expect(fake().requests.length).toBe(before);
    const { audit } = await store().loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_refused")!.details).toMatchObject({ tool: "freee_hr_update_basic_pay_rule", reason: "not_approved" });
  });

  it("an agent_decide step may use the read tools its scope names, nothing else, and never write", async () => {
    const { bearer } = await newExecution([
      { stepId: "s1", order: 1, tool: "agent_decide", effect: "read", toolInput: { instruction: "取引先を確認する" }, readScope: { tools: ["freee_accounting_list_partners"] } },
    ]);
    const client = await mcpClient(bearer);
    expect((await client.callTool({ name: "freee_accounting_list_partners", arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: "freee_accounting_list_account_items", arguments: {} })).isError).toBe(true);
    expect((await client.callTool({ name: "freee_accounting_create_deal", arguments: DEAL })).isError).toBe(true);
  });

  it("an agent_decide step recorded before read scopes (no readScope) may read nothing", async () => {
    const { bearer } = await newExecution([{ stepId: "s1", order: 1, tool: "agent_decide", toolInput: { instruction: "判断する" } }]);
    const client = await mcpClient(bearer);
    const before = fake().requests.length;
    const result = await client.callTool({ name: "freee_accounting_list_partners", arguments: {} });
    expect(result.isError).toBe(true);
    expect(fake().requests.length).toBe(before);
  });

  it("freee 404 becomes error text for the agent (isError), audited as freee.tool_failed", async () => {
    const { task, bearer } = await newExecution([{ stepId: "s1", order: 1, tool: "freee_hr_get_employee", effect: "read", toolInput: { year: 2026, month: 1, employee_id: 404 } }]);
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_get_employee", arguments: { year: 2026, month: 1, employee_id: 404 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("見つかりません (404)");
    expect(text(result)).toContain("従業員が見つかりません");
    const { audit } = await store().loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_failed")!.details).toMatchObject({ status: 404, kind: "not_found" });
  });

  it("freee 5xx ×4 becomes error text (retries exhausted), audited with the error class", async () => {
    const { task, bearer } = await newExecution();
    fake().fail({ path: "/hr/api/v1/employees" }, { status: 502 }, 4);
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("一時的に応答しません");
    const { audit } = await store().loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_failed")!.details).toMatchObject({ errorType: "UpstreamServerError" });
  });

  it("freee 401 company_not_found reaches the agent as its own Japanese text (not 'reconnect'), no refresh spent, audited with the reason", async () => {
    const { task, bearer } = await newExecution();
    const refreshesBefore = fake().refreshCalls;
    fake().fail({ path: "/hr/api/v1/employees" }, { status: 401, body: { message: "存在しないかすでに削除された事業所です。", code: "company_not_found" } });
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(FreeeAuthMessages.company_not_found);
    expect(fake().refreshCalls).toBe(refreshesBefore);
    const { audit } = await store().loadHistory(task.taskId);
    expect(audit.find((a) => a.action === "freee.tool_failed")!.details).toMatchObject({ errorType: "AuthError", errorDetails: { reason: "company_not_found" } });
  });

  it("a finished execution may call nothing", async () => {
    const { bearer } = await newExecution(readSteps, "completed");
    const client = await mcpClient(bearer);
    const result = await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("終了しています");
  });

  it("tools/list shows no company_id: the server chooses the company", async () => {
    const { bearer } = await newExecution();
    const { tools } = await (await mcpClient(bearer)).listTools();
    for (const tool of tools) expect(Object.keys((tool.inputSchema.properties ?? {}) as object)).not.toContain("company_id");
    expect(tools.find((t) => t.name === "freee_accounting_create_deal")!.inputSchema).toMatchObject({ additionalProperties: false });
  });
});

describe("bearer authentication", () => {
  const initialize = (authorization?: string) =>
    fetch(`${stack.url}/mcp`, {
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
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: { authorization: "Bearer mcp1.bad.sig" } } });
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
