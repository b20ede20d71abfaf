import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { rerunExecution } from "../../lib/ingress/actions";
import { FreeeCompanyChangedMessages, SlackMessages } from "../../lib/core/messages/ja";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { jsonReply } from "../../dev/fakes/anthropic";
import { ev } from "../../dev/fakes/anthropic";
import { path, type PipelineHarness } from "../support/local-sfn";
import { connect } from "../freee/helpers";
import { approveTask, l3Ok, runExecution, slackTexts, agentOfSession, usePipelineWithMcpServer } from "./fixtures";

/**
 * The L4 completion contract on the local ExecutionRun, with the freee MCP server as it ships (from its settings,
 * on 127.0.0.1, over the same table and the strict freee fake) and the official MCP client playing the agent's
 * tool calls with the session's own bearer. A run is 完了 only when the MCP server's ledger shows every approved
 * write done and the agent's final message meets its contract.
 */
let h: PipelineHarness;
let mcpUrl: string;
// Each test's plan changes pay from freee's seed values, which the fixture restores before each test.
usePipelineWithMcpServer((started) => ({ h, mcpUrl } = started));

const wire = (order: number, tool: string, toolInput: Record<string, unknown>) => ({ stepId: `s${order}`, order, tool, toolInput: JSON.stringify(toolInput) });
const pay = (employeeId: number, amount: number) => ({ year: 2027, month: 1, employee_id: employeeId, pay_calc_type: "monthly", pay_amount: amount });
/** s1 reads, s2 and s3 write. */
const PLAN = { steps: [wire(1, "freee_hr_get_basic_pay_rule", { year: 2027, month: 1, employee_id: 1 }), wire(2, "freee_hr_update_basic_pay_rule", pay(1, 300_000)), wire(3, "freee_hr_update_basic_pay_rule", pay(2, 330_000))] };
const RUNNING = { polls: Array.from({ length: 100 }, () => ({ events: [ev.running()] })) };

/** A task through both approvals with its session held running; returns the run and the agent's MCP client. */
async function untilSession(l3: unknown = PLAN, executionNo = 1, existing?: string) {
  h.agents.scriptNextSession(RUNNING);
  let taskId = existing;
  if (taskId === undefined) {
    ({ taskId } = await approveTask(h, l3 === "default" ? l3Ok() : jsonReply(l3)));
  }
  const run = await runExecution(h, taskId, executionNo);
  const { sessionId, session, agent } = await agentOfSession(h, mcpUrl, taskId!, executionNo);
  const firstMessage = JSON.stringify(session.body.initial_events ?? session.events);
  return { taskId, run, sessionId, agent, firstMessage };
}


const call = async (agent: Client, name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })) as CallToolResult;
const endTurn = (sessionId: string, text: string | undefined) =>
  h.agents.scriptSession(sessionId, { polls: [{ events: [...(text === undefined ? [] : [ev.agentMessage(text)]), ev.idle("end_turn")] }] });
const payPuts = () => h.freee.apiRequests(/\/basic_pay_rule$/).filter((r) => r.method === "PUT");

async function expectIncomplete(taskId: string, run: Awaited<ReturnType<typeof untilSession>>["run"], executionNo = 1) {
  await run.done;
  expect(run.status).toBe("FAILED");
  expect(run.error).toBe("IncompleteRunError");
  const history = await h.store.loadHistory(taskId);
  const execution = history.executions.find((e) => e.executionNo === executionNo)!;
  expect(execution).toMatchObject({ status: "failed", errorName: "IncompleteRunError" });
  expect(history.task).toMatchObject({ status: "failed", failure: { layer: "L4", errorName: "IncompleteRunError" } });
  const card = slackTexts(h).filter((t) => t.includes(`実行 #${executionNo}`)).at(-1)!;
  expect(card).toContain(SlackMessages.l4Failed);
  expect(card).toContain("rerun_execution");
  expect(card).not.toContain("完了*");
  return { history, execution };
}

