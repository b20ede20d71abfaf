import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { FreeeThrottledMessages, failureMessageFor, freeeThrottledMessage } from "../../lib/core/messages/ja";
import { faultError } from "../../lib/steps/run-completion";
import { startMcpStack, text, type McpStack } from "./stack";

/**
 * freee's 403 throttle (「一定期間に過度のアクセスを検知した場合…403…10分程度」, every schema's info.description) met by
 * the agent through the MCP server against the strict freee fake: the agent is told 「freee のアクセス制限中です」 with the
 * time to run again (not 権限不足), the failure is audited with its class, and the run is stamped so the next poll
 * ends it as FreeeThrottledError, whose card says to run it again later.
 */
let stack: McpStack;
beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => stack.close());

const STEPS: ProcessStep[] = [{ stepId: "s1", order: 1, tool: "freee_hr_list_employees", effect: "read", toolInput: { year: 2026, month: 1 } }];

describe("freee throttles the app (403) during a run", () => {
  it("the agent reads when to retry, the failure is audited as FreeeThrottledError and the run is stamped to end", async () => {
    const { taskId, bearer } = await stack.newExecution(STEPS);
    const agent = await stack.agent(bearer);
    stack.fake.throttle();
    const result = await agent.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } });
    expect(result.isError).toBe(true);
    const said = text(result);
    expect(said).toMatch(/^freee のアクセス制限中です。\d{2}:\d{2}（日本時間）以降に再実行してください。/);
    expect(said).not.toContain("権限");
    const audit = await stack.audit(taskId);
    const failed = audit.find((a) => a.action === "freee.tool_failed");
    expect(failed?.details).toMatchObject({ errorType: "FreeeThrottledError", errorDetails: { status: 403, resetSource: "freee-403-throttle" } });
    const resetAt = (failed?.details.errorDetails as { resetAt: string }).resetAt;
    expect(said).toBe(freeeThrottledMessage(resetAt));
    const fault = (await stack.store.getExecution(taskId, 1))?.fault;
    expect(fault).toMatchObject({ errorName: "FreeeThrottledError", tool: "freee_hr_list_employees", reason: `until ${resetAt}` });
    // What the next poll throws (lib/steps/run-steps.ts) and what the card then says.
    const ended = faultError(fault!);
    expect(ended.name).toBe("FreeeThrottledError");
    expect(failureMessageFor("L4", ended.name)).toBe(FreeeThrottledMessages.slack);
    // One request reached freee: the throttle is not retried into.
    expect(stack.fake.apiRequests().filter((r) => r.status === 403)).toHaveLength(1);
  });
});
