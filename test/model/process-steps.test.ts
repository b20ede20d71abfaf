import { describe, expect, it } from "vitest";
import { checkSteps } from "../../lib/model/process-steps";

/**
 * The capability rules at plan time: what L3 may approve is what the MCP server will let run, so a
 * write step is fully specified, says it writes, never chooses the company, and names what it leaves to a name;
 * an agent_decide step names what it may read.
 */
const PAY = { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300000 };
const step = (tool: string, toolInput: unknown, extra: Record<string, unknown> = {}) => ({ stepId: "s1", order: 1, tool, toolInput, ...extra });

function issues(raw: unknown): string[] {
  const result = checkSteps({ steps: [raw] });
  return "issues" in result ? result.issues.map((i) => i.message) : [];
}
function stepOf(raw: unknown) {
  const result = checkSteps({ steps: [raw] });
  if ("issues" in result) throw new Error(result.issues.map((i) => i.message).join("; "));
  return result.steps[0]!;
}

describe("write steps", () => {
  it("are fully specified: a missing required value is an issue that says why", () => {
    const { pay_amount: _left, ...partial } = PAY;
    expect(issues(step("freee_hr_update_basic_pay_rule", partial))).toEqual([
      "Step s1 (freee_hr_update_basic_pay_rule) toolInput: pay_amount: Invalid input: expected number, received undefined (a write step must be fully specified)",
    ]);
  });

  it("say they write: effect read on a write tool is an issue; the stored step carries effect write", () => {
    expect(issues(step("freee_hr_update_basic_pay_rule", PAY, { effect: "read" }))[0]).toContain('effect: "read" but this tool writes');
    expect(stepOf(step("freee_hr_update_basic_pay_rule", PAY)).effect).toBe("write");
    expect(stepOf(step("freee_hr_list_employees", { year: 2027, month: 1 })).effect).toBe("read");
  });

  it("never choose the company: company_id in a plan is an issue", () => {
    expect(issues(step("freee_hr_update_basic_pay_rule", { ...PAY, company_id: 202 }))[0]).toContain("company_id is not an input");
    expect(issues(step("freee_api_get", { path: "/api/1/deals", query: { company_id: 202 } }))[0]).toContain("company_id is not an input");
  });

  it("are stored normalised: numbers written as text become numbers", () => {
    expect(stepOf(step("freee_hr_update_basic_pay_rule", { ...PAY, pay_amount: "300000", year: "2027.0" })).toolInput).toEqual(PAY);
    expect(issues(step("freee_hr_update_basic_pay_rule", { ...PAY, pay_amount: "30万円" }))).toHaveLength(1);
  });

  it("leave a named id to nameRefs: the id is left out, the name kept; the rest still complete", () => {
    const { employee_id: _id, ...rest } = PAY;
    const stored = stepOf(step("freee_hr_update_basic_pay_rule", rest, { nameRefs: [{ field: "employee_id", name: "山田" }] }));
    expect(stored.toolInput).toEqual(rest);
    expect(stored.nameRefs).toEqual([{ field: "employee_id", name: "山田" }]);
    const deal = { issue_date: "2026-12-01", type: "expense", details: [{ tax_code: 136, amount: 4800000 }] };
    expect(stepOf(step("freee_accounting_create_deal", deal, { nameRefs: [{ field: "details.0.account_item_id", name: "消耗品費" }] })).toolInput).toEqual(deal);
    // A named id does not excuse a missing amount.
    const { pay_amount: _amount, ...noAmount } = rest;
    expect(issues(step("freee_hr_update_basic_pay_rule", noAmount, { nameRefs: [{ field: "employee_id", name: "山田" }] }))[0]).toContain("pay_amount");
  });

  it("nameRefs stand for ids of write steps only", () => {
    expect(issues(step("freee_hr_update_basic_pay_rule", PAY, { nameRefs: [{ field: "pay_amount", name: "30万" }] }))[0]).toContain("is not an id field");
    expect(issues(step("freee_hr_list_employees", { year: 2027, month: 1 }, { nameRefs: [{ field: "employee_id", name: "山田" }] }))[0]).toContain("only write steps");
    expect(issues(step("freee_accounting_create_deal", { issue_date: "2026-12-01", type: "expense", details: [] }, { nameRefs: [{ field: "details.3.account_item_id", name: "x" }] }))[0]).toContain(
      "is not a place in toolInput",
    );
  });
});