describe("L4 completion contract", () => {
  it("completed: both approved writes are in the MCP server's ledger and the final message ends with [result:done]", async () => {
    const { taskId, run, sessionId, agent } = await untilSession();
    expect((await call(agent, "freee_hr_get_basic_pay_rule", { year: 2027, month: 1, employee_id: 1 })).isError).not.toBe(true);
    expect((await call(agent, "freee_hr_update_basic_pay_rule", pay(1, 300_000))).isError).not.toBe(true);
    expect((await call(agent, "freee_hr_update_basic_pay_rule", pay(2, 330_000))).isError).not.toBe(true);
    await agent.close();
    endTurn(sessionId, "山田さんと佐藤さんの基本給を変更しました。\n[result:done]");
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    const execution = (await h.store.loadHistory(taskId)).executions[0]!;
    expect(execution).toMatchObject({ status: "completed", resultSummary: "山田さんと佐藤さんの基本給を変更しました。", completion: { writeStepsDone: ["s2", "s3"], writeStepsMissing: [], reported: "done" } });
    expect(slackTexts(h).some((t) => t.includes("完了") && t.includes("山田さんと佐藤さんの基本給を変更しました。") && !t.includes("[result:done]"))).toBe(true);
  });

  it("the agent stops early (one write done) but claims done: IncompleteRunError + [再実行]; the rerun does only the step not done", async () => {
    const first = await untilSession();
    await call(first.agent, "freee_hr_update_basic_pay_rule", pay(1, 300_000));
    await first.agent.close();
    endTurn(first.sessionId, "変更しました。\n[result:done]");
    const { execution } = await expectIncomplete(first.taskId, first.run);
    expect(execution.completion).toMatchObject({ writeStepsDone: ["s2"], writeStepsMissing: ["s3"], reported: "done" });
    const audit = (await h.store.loadHistory(first.taskId)).audit.find((a) => a.action === "error.L4")!;
    expect(audit.errorMessage).toContain("approved write steps have no recorded successful tool call: s3");

    expect((await rerunExecution(h.actions, h.actor, { taskId: first.taskId, executionNo: 1 })).outcome).toBe("applied");
    const second = await untilSession(undefined, 2, first.taskId);
    // The rerun's prompt lists the read and the write still to do; the write done before is named, not asked for.
    expect(second.firstMessage).toContain("[step:s1]");
    expect(second.firstMessage).toContain("[step:s3]");
    expect(second.firstMessage).not.toContain("[step:s2]");
    expect(second.firstMessage).toContain("ステップ s2 は前回の実行で freee への書き込みが完了しているため");
    const putsBefore = payPuts().length;
    // An agent that repeats the done write anyway is refused by the MCP server: freee is not called for it.
    expect((await call(second.agent, "freee_hr_update_basic_pay_rule", pay(1, 300_000))).isError).toBe(true);
    await call(second.agent, "freee_hr_update_basic_pay_rule", pay(2, 330_000));
    await second.agent.close();
    expect(payPuts().length - putsBefore).toBe(1);
    endTurn(second.sessionId, "残りの 1 件を変更しました。\n[result:done]");
    await second.run.done;
    expect(second.run.status).toBe("SUCCEEDED");
    const history = await h.store.loadHistory(first.taskId);
    expect(history.executions.map((e) => [e.executionNo, e.status])).toEqual([
      [1, "failed"],
      [2, "completed"],
    ]);
    expect(history.executions[1]?.completion).toMatchObject({ writeStepsDone: ["s2", "s3"], writeStepsMissing: [] });
  });

  it("an agent that ends its turn by asking a question is not 完了 (a read-only plan: the message fails its contract)", async () => {
    const { taskId, run, sessionId, agent } = await untilSession("default");
    await agent.close();
    endTurn(sessionId, "従業員が複数います。どの従業員の基本給を確認しますか？");
    await expectIncomplete(taskId, run);
    const audit = (await h.store.loadHistory(taskId)).audit.find((a) => a.action === "error.L4")!;
    expect(audit.errorMessage).toContain("ends with a question");
  });

  it.each([
    ["no final message at all (empty)", undefined, "EmptyResponseError"],
    ["a final message cut off (no result line)", "山田さんの基本給を 300,000 円に変更し", "no result line"],
    ["the agent reports a step undone", "s3 は権限不足で変更できませんでした。\n[result:incomplete]", "could not carry out every step"],
  ])("%s: IncompleteRunError, not 完了", async (_name, text, why) => {
    const { taskId, run, sessionId, agent } = await untilSession();
    await call(agent, "freee_hr_update_basic_pay_rule", pay(1, 300_000));
    await call(agent, "freee_hr_update_basic_pay_rule", pay(2, 330_000));
    await agent.close();
    endTurn(sessionId, text);
    await expectIncomplete(taskId, run);
    expect((await h.store.loadHistory(taskId)).audit.find((a) => a.action === "error.L4")?.errorMessage).toContain(why);
  });

  it("freee answers 503 to the approved write and the agent claims done (chaos freee × poll × 5xx): read back, not resent, not 完了 — freee keeps its value", async () => {
    // A month and amount no other test here writes: what freee shows for it before and after is comparable.
    const write = { year: 2028, month: 4, employee_id: 1, pay_calc_type: "monthly", pay_amount: 310_000 };
    const { taskId, run, sessionId, agent } = await untilSession({ steps: [wire(1, "freee_hr_update_basic_pay_rule", write)] });
    const employee = () => h.freee.companies[0]!.employees.find((e) => e.id === 1)!;
    const before = JSON.stringify(employee().payRules);
    const putsBefore = payPuts().length;
    h.freee.fail({ method: "PUT", path: /\/basic_pay_rule$/ }, { status: 503, body: { status_code: 503, errors: [{ type: "status", messages: ["ただいまメンテナンス中です。"] }] } });
    const first = await call(agent, "freee_hr_update_basic_pay_rule", write);
    expect(first.isError).toBe(true);
    // The agent tries again: the step's outcome is unknown, so the MCP server refuses it without calling freee.
    const again = await call(agent, "freee_hr_update_basic_pay_rule", write);
    expect(again.isError).toBe(true);
    await agent.close();
    expect(payPuts().length - putsBefore).toBe(1);
    // Read back after the 503 and again on the retried call (the GET of that month): freee shows no new value.
    expect(h.freee.apiRequests(/\/basic_pay_rule$/).slice(-2).map((r) => [r.method, r.query.month])).toEqual([["GET", "4"], ["GET", "4"]]);
    expect(JSON.stringify(employee().payRules)).toBe(before);
    endTurn(sessionId, "山田さんの基本給を変更しました。\n[result:done]");
    await run.done;
    expect(run.status).toBe("FAILED");
    expect(run.error).toBe("WriteOutcomeUnknownError");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status: "failed", errorName: "WriteOutcomeUnknownError", completion: { writeStepsDone: [], writeStepsMissing: ["s1"], reported: "done" } });
    expect(history.task.status).toBe("failed");
    const card = slackTexts(h).filter((t) => t.includes("実行 #1")).at(-1)!;
    expect(card).not.toContain("完了*");
    expect(card).toContain("rerun_execution");
  });

  it("freee's refresh answers invalid_grant mid-run: the run ends as AuthError with the freee message (not ✅ 完了), the session is interrupted", async () => {
    const { taskId, run, agent } = await untilSession();
    const putsBefore = payPuts().length;
    h.freee.expireAccessTokens();
    h.freee.revokeRefreshTokens();
    const result = await call(agent, "freee_hr_update_basic_pay_rule", pay(1, 300_000));
    await agent.close();
    expect(result.isError).toBe(true);
    // The session is still running: the next poll ends the run, whatever the agent would have said.
    await run.done;
    expect(run.status).toBe("FAILED");
    expect(run.error).toBe("AuthError");
    expect(path(run)).not.toContain("RunCompleted");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status: "failed", errorName: "AuthError", fault: { errorName: "AuthError", tool: "freee_hr_update_basic_pay_rule" } });
    expect(history.audit.filter((a) => a.action === "error.L4").map((a) => a.errorType)).toEqual(["AuthError"]);
    const card = slackTexts(h).filter((t) => t.includes("実行 #1")).at(-1)!;
    expect(card).toContain(SlackMessages.freeeConnectionFailed);
    expect(card).not.toContain("完了*");
    expect(payPuts().slice(putsBefore).filter((r) => r.status === 200)).toHaveLength(0);
    expect(h.agents.requests.some((r) => r.method === "POST" && /\/events$/.test(r.path) && JSON.stringify(r.body).includes("user.interrupt"))).toBe(true);
  });

  it("an admin reconnects freee to another company after the approval: the run writes nothing and ends with the preview-again message", async () => {
    const { taskId, run, agent } = await untilSession();
    // The plan was previewed against the connected company, and its card said so.
    const history0 = await h.store.loadHistory(taskId);
    expect(history0.processes[0]!.preview?.company).toEqual({ id: 101, name: "テスト株式会社" });
    expect(history0.executions[0]!.company).toEqual({ id: 101, name: "テスト株式会社" });
    expect(slackTexts(h).some((t) => t.includes(FreeeCompanyChangedMessages.target("テスト株式会社")))).toBe(true);
    // The callback's save with company 202 (the freee user can act on both).
    const connections = new FreeeConnectionStore(h.actions.doc, h.store.tableName, new LocalTokenCipher(h.env.FREEE_TOKEN_LOCAL_KEY!));
    await connect(connections, h.freee, "T0001", undefined, { companyId: 202, companyName: "別会社株式会社" });
    const putsBefore = payPuts().length;
    const result = await call(agent, "freee_hr_update_basic_pay_rule", pay(1, 300_000));
    await agent.close();
    expect(result.isError).toBe(true);
    await run.done;
    expect(run.status).toBe("FAILED");
    expect(run.error).toBe("FreeeCompanyChangedError");
    expect(payPuts().length).toBe(putsBefore);
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status: "failed", errorName: "FreeeCompanyChangedError", fault: { errorName: "FreeeCompanyChangedError" } });
    const card = slackTexts(h).filter((t) => t.includes("実行 #1")).at(-1)!;
    expect(card).toContain(FreeeCompanyChangedMessages.slack);
    expect(card).not.toContain("完了*");
  });

  it("a rerun with every write already done (only the result line was missing) completes without a session", async () => {
    const first = await untilSession({ steps: [wire(1, "freee_hr_update_basic_pay_rule", pay(3, 2_000))] });
    await call(first.agent, "freee_hr_update_basic_pay_rule", pay(3, 2_000));
    await first.agent.close();
    endTurn(first.sessionId, "変更しました。");
    await expectIncomplete(first.taskId, first.run);
    const sessionsBefore = h.agents.sessions.size;
    await rerunExecution(h.actions, h.actor, { taskId: first.taskId, executionNo: 1 });
    const rerun = await runExecution(h, first.taskId, 2);
    await rerun.done;
    expect(rerun.status).toBe("SUCCEEDED");
    expect(path(rerun)).toEqual(["StartSession", "SessionStarted", "NothingLeftToRun"]);
    expect(h.agents.sessions.size).toBe(sessionsBefore);
    const history = await h.store.loadHistory(first.taskId);
    expect(history.executions[1]).toMatchObject({ status: "completed", completion: { writeStepsDone: ["s1"], reported: "no_session" } });
    expect(history.task.status).toBe("completed");
  });
});
