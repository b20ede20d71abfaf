import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import type { RefusalReason } from "../../lib/mcp/refusals";
import { buildLedger } from "../../lib/store/ledger";
import { startMcpStack, text, type McpStack } from "./stack";

/**
 * An adversarial agent: it holds a valid bearer for a running Execution whose approved
 * Process is "read the employees, look one up, set employee 1's basic pay to 300,000 yen from 2027-01, record one
 * expense deal", and tries to do anything else. Each attempt must reach freee zero times, be refused as an MCP
 * tool error, be audited with its reason and be counted (metric and ledger).
 */
let stack: McpStack;
beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => stack.close());

const PAY = { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300000 };
const DEAL = { issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 4800000, description: "備品" }] };
const STEPS: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_list_employees", effect: "read", toolInput: { year: 2027, month: 1 } },
  {
    stepId: "s2",
    order: 2,
    tool: "agent_decide",
    effect: "read",
    toolInput: { instruction: "一覧から山田さんを確認する" },
    readScope: { tools: ["freee_hr_get_employee", "freee_api_get"], pathPrefixes: ["/hr/api/v1/employees", "/api/1/companies"] },
  },
  { stepId: "s3", order: 3, tool: "freee_hr_update_basic_pay_rule", effect: "write", toolInput: PAY },
  { stepId: "s4", order: 4, tool: "freee_accounting_create_deal", effect: "write", toolInput: DEAL },
];

async function running(): Promise<{ taskId: string; agent: Client; executionId: string }> {
  const { taskId, execution, bearer } = await stack.newExecution(STEPS);
  return { taskId, agent: await stack.agent(bearer), executionId: execution.executionId };
}

