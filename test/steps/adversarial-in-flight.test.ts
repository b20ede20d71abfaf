import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ev, jsonReply } from "../../dev/fakes/anthropic";
import { cancelExecution } from "../../lib/ingress/actions";
import { ExecutionCardTexts } from "../../lib/core/messages/ja";
import type { PipelineHarness } from "../support/local-sfn";
import { approveTask, runExecution, slackTexts, agentOfSession, usePipelineWithMcpServer } from "./fixtures";
import { until } from "../support/until";

/**
 * Adversarial: a freee write still in flight when the run ends (issue of the card saying "nothing was written"
 * beside a write freee took). The local ExecutionRun, the freee MCP server as it ships over the same table, the
 * strict freee fake holding the approved PUT for a moment; the official MCP client plays the agent's call.
 * - 中止 while the write is in flight: the cancel is finalised only once the write settled, and the 中止 card
 *   says what freee took — never 「freee への書き込みはありません」.
 * - the session ends its turn while the write is in flight: the verdict waits for it, and the run is 完了.
 */
let h: PipelineHarness;
let mcpUrl: string;
// Each test's plan changes pay from freee's seed values, which the fixture restores before each test.
usePipelineWithMcpServer((started) => ({ h, mcpUrl } = started));

const pay = (month: number) => ({ year: 2029, month, employee_id: 1, pay_calc_type: "monthly", pay_amount: 305_000 });
const plan = (month: number) => ({ steps: [{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: JSON.stringify(pay(month)) }] });
const RUNNING = { polls: Array.from({ length: 2000 }, () => ({ events: [ev.running()] })) };

async function untilSession(month: number) {
  h.agents.scriptNextSession(RUNNING);
  const { taskId } = await approveTask(h, jsonReply(plan(month)));
  const run = await runExecution(h, taskId, 1);
  const { sessionId, agent } = await agentOfSession(h, mcpUrl, taskId, 1);
  return { taskId, run, sessionId, agent };
}


/**
 * The approved PUT reaches freee, which holds it until `release` is called, then takes it (2xx). Resolves once
 * freee has the request, with the agent's pending call.
 */
async function writeHeldByFreee(agent: Client, month: number): Promise<{ call: Promise<CallToolResult>; release: () => void }> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const arrived = () => h.freee.apiRequests(/\/basic_pay_rule$/).find((r) => r.method === "PUT" && (r.body as { month?: number } | undefined)?.month === month);
  h.freee.fail({ method: "PUT", path: /\/basic_pay_rule$/ }, { holdUntil: held });
  const call = agent.callTool({ name: "freee_hr_update_basic_pay_rule", arguments: pay(month) }) as Promise<CallToolResult>;
  await until("the call to arrive", () => arrived() !== undefined);
  return { call, release };
}

const interrupts = (sessionId: string) => h.agents.requests.filter((r) => r.method === "POST" && r.path.includes(sessionId) && JSON.stringify(r.body).includes("user.interrupt")).length;
const agentCalls = (sessionId: string) => h.agents.requests.filter((r) => r.path.includes(sessionId)).length;

const lastCard = (executionNo: number) => slackTexts(h).filter((t) => t.includes(`実行 #${executionNo}`)).at(-1)!;

describe("adversarial: a freee write in flight when the run ends", () => {
  it("中止 while freee holds the approved write: the cancel waits for it, and the 中止 card says what freee took", async () => {
    const { taskId, run, sessionId, agent } = await untilSession(5);
    const { call, release } = await writeHeldByFreee(agent, 5);
    // The click lands while freee holds the PUT (the MCP server checked the run was live just before).
    expect((await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 })).outcome).toBe("applied");
    // freee takes the write once the run has had its chance to end without it: a 中止 card drawn, or a poll after
    // the one that interrupted the session.
    await until("the interrupts or the 中止 card", () => interrupts(sessionId) >= 2 || slackTexts(h).some((t) => t.includes('"text":"実行 #1: 中止"')));
    release();
    expect((await call).isError).toBeFalsy();
    await agent.close();
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    const execution = (await h.store.loadHistory(taskId)).executions[0]!;
    expect(execution).toMatchObject({ status: "cancelled", writes: { done: ["s1"], unknown: [] } });
    expect(execution.cancelFinalizedAt).toBeDefined();
    const card = lastCard(1);
    expect(card).toContain(ExecutionCardTexts.writtenBeforeStopHead);
    expect(card).toContain(ExecutionCardTexts.written);
    // 「このほかに freee への書き込みはありません。」 follows the write; 「freee への書き込みはありません。」 alone must not.
    expect(card).not.toMatch(new RegExp(`(?<!このほかに )${ExecutionCardTexts.noWrites}`));
    expect(card).not.toContain(ExecutionCardTexts.notRecorded);
    // No 中止 card was ever drawn without the write: until it settled the card said 中止中...
    const finals = slackTexts(h).filter((t) => t.includes("実行 #1") && t.includes(ExecutionCardTexts.writtenBeforeStopHead));
    expect(finals.every((t) => t.includes(ExecutionCardTexts.written))).toBe(true);
  });

  it("the session ends its turn while freee holds the approved write: the verdict waits for it — 完了, not 「書き込みの記録がありません」", async () => {
    const { taskId, run, sessionId, agent } = await untilSession(6);
    const { call, release } = await writeHeldByFreee(agent, 6);
    // The agent gave up waiting for the tool and ended its turn; the MCP server's Lambda still has the write.
    h.agents.scriptSession(sessionId, { polls: [{ events: [ev.agentMessage("山田さんの基本給を変更しました。\n[result:done]"), ev.idle("end_turn")] }] });
    const before = agentCalls(sessionId);
    let ended = false;
    void run.done.then(() => (ended = true));
    // freee takes the write once the run has had its chance to be judged without it: it ended, or it kept polling.
    await until("the run to end or six more agent calls", () => ended || agentCalls(sessionId) >= before + 6);
    release();
    expect((await call).isError).toBeFalsy();
    await agent.close();
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    const execution = (await h.store.loadHistory(taskId)).executions[0]!;
    expect(execution).toMatchObject({ status: "completed", completion: { writeStepsDone: ["s1"], writeStepsMissing: [] }, writes: { done: ["s1"] } });
    expect(lastCard(1)).not.toContain(ExecutionCardTexts.notRecorded);
  });
});
