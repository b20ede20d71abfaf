import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { WriteOutcomeUnknownMessages } from "../../lib/core/messages/ja";
import { buildLedger } from "../../lib/store/ledger";
import { startMcpStack, text, type McpStack } from "./stack";

/**
 * The generic freee tools in the MCP server, against the strict fake: an approved invoice, journal or
 * attendance update runs once with the connected company; a call freee's schema refuses never reaches freee, even
 * when it is exactly the approved step (a Process stored before plan validation); a lost reply is settled by the
 * operation's write class.
 */
let stack: McpStack;
beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => stack.close());

const INVOICE = {
  path: "/iv/invoices",
  body: { billing_date: "2026-12-31", partner_id: 12, partner_title: "御中", tax_entry_method: "out", tax_fraction: "omit", withholding_tax_entry_method: "out", subject: "12月分", lines: [{ description: "業務委託 12月分", quantity: 1, unit_price: "300000", tax_rate: 10 }] },
};
const JOURNAL = {
  path: "/api/1/manual_journals",
  body: { issue_date: "2026-12-15", details: [{ entry_side: "debit", account_item_id: 23, tax_code: 136, amount: 2_200 }, { entry_side: "credit", account_item_id: 22, tax_code: 21, amount: 2_200 }] },
};
const SEGMENTS = { employee_id: 2, date: "2026-12-03", work_record_segments: [{ clock_in_at: "2026-12-03 09:30:00", clock_out_at: "2026-12-03 18:30:00" }], break_records: [{ clock_in_at: "2026-12-03 12:00:00", clock_out_at: "2026-12-03 13:00:00" }] };
const PAYMENT = { path: "/api/1/deals/1/payments", body: { date: "2026-12-05", from_walletable_type: "wallet", from_walletable_id: 32, amount: 5_500 } };

const step = (stepId: string, tool: string, toolInput: Record<string, unknown>): ProcessStep => ({ stepId, order: Number(stepId.slice(1)), tool, effect: "write", toolInput });

async function running(steps: ProcessStep[]) {
  const { taskId, bearer } = await stack.newExecution(steps);
  return { taskId, agent: await stack.agent(bearer) };
}

const invoicesOf = () => stack.fake.company(101).invoices;

describe("approved generic writes run once, in the connected company", () => {
  it("an invoice (freee請求書), a manual journal and an attendance segment update, each as approved", async () => {
    const { taskId, agent } = await running([step("s1", "freee_api_post", INVOICE), step("s2", "freee_api_post", JOURNAL), step("s3", "freee_hr_update_work_record", SEGMENTS)]);
    const before = invoicesOf().length;
    for (const [name, args] of [["freee_api_post", INVOICE], ["freee_api_post", JOURNAL], ["freee_hr_update_work_record", SEGMENTS]] as const) {
      const result = await agent.callTool({ name, arguments: args });
      expect(result.isError, text(result)).toBeFalsy();
    }
    expect(invoicesOf().length).toBe(before + 1);
    const invoice = invoicesOf().at(-1)!;
    expect(invoice).toMatchObject({ company_id: 101, subject: "12月分", memo: `sma:${taskId}:p1:s1`, total_amount: 330_000 });
    const journal = stack.fake.company(101).manualJournals.at(-1)!;
    expect(String(journal.ref_number)).toMatch(/^sma:[0-9a-f]{16}$/);
    const record = stack.fake.company(101).workRecords.get("2|2026-12-03")!;
    expect(record.work_record_segments).toEqual([{ clock_in_at: "2026-12-03T09:30:00.000+09:00", clock_out_at: "2026-12-03T18:30:00.000+09:00" }]);
    // The approved write twice: the second call does not reach freee.
    const posts = stack.fake.apiRequests("/iv/invoices").filter((r) => r.method === "POST").length;
    expect((await agent.callTool({ name: "freee_api_post", arguments: INVOICE })).isError).toBe(true);
    expect(stack.fake.apiRequests("/iv/invoices").filter((r) => r.method === "POST").length).toBe(posts);
  });
});