/** The call is refused without freee seeing a single request, audited with `reason`, counted, and in the ledger. */
async function expectRefused(taskId: string, agent: Client, call: { name: string; arguments: Record<string, unknown> }, reason: RefusalReason, says: string) {
  const before = stack.fake.requests.length;
  const countedBefore = stack.counted.filter((c) => c.value === reason).length;
  const result = await agent.callTool(call);
  expect(result.isError).toBe(true);
  expect(text(result)).toContain(says);
  expect(stack.fake.requests.length).toBe(before);
  const audit = await stack.audit(taskId);
  const refused = audit.filter((a) => a.action === "freee.tool_refused" && a.details.tool === call.name && a.details.reason === reason);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.at(-1)!.details.input).toEqual(call.arguments);
  expect(stack.counted.filter((c) => c.metric === "toolRefused" && c.value === reason).length).toBe(countedBefore + 1);
  const ledger = buildLedger(audit, { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" });
  expect(ledger.refusalsByReason.find((r) => r.reason === reason)?.count).toBeGreaterThan(0);
}

const payCall = (input: Record<string, unknown>) => ({ name: "freee_hr_update_basic_pay_rule", arguments: input });

describe("an agent with a valid bearer cannot do what was not approved", () => {
  it("another employee: the approved pay change for employee 2 instead of 1", async () => {
    const { taskId, agent } = await running();
    await expectRefused(taskId, agent, payCall({ ...PAY, employee_id: 2 }), "input_mismatch", "承認済みの書き込みステップと一致しない");
    const refused = (await stack.audit(taskId)).find((a) => a.details.reason === "input_mismatch")!;
    expect(refused.details.differingKeys).toEqual(["employee_id"]);
  });

  it("another company: the approved write itself, with company_id of another company", async () => {
    const { taskId, agent } = await running();
    await expectRefused(taskId, agent, payCall({ ...PAY, company_id: 202 }), "company_mismatch", "company_id は指定できません");
    await expectRefused(taskId, agent, { name: "freee_hr_list_employees", arguments: { year: 2027, month: 1, company_id: "202" } }, "company_mismatch", "company_id");
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/hr/api/v1/employees", query: { company_id: 202 } } }, "company_mismatch", "company_id");
    // Inside the scope's /api/1/companies prefix, but another company's record.
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/api/1/companies/202" } }, "company_mismatch", "company_id");
  });

  it("another amount: 9,999,999 yen instead of the approved 300,000", async () => {
    const { taskId, agent } = await running();
    await expectRefused(taskId, agent, payCall({ ...PAY, pay_amount: 9999999 }), "input_mismatch", "承認済みの入力: [s3]");
    await expectRefused(taskId, agent, { name: "freee_accounting_create_deal", arguments: { ...DEAL, details: [{ ...DEAL.details[0], amount: 4800001 }] } }, "input_mismatch", "[s4]");
    // A key the approved step does not have is another write too.
    await expectRefused(taskId, agent, { name: "freee_accounting_create_deal", arguments: { ...DEAL, partner_id: 11 } }, "input_mismatch", "[s4]");
  });

  it("the approved write twice: freee sees it once, in this run and in a rerun", async () => {
    const { taskId, agent } = await running();
    const before = stack.fake.requests.length;
    const first = await agent.callTool(payCall(PAY));
    expect(first.isError).toBeFalsy();
    expect(stack.fake.requests.length).toBe(before + 1);
    await expectRefused(taskId, agent, payCall(PAY), "step_already_done", "すでに完了しています");
    // The same write spelled another way is still the same step: a numeric string, a float, the connected company.
    await expectRefused(taskId, agent, payCall({ ...PAY, pay_amount: "300000" }), "step_already_done", "すでに完了しています");
    await expectRefused(taskId, agent, payCall({ pay_amount: 300000.0, pay_calc_type: "monthly", employee_id: 1, month: 1, year: "2027", company_id: 101 }), "step_already_done", "ステップ s3");
    const rerun = await stack.rerun(taskId, 2);
    await expectRefused(taskId, await stack.agent(rerun.bearer), payCall(PAY), "step_already_done", "すでに完了しています");
  });

  it("a tool no step names, and a tool the server does not have", async () => {
    const { taskId, agent } = await running();
    await expectRefused(taskId, agent, { name: "freee_accounting_list_partners", arguments: {} }, "not_approved", "承認済みステップに含まれていない");
    await expectRefused(taskId, agent, { name: "freee_hr_update_work_record", arguments: { employee_id: 1, date: "2027-01-05", note: "x" } }, "not_approved", "承認済みステップに含まれていない");
    await expectRefused(taskId, agent, { name: "freee_delete_company", arguments: {} }, "unknown_tool", "ありません");
  });

  it("a read outside the agent_decide scope: a path under no prefix, a read tool the scope does not name", async () => {
    const { taskId, agent } = await running();
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/api/1/walletables" } }, "outside_read_scope", "許可された範囲の外");
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/hr/api/v1/users/me" } }, "outside_read_scope", "/hr/api/v1/employees");
    // A prefix covers whole path segments only.
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/hr/api/v1/employees_secret" } }, "outside_read_scope", "許可された範囲の外");
    await expectRefused(taskId, agent, { name: "freee_accounting_list_account_items", arguments: {} }, "not_approved", "承認済みステップに含まれていない");
    // Inside the scope, the same tool is served.
    const inside = await agent.callTool({ name: "freee_api_get", arguments: { path: "/hr/api/v1/employees/1", query: { year: 2027, month: 1 } } });
    expect(inside.isError).toBeFalsy();
  });

  it("a call after 中止 (the Execution is cancelled in the table)", async () => {
    const { taskId, agent } = await running();
    await stack.store.transitionExecution(taskId, 1, "cancelled", { from: ["running"], set: { cancelledBy: "U1", cancelledAt: new Date().toISOString() } });
    await expectRefused(taskId, agent, payCall(PAY), "execution_not_live", "状態: cancelled");
    await expectRefused(taskId, agent, { name: "freee_hr_list_employees", arguments: { year: 2027, month: 1 } }, "execution_not_live", "終了しています");
  });

  it("a 中止 after a served call: the warm server keeps the approved Process, never the run's status", async () => {
    const { taskId, agent } = await running();
    const served = await agent.callTool({ name: "freee_hr_list_employees", arguments: { year: 2027, month: 1 } });
    expect(served.isError).toBeFalsy();
    await stack.store.transitionExecution(taskId, 1, "cancelled", { from: ["running"], set: { cancelledBy: "U1", cancelledAt: new Date().toISOString() } });
    await expectRefused(taskId, agent, { name: "freee_hr_list_employees", arguments: { year: 2027, month: 1 } }, "execution_not_live", "終了しています");
  });

  it("a 中止 that lands while the write is being prepared: the claim is refused in its own transaction", async () => {
    const { taskId, agent } = await running();
    const freeeWrites = () => stack.fake.requests.filter((r) => r.method !== "GET").length;
    const writesBefore = freeeWrites();
    // The call's scope was read as running; right before the claim, the user cancels.
    stack.beforeClaim = async (n) => {
      if (n === 1) await stack.store.transitionExecution(taskId, 1, "cancelled", { from: ["running"], set: { cancelledBy: "U1", cancelledAt: new Date().toISOString() } });
    };
    try {
      await expectRefused(taskId, agent, payCall(PAY), "execution_not_live", "状態: cancelled");
    } finally {
      stack.beforeClaim = undefined;
    }
    // The step was not taken, so nothing holds it, and freee saw no write.
    expect(await stack.ledger.get({ taskId, processVersion: 1, stepId: "s3" })).toBeUndefined();
    expect(freeeWrites()).toBe(writesBefore);
  });

  it("a call after completion", async () => {
    const { taskId, agent } = await running();
    await stack.store.transitionExecution(taskId, 1, "completed", { from: ["running"] });
    await expectRefused(taskId, agent, payCall(PAY), "execution_not_live", "状態: completed");
  });

  it("a call after the run failed", async () => {
    const { taskId, agent } = await running();
    await stack.store.transitionExecution(taskId, 1, "failed", { from: ["running"], set: { errorName: "AgentRunFailedError" } });
    await expectRefused(taskId, agent, payCall(PAY), "execution_not_live", "状態: failed");
    await expectRefused(taskId, agent, { name: "freee_accounting_create_deal", arguments: DEAL }, "execution_not_live", "状態: failed");
  });

  it("input the tool's schema refuses is refused by us, audited (not only by the SDK)", async () => {
    const { taskId, agent } = await running();
    await expectRefused(taskId, agent, payCall({ ...PAY, pay_amount: "三十万" }), "invalid_input", "入力が不正です");
  });
});

/** Approved reads: one employee's pay rule, the employee list (any page), the list by the free-form GET, and a scope. */
const READS: ProcessStep[] = [
  { stepId: "r1", order: 1, tool: "freee_hr_get_basic_pay_rule", effect: "read", toolInput: { year: 2027, month: 1, employee_id: 1 } },
  { stepId: "r2", order: 2, tool: "freee_hr_list_employees", effect: "read", toolInput: { year: 2027, month: 1 } },
  { stepId: "r3", order: 3, tool: "freee_api_get", effect: "read", toolInput: { path: "/hr/api/v1/employees", query: { year: 2027, month: 1 } } },
  { stepId: "r4", order: 4, tool: "agent_decide", effect: "read", toolInput: { instruction: "事業所を確認する" }, readScope: { tools: ["freee_api_get"], pathPrefixes: ["/api/1"] } },
];

describe("reads are bound like writes: the approved input, only the page may differ", () => {
  const reading = async () => {
    const { taskId, bearer } = await stack.newExecution(READS);
    return { taskId, agent: await stack.agent(bearer) };
  };

  it("another employee's pay rule: the approved read names employee 1", async () => {
    const { taskId, agent } = await reading();
    for (const employee_id of [2, 3]) {
      await expectRefused(taskId, agent, { name: "freee_hr_get_basic_pay_rule", arguments: { year: 2027, month: 1, employee_id } }, "outside_read_scope", "承認済みの読み取りステップと一致しない");
    }
    // Another month is another read too.
    await expectRefused(taskId, agent, { name: "freee_hr_get_basic_pay_rule", arguments: { year: 2026, month: 12, employee_id: 1 } }, "outside_read_scope", "[r1]");
    const refused = (await stack.audit(taskId)).filter((a) => a.details.reason === "outside_read_scope").at(-1)!;
    expect(refused.details.differingKeys).toEqual(["month", "year"]);
    const approved = await agent.callTool({ name: "freee_hr_get_basic_pay_rule", arguments: { employee_id: "1", month: 1, year: 2027 } });
    expect(approved.isError).toBeFalsy();
  });

  it("the approved list is served page by page, and nothing else by the same tool", async () => {
    const { taskId, agent } = await reading();
    const page = await agent.callTool({ name: "freee_hr_list_employees", arguments: { year: 2027, month: 1, limit: 1, offset: 1 } });
    expect(page.isError).toBeFalsy();
    await expectRefused(taskId, agent, { name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } }, "outside_read_scope", "limit / offset / page / per_page");
  });

  it("the free-form GET of the employee list is that path, not a prefix of every employee's records", async () => {
    const { taskId, agent } = await reading();
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/hr/api/v1/employees/2/basic_pay_rule", query: { year: 2027, month: 1 } } }, "outside_read_scope", "許可された範囲の外");
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/hr/api/v1/employees/2", query: { year: 2027, month: 1 } } }, "outside_read_scope", "許可された範囲の外");
    const list = await agent.callTool({ name: "freee_api_get", arguments: { path: "/hr/api/v1/employees", query: { year: 2027, month: 1, limit: 5 } } });
    expect(list.isError).toBeFalsy();
  });

  it("no agent_decide scope lists the companies the freee user can see, even one over /api/1", async () => {
    const { taskId, agent } = await reading();
    await expectRefused(taskId, agent, { name: "freee_api_get", arguments: { path: "/api/1/companies" } }, "outside_read_scope", "許可された範囲の外");
    const refused = (await stack.audit(taskId)).filter((a) => a.details.reason === "outside_read_scope").at(-1)!;
    expect(refused.details.companyList).toBe(true);
  });
});

describe("the approved writes do run", () => {
  it("each approved write runs once with the approved input, in the connected company", async () => {
    const { taskId, agent } = await running();
    const pay = await agent.callTool(payCall({ ...PAY, pay_amount: "300000" }));
    const deal = await agent.callTool({ name: "freee_accounting_create_deal", arguments: DEAL });
    expect(pay.isError).toBeFalsy();
    expect(deal.isError).toBeFalsy();
    const put = stack.fake.apiRequests("/hr/api/v1/employees/1/basic_pay_rule").filter((r) => r.method === "PUT").at(-1)!;
    expect(put.body).toEqual({ company_id: 101, year: 2027, month: 1, employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 300000 } });
    expect(stack.dealsWithRef(`sma:${taskId}:p1:s4`)).toHaveLength(1);
  });
});
