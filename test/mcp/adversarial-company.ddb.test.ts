import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueMcpBearer } from "../../lib/mcp/bearer";
import type { ProcessStep } from "../../lib/core/domain/records";
import { FreeeCompanyChangedMessages } from "../../lib/core/messages/ja";
import { buildLedger } from "../../lib/store/ledger";
import { seedExecution } from "./harness";
import { SECRET, startMcpStack, TEAM, text, type McpStack } from "./stack";
import { connect } from "../freee/helpers";

/**
 * The approval binds the company: a plan previewed against company 101 is approved, then an admin
 * reconnects freee and chooses company 202 (what `/freee/callback` with `prompt=select_company` allows). The agent,
 * holding a valid bearer, calls exactly the approved steps: nothing may reach freee — neither company — and the run
 * is stamped to end with the "previewed again" message.
 */
let stack: McpStack;
beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => stack.close());
afterEach(async () => reconnect(101, "テスト株式会社"));

const PAY = { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300000 };
const STEPS: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_get_basic_pay_rule", effect: "read", toolInput: { year: 2027, month: 1, employee_id: 1 } },
  { stepId: "s2", order: 2, tool: "freee_hr_update_basic_pay_rule", effect: "write", toolInput: PAY },
];

/** The admin's reconnect: new tokens, another company (the connection store's save, as the OAuth callback does). */
async function reconnect(companyId: number, companyName: string) {
  await connect(stack.connections, stack.fake, TEAM, undefined, { companyId, companyName });
}

const apiRequests = () => stack.fake.requests.filter((r) => !r.path.startsWith("/public_api/")).length;

describe("the connection now acts on another company than the approved plan's", () => {
  it("the approved write and the approved read are refused, freee sees nothing, and the run is stamped to end", async () => {
    const { taskId, execution, bearer } = await stack.newExecution(STEPS);
    expect(execution.company).toEqual({ id: 101, name: "テスト株式会社" });
    const agent = await stack.agent(bearer);
    await reconnect(202, "別会社株式会社");
    const before = apiRequests();
    const payRulesOf202 = JSON.stringify(stack.fake.company(202).employees.map((e) => e.payRules));
    for (const call of [
      { name: "freee_hr_update_basic_pay_rule", arguments: PAY },
      { name: "freee_hr_get_basic_pay_rule", arguments: { year: 2027, month: 1, employee_id: 1 } },
    ]) {
      const result = await agent.callTool(call);
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(FreeeCompanyChangedMessages.agent);
    }
    expect(apiRequests()).toBe(before);
    expect(JSON.stringify(stack.fake.company(202).employees.map((e) => e.payRules))).toBe(payRulesOf202);
    const audit = await stack.audit(taskId);
    const refused = audit.filter((a) => a.action === "freee.tool_refused" && a.details.reason === "company_changed");
    expect(refused.map((a) => a.details.tool)).toEqual(["freee_hr_update_basic_pay_rule", "freee_hr_get_basic_pay_rule"]);
    expect(refused[0]!.details).toMatchObject({ approvedCompanyId: 101, connectedCompanyId: 202, input: PAY });
    expect(stack.counted.filter((c) => c.value === "company_changed").length).toBeGreaterThanOrEqual(2);
    const ledger = buildLedger(audit, { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" });
    expect(ledger.refusalsByReason.find((r) => r.reason === "company_changed")?.count).toBe(2);
    // The next poll ends the run with it (lib/steps/run-steps.ts), whatever the agent says.
    expect((await stack.store.getExecution(taskId, 1))?.fault).toMatchObject({ errorName: "FreeeCompanyChangedError", tool: "freee_hr_update_basic_pay_rule", reason: "company_changed" });
    // A write never sent holds no ledger entry: a rerun after a new preview is free to write it.
    expect(await stack.ledger.get({ taskId, processVersion: 1, stepId: "s2" })).toBeUndefined();
  });

  it("a rerun of the plan meets the same: it carries the approved company, not the connection's", async () => {
    const { taskId } = await stack.newExecution(STEPS);
    await stack.store.transitionExecution(taskId, 1, "failed", { from: ["running"] });
    await reconnect(202, "別会社株式会社");
    const rerun = await stack.rerun(taskId, 2);
    expect(rerun.execution.company).toEqual({ id: 101, name: "テスト株式会社" });
    const before = apiRequests();
    const result = await (await stack.agent(rerun.bearer)).callTool({ name: "freee_hr_update_basic_pay_rule", arguments: PAY });
    expect(result.isError).toBe(true);
    expect(apiRequests()).toBe(before);
  });

  it("a run whose plan recorded no company (previewed before companies were recorded) calls nothing: it fails closed", async () => {
    const { task, execution } = await seedExecution(stack.store, TEAM, "1700000099.000001", STEPS, "running", undefined, null);
    expect(execution.company).toBeUndefined();
    const agent = await stack.agent(issueMcpBearer({ teamId: TEAM, executionId: execution.executionId, ttlSeconds: 600 }, SECRET));
    const before = apiRequests();
    const result = await agent.callTool({ name: "freee_hr_get_basic_pay_rule", arguments: { year: 2027, month: 1, employee_id: 1 } });
    expect(result.isError).toBe(true);
    expect(apiRequests()).toBe(before);
    const refused = (await stack.audit(task.taskId)).find((a) => a.action === "freee.tool_refused");
    expect(refused?.details).toMatchObject({ reason: "company_changed", approvedCompanyId: null, connectedCompanyId: 101 });
  });

  it("the same company reconnected (new tokens) serves the approved steps", async () => {
    const { bearer } = await stack.newExecution(STEPS);
    await reconnect(101, "テスト株式会社");
    const result = await (await stack.agent(bearer)).callTool({ name: "freee_hr_update_basic_pay_rule", arguments: PAY });
    expect(result.isError).toBeFalsy();
  });
});