describe("a call freee's schema refuses never reaches freee", () => {
  it("the approved step itself, stored without plan validation (an invalid enum): refused as invalid input, audited, zero requests", async () => {
    const broken = { ...INVOICE, body: { ...INVOICE.body, tax_fraction: "half" } };
    const { taskId, agent } = await running([step("s1", "freee_api_post", broken)]);
    const before = stack.fake.requests.length;
    const result = await agent.callTool({ name: "freee_api_post", arguments: broken });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("tax_fraction は omit, round_up, round のいずれか");
    expect(stack.fake.requests.length).toBe(before);
    const audit = await stack.audit(taskId);
    expect(audit.some((a) => a.action === "freee.tool_refused" && a.details.reason === "invalid_input")).toBe(true);
  });

  it("a path that is no freee operation, and an attendance time in ISO 8601: zero requests", async () => {
    const iso = { ...SEGMENTS, work_record_segments: [{ clock_in_at: "2026-12-03T09:30:00+09:00", clock_out_at: "2026-12-03T18:30:00+09:00" }] };
    const { agent } = await running([step("s1", "freee_api_post", { path: "/iv/invoices/send", body: {} }), step("s2", "freee_hr_update_work_record", iso)]);
    const before = stack.fake.requests.length;
    expect(text(await agent.callTool({ name: "freee_api_post", arguments: { path: "/iv/invoices/send", body: {} } }))).toContain("freee API の操作ではありません");
    expect(text(await agent.callTool({ name: "freee_hr_update_work_record", arguments: iso }))).toContain("clock_in_at の形式が不正です");
    expect(stack.fake.requests.length).toBe(before);
  });
});

describe("freee's format rules: a date or an amount freee would refuse never reaches it", () => {
  it("an approved journal dated 2026/12/15 with an amount of '2,200': refused naming each field, audited, counted in the ledger, zero requests", async () => {
    const broken = { ...JOURNAL, body: { ...JOURNAL.body, issue_date: "2026/12/15", details: [{ ...JOURNAL.body.details[0], amount: "2,200" }, JOURNAL.body.details[1]] } };
    const { taskId, agent } = await running([step("s1", "freee_api_post", broken)]);
    const before = stack.fake.requests.length;
    const result = await agent.callTool({ name: "freee_api_post", arguments: broken });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("issue_date の形式が不正です（YYYY-MM-DD の実在する日付で指定してください");
    expect(text(result)).toContain("details.0.amount は円単位の整数で指定してください");
    expect(stack.fake.requests.length).toBe(before);
    const audit = await stack.audit(taskId);
    expect(audit.filter((a) => a.action === "freee.tool_refused").map((a) => a.details.reason)).toEqual(["invalid_input"]);
    expect(buildLedger(audit, { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" }).refusalsByReason).toEqual([{ reason: "invalid_input", count: 1 }]);
  });

  it("freee's 午前休 example (clock_in_at / clock_out_at with paid_holidays) runs once and freee shows it; a lost reply is settled by reading it back", async () => {
    const morningOff = {
      employee_id: 2,
      date: "2026-12-22",
      break_records: [{ clock_in_at: "2026-12-22 16:00:00", clock_out_at: "2026-12-22 16:30:00" }],
      clock_in_at: "2026-12-22 14:00:00",
      clock_out_at: "2026-12-22 18:00:00",
      paid_holidays: [{ type: "morning_off" }],
    };
    const { agent } = await running([step("s1", "freee_hr_update_work_record", morningOff)]);
    stack.fake.fail({ method: "PUT", path: "/hr/api/v1/employees/2/work_records/2026-12-22" }, { lostReply: true }, 1);
    const before = stack.fake.apiRequests().length;
    const result = await agent.callTool({ name: "freee_hr_update_work_record", arguments: morningOff });
    expect(result.isError, text(result)).toBeFalsy();
    expect(stack.fake.apiRequests().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(["PUT /hr/api/v1/employees/2/work_records/2026-12-22", "GET /hr/api/v1/employees/2/work_records/2026-12-22"]);
    expect(stack.fake.company(101).workRecords.get("2|2026-12-22")).toMatchObject({
      clock_in_at: "2026-12-22T14:00:00.000+09:00",
      clock_out_at: "2026-12-22T18:00:00.000+09:00",
      paid_holidays: [{ type: "morning_off", mins: 240, days: 0.5 }],
    });
    stack.fake.clearFaults();
  });
});

describe("lost replies are settled by the operation's write class", () => {
  it("an invoice whose reply was lost is found by its 社内メモ marker: one invoice, no second POST", async () => {
    const { agent } = await running([step("s1", "freee_api_post", INVOICE)]);
    const before = invoicesOf().length;
    stack.fake.fail({ method: "POST", path: "/iv/invoices" }, { lostReply: true }, 5);
    const result = await agent.callTool({ name: "freee_api_post", arguments: INVOICE });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain("読み戻して確認しました");
    expect(invoicesOf().length).toBe(before + 1);
    stack.fake.clearFaults();
  });

  it("a payment line freee gives no way to find again: the lost reply ends unknown, without a read back or a second POST", async () => {
    const { agent } = await running([step("s1", "freee_api_post", PAYMENT)]);
    stack.fake.fail({ method: "POST", path: "/api/1/deals/1/payments" }, { lostReply: true }, 5);
    const before = stack.fake.apiRequests().length;
    const result = await agent.callTool({ name: "freee_api_post", arguments: PAYMENT });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(WriteOutcomeUnknownMessages.agent);
    expect(stack.fake.apiRequests().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/1/deals/1/payments"]);
    stack.fake.clearFaults();
  });
});
