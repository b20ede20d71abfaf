import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { writeMarker } from "../../lib/freee/write-reconciler";
import { WriteOnceLedger } from "../../lib/store/write-ledger";
import { WriteOutcomeUnknownMessages } from "../../lib/core/messages/ja";
import { buildLedger } from "../../lib/store/ledger";
import type { ScriptedFault } from "../../dev/fakes/freee/fake-freee";
import { dealRecord, payRuleAt } from "../../dev/fakes/freee/state";
import { startMcpStack, text, type McpStack } from "./stack";

/**
 * A write whose reply is lost is never blindly repeated: freee takes `create_deal` and the
 * reply never arrives — the connection drops, the client times out, freee answers 5xx. Whatever the agent does
 * next (it retries the call, a rerun runs), freee ends with exactly one deal.
 */
let stack: McpStack;
beforeAll(async () => {
  // Read backs wait for real here: a freee that answers after the client gave up has done the write by then.
  stack = await startMcpStack({ client: { requestTimeoutMs: 100 }, reconcileDelayMs: 800, reconcileWaitsForReal: true });
});
afterAll(async () => stack.close());
afterEach(() => stack.fake.clearFaults());

const DEAL = { issue_date: "2026-12-02", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 4800000 }] };
const STEPS: ProcessStep[] = [{ stepId: "s1", order: 1, tool: "freee_accounting_create_deal", effect: "write", toolInput: DEAL }];
const createDeal = { name: "freee_accounting_create_deal", arguments: DEAL };

async function run() {
  const { taskId, bearer } = await stack.newExecution(STEPS);
  const marker = writeMarker({ taskId, processVersion: 1, stepId: "s1" });
  return {
    taskId,
    marker,
    agent: await stack.agent(bearer),
    posts: () => stack.fake.apiRequests("/api/1/deals").filter((r) => r.method === "POST" && (r.body as { ref_number?: string }).ref_number === marker).length,
    deals: () => stack.dealsWithRef(marker).length,
    ref: { taskId, processVersion: 1, stepId: "s1" },
  };
}

const LOST_REPLIES: Array<[string, ScriptedFault]> = [
  ["drops the connection", { lostReply: true }],
  ["does not answer before the client's timeout", { delayMs: 250 }],
  ["answers 502", { status: 502, processed: true }],
  ["answers 500", { status: 500, processed: true }],
];

describe("freee takes create_deal and the reply is lost", () => {
  for (const [what, fault] of LOST_REPLIES) {
    it(`freee ${what}: one POST, the deal found by its 管理番号, one deal after agent retries and a rerun`, async () => {
      const r = await run();
      // Every POST would be taken and its reply lost: a retried write would show as a second deal.
      stack.fake.fail({ method: "POST", path: "/api/1/deals" }, fault, 10);
      const first = await r.agent.callTool(createDeal);
      expect(first.isError).toBeFalsy();
      expect(text(first)).toContain("読み戻して確認しました");
      expect(JSON.parse(text(first).split("\n").slice(1).join("\n"))).toMatchObject({ deal: { ref_number: r.marker } });
      for (let i = 0; i < 2; i++) expect((await r.agent.callTool(createDeal)).isError).toBe(true);
      const rerun = await stack.rerun(r.taskId, 2);
      const again = await (await stack.agent(rerun.bearer)).callTool(createDeal);
      expect(again.isError).toBe(true);
      expect(text(again)).toContain("すでに完了しています");
      expect(r.posts()).toBe(1);
      expect(r.deals()).toBe(1);
      expect(await stack.ledger.get(r.ref)).toMatchObject({ state: "done", how: "reconciled" });
      const actions = (await stack.audit(r.taskId)).map((a) => a.action);
      expect(actions).toEqual(expect.arrayContaining(["freee.write_ambiguous", "freee.write_reconciled"]));
      expect(stack.reconcileWaits.at(-1)).toBe(800);
    });
  }
});