describe("read steps", () => {
  it("is fully specified: the MCP server serves exactly this input, so nothing is left for the agent to fill in", () => {
    expect(issues(step("freee_hr_get_basic_pay_rule", { year: 2027, month: 1 }))[0]).toContain("employee_id");
    expect(stepOf(step("freee_hr_get_basic_pay_rule", { year: 2027, month: 1, employee_id: 1 })).toolInput).toEqual({ year: 2027, month: 1, employee_id: 1 });
  });

  it("the free-form GET names its path: that path is its scope", () => {
    expect(issues(step("freee_api_get", {}))[0]).toContain("path is required");
    expect(stepOf(step("freee_api_get", { path: "/api/1/walletables" })).toolInput).toEqual({ path: "/api/1/walletables" });
  });
});

describe("agent_decide steps name what they may read", () => {
  it("L3's wire form (scope in toolInput) becomes the record form (readScope), which reads back unchanged", () => {
    const stored = stepOf(step("agent_decide", { instruction: "確認する", tools: ["freee_api_get"], pathPrefixes: ["/api/1/deals"] }));
    expect(stored).toEqual({ stepId: "s1", order: 1, tool: "agent_decide", effect: "read", toolInput: { instruction: "確認する" }, readScope: { tools: ["freee_api_get"], pathPrefixes: ["/api/1/deals"] } });
    expect(stepOf(stored)).toEqual(stored);
  });

  it("without tools, with a write tool, or with a GET but no prefixes: issues", () => {
    expect(issues(step("agent_decide", { instruction: "確認する" }))[0]).toContain("tools must name the read tools");
    expect(issues(step("agent_decide", { instruction: "確認する", tools: ["freee_accounting_create_deal"] }))[0]).toContain("is not a read tool (agent_decide never writes)");
    expect(issues(step("agent_decide", { instruction: "確認する", tools: ["freee_api_get"] }))[0]).toContain("needs the path prefixes");
    expect(issues(step("agent_decide", { instruction: "確認する", tools: ["freee_api_get"], pathPrefixes: ["/api/1/"] }))[0]).toContain("is not a freee API path");
    expect(issues(step("agent_decide", { instruction: "確認する", tools: ["freee_hr_list_employees"], pathPrefixes: ["/api/1/deals"] }))[0]).toContain("only freee_api_get reads by path");
    expect(issues(step("agent_decide", { instruction: "確認する", tools: ["freee_hr_list_employees"] }, { effect: "write" }))[0]).toContain("only reads");
  });

  it("a scope given twice is an issue", () => {
    expect(issues(step("agent_decide", { instruction: "確認する", tools: ["freee_hr_list_employees"] }, { readScope: { tools: ["freee_hr_list_employees"] } }))[0]).toContain("twice");
  });
});

describe("dates (a read that answers the question, a write on a real day)", () => {
  it("a day that is not on the calendar is an issue, in a typed read, a generic read's query and a write", () => {
    // freee's format rules (lib/freee/openapi/format-rules.ts) refuse it first, naming the field, never the value.
    const [deals] = issues(step("freee_accounting_list_deals", { start_issue_date: "2026-11-01", end_issue_date: "2026-11-31" }));
    expect(deals).toContain("end_issue_date の形式が不正です");
    expect(deals).not.toContain("2026-11-31");
    const [receipts] = issues(step("freee_api_get", { path: "/api/1/receipts", query: { start_date: "2027-02-29", end_date: "2027-03-01" } }));
    expect(receipts).toContain("start_date の形式が不正です");
    const work = { employee_id: 2, date: "2026-12-03", work_record_segments: [{ clock_in_at: "2026-12-32 09:00:00", clock_out_at: "2026-12-03 18:00:00" }] };
    const [clock] = issues(step("freee_hr_update_work_record", work));
    expect(clock).toContain("clock_in_at");
    expect(clock).not.toContain("2026-12-32");
  });

  it("a period runs forwards; a leap day and a one-day period are fine", () => {
    expect(issues(step("freee_accounting_list_deals", { start_issue_date: "2026-12-31", end_issue_date: "2026-12-01" }))).toEqual([
      "Step s1 (freee_accounting_list_deals) toolInput: start_issue_date 2026-12-31 is after end_issue_date 2026-12-01 (the period must run forwards)",
    ]);
    expect(stepOf(step("freee_accounting_list_deals", { start_issue_date: "2028-02-29", end_issue_date: "2028-02-29", limit: 20 })).toolInput).toEqual({
      start_issue_date: "2028-02-29",
      end_issue_date: "2028-02-29",
      limit: 20,
    });
  });
});