describe("freee loses a create_deal without taking it", () => {
  it("the step ends WriteOutcomeUnknownError: not sent again in the run; a rerun reads back, then writes it once", async () => {
    const r = await run();
    stack.fake.fail({ method: "POST", path: "/api/1/deals" }, { status: 503 }, 1);
    const first = await r.agent.callTool(createDeal);
    expect(first.isError).toBe(true);
    expect(text(first)).toContain(WriteOutcomeUnknownMessages.agent);
    expect(text(first)).toContain(r.marker);
    expect(await stack.ledger.get(r.ref)).toMatchObject({ state: "unknown", executionId: `${r.taskId}-e1` });
    const audit = await stack.audit(r.taskId);
    expect(audit.find((a) => a.action === "error.freee")).toMatchObject({ errorType: "WriteOutcomeUnknownError", details: expect.objectContaining({ stepId: "s1", marker: r.marker }) });
    const ledger = buildLedger(audit, { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" });
    // An entry of the audit log; the task is counted (once) by the failure its run ends with.
    expect(ledger.errorEntriesByClass).toContainEqual({ layer: "freee", errorClass: "WriteOutcomeUnknownError", count: 1 });
    expect(ledger.failuresByClass).toEqual([]);
    expect(stack.counted).toContainEqual({ metric: "writeOutcomeUnknown", value: "freee_accounting_create_deal" });

    // The agent retries in the same run: read back again, nothing found, refused; freee gets no second POST.
    for (let i = 0; i < 2; i++) {
      const retry = await r.agent.callTool(createDeal);
      expect(retry.isError).toBe(true);
      expect(text(retry)).toContain(WriteOutcomeUnknownMessages.agent);
    }
    expect(r.posts()).toBe(1);
    expect((await stack.audit(r.taskId)).filter((a) => a.action === "freee.tool_refused" && a.details.reason === "write_outcome_unknown")).toHaveLength(2);

    // A rerun (the user checked freee): read back finds nothing, so the rerun writes the step, once.
    const rerun = await stack.rerun(r.taskId, 2);
    const rerunAgent = await stack.agent(rerun.bearer);
    expect((await rerunAgent.callTool(createDeal)).isError).toBeFalsy();
    expect((await rerunAgent.callTool(createDeal)).isError).toBe(true);
    expect(r.posts()).toBe(2);
    expect(r.deals()).toBe(1);
    expect(await stack.ledger.get(r.ref)).toMatchObject({ state: "done", how: "written", attempt: 2, executionId: `${r.taskId}-e2` });
  });

  it("reply lost and the read back fails too: unknown; the rerun's read back finds the deal and writes nothing", async () => {
    const r = await run();
    stack.fake.fail({ method: "POST", path: "/api/1/deals" }, { lostReply: true }, 10);
    stack.fake.fail({ method: "GET", path: "/api/1/deals" }, { status: 503 }, 4);
    const first = await r.agent.callTool(createDeal);
    expect(first.isError).toBe(true);
    expect(text(first)).toContain(WriteOutcomeUnknownMessages.agent);
    const rerun = await stack.rerun(r.taskId, 2);
    const settled = await (await stack.agent(rerun.bearer)).callTool(createDeal);
    expect(settled.isError).toBeFalsy();
    expect(text(settled)).toContain("読み戻して確認しました");
    expect(r.posts()).toBe(1);
    expect(r.deals()).toBe(1);
  });
});

describe("writes freee refused before acting may be sent again", () => {
  it("an expired access token (401 expired_access_token): refreshed and sent again — two POSTs, one deal", async () => {
    const r = await run();
    stack.fake.expireAccessTokens();
    expect((await r.agent.callTool(createDeal)).isError).toBeFalsy();
    expect(r.posts()).toBe(2);
    expect(r.deals()).toBe(1);
  });
});

describe("a write left in flight by a Lambda that died mid-call", () => {
  it("is refused while its lease runs, and once the lease passed it is settled by reading back", async () => {
    const r = await run();
    const write = { tool: "freee_accounting_create_deal", digest: "d", marker: r.marker, executionId: `${r.taskId}-e1` };
    await stack.ledger.claim(r.ref, write);
    const refused = await r.agent.callTool(createDeal);
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("処理中");
    expect(r.posts()).toBe(0);

    // The dead Lambda's POST had reached freee.
    const company = stack.fake.company(101);
    company.deals.push(dealRecord(company, { ...DEAL, type: "expense", ref_number: r.marker }));
    const stale = new WriteOnceLedger(stack.table.doc, stack.table.tableName, () => new Date(Date.now() - 20 * 60_000));
    await stack.ledger.release(r.ref, 1);
    await stale.claim(r.ref, write);
    const settled = await r.agent.callTool(createDeal);
    expect(settled.isError).toBeFalsy();
    expect(text(settled)).toContain("読み戻して確認しました");
    expect(r.posts()).toBe(0);
    expect(r.deals()).toBe(1);
  });
});

describe("HR writes without a marker field are read back by value", () => {
  it("a basic pay PUT whose reply was lost: the stored value matches, success, one PUT", async () => {
    const pay = { year: 2027, month: 2, employee_id: 2, pay_calc_type: "monthly", pay_amount: 310000 };
    const { bearer } = await stack.newExecution([{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", effect: "write", toolInput: pay }]);
    const agent = await stack.agent(bearer);
    stack.fake.fail({ method: "PUT", path: "/hr/api/v1/employees/2/basic_pay_rule" }, { status: 504, processed: true }, 10);
    const result = await agent.callTool({ name: "freee_hr_update_basic_pay_rule", arguments: pay });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("読み戻して確認しました");
    expect(stack.fake.apiRequests("/hr/api/v1/employees/2/basic_pay_rule").filter((q) => q.method === "PUT")).toHaveLength(1);
    expect(payRuleAt(stack.fake.company(101).employees.find((e) => e.id === 2)!, 2027, 2)).toMatchObject({ pay_calc_type: "monthly", pay_amount: 310000 });
  });
});

describe("a read back that takes too long", () => {
  let slow: McpStack;
  beforeAll(async () => {
    slow = await startMcpStack({ client: { requestTimeoutMs: 5000 }, reconcileBudgetMs: 300 });
  });
  afterAll(async () => slow.close());

  it("stops at its budget with the outcome unknown; the rerun's read back, answered in time, finds the one deal", async () => {
    const { taskId, bearer } = await slow.newExecution(STEPS);
    const marker = writeMarker({ taskId, processVersion: 1, stepId: "s1" });
    slow.fake.fail({ method: "POST", path: "/api/1/deals" }, { lostReply: true }, 10);
    slow.fake.fail({ method: "GET", path: "/api/1/deals" }, { delayMs: 3000 }, 1);
    // The read back does answer, 3 s later, and would find the deal: an unknown outcome is the budget ending it.
    const first = await (await slow.agent(bearer)).callTool(createDeal);
    expect(first.isError).toBe(true);
    expect(text(first)).toContain(WriteOutcomeUnknownMessages.agent);
    const error = (await slow.audit(taskId)).find((a) => a.action === "error.freee")!;
    expect(error.errorType).toBe("WriteOutcomeUnknownError");
    expect((error.details.cause as { message: string }).message).toContain("took longer than 300 ms");
    const rerun = await slow.rerun(taskId, 2);
    expect((await (await slow.agent(rerun.bearer)).callTool(createDeal)).isError).toBeFalsy();
    expect(slow.dealsWithRef(marker)).toHaveLength(1);
  });
});
