import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ev, jsonReply } from "../../dev/fakes/anthropic";
import { step as pollSession } from "../../lambdas/poll-session/handler";
import { cancelExecution } from "../../lib/ingress/actions";
import type { AgentRunner } from "../../lib/model/agent/agent-runner";
import type { Execution } from "../../lib/core/domain/records";
import type { PipelineDeps } from "../../lib/steps/ports";
import { MCP_BEARER_SECRET, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { approveTask, l3Ok, runExecution, slackTexts } from "./fixtures";

/**
 * The poll that sees the session end its turn reads the run once: what lands on the Execution after
 * that read — a freee fault the MCP server stamps, a cancel — is the completing write's to refuse, and the verdict
 * write's to return. Each test holds a run with its session, stops its ExecutionRun, and calls PollSession as the
 * state machine would, with the fault or cancel landing while the agent is being polled.
 */
let h: PipelineHarness;
let deps: PipelineDeps;
beforeAll(async () => {
  h = await startPipelineHarness();
  deps = await pollSession.wire({
    ...h.env,
    ANTHROPIC_BASE_URL: h.agents.url,
    ANTHROPIC_API_KEY: h.agents.apiKey,
    MCP_SERVER_URL: "https://mcp.example.test/mcp",
    MCP_BEARER_SECRET,
  });
});
afterAll(async () => h.close());
beforeEach(() => h.slack.reset());

const FAULT: NonNullable<Execution["fault"]> = { errorName: "AuthError", at: "2026-12-02T00:00:00.000Z", tool: "freee_hr_update_basic_pay_rule", reason: "invalid_grant" };
const WRITE_PLAN = { steps: [{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: JSON.stringify({ year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 }) }] };

/** A run 1 with its session created and its ExecutionRun stopped: the test plays the next poll itself. */
async function heldRun(l3 = l3Ok()) {
  h.agents.scriptNextSession({ polls: Array.from({ length: 500 }, () => ({ events: [ev.running()] })) });
  const { taskId, thread } = await approveTask(h, l3);
  const run = await runExecution(h, taskId);
  await h.local.waitFor(() => run.events.some((e) => e.type === "StateExited" && (e as { state: { name: string } }).state.name === "PollSession"), 10_000, "first poll");
  run.abort();
  await run.done;
  // A poll already invoked when the run stopped still finishes: let it land before the test polls.
  await h.idle("poll-session");
  const sessionId = (await h.store.getExecutionOrThrow(taskId, 1)).sessionId!;
  // The session ends its turn claiming done at the next poll.
  h.agents.scriptSession(sessionId, { polls: [{ events: [ev.agentMessage("すべてのステップを実行しました。\n[result:done]"), ev.idle("end_turn")] }] });
  return { taskId, thread, sessionId };
}

/** PollSession with `meanwhile` run after the agent answered the poll and before the step writes anything. */
function pollWith(meanwhile: () => Promise<unknown>) {
  const agent: AgentRunner = Object.create(deps.agent) as AgentRunner;
  agent.poll = async (sessionId, progress) => {
    const outcome = await deps.agent.poll(sessionId, progress);
    await meanwhile();
    return outcome;
  };
  return pollSession.withDeps({ ...deps, agent });
}

async function settledAs(taskId: string) {
  const history = await h.store.loadHistory(taskId);
  return { history, execution: history.executions[0]!, actions: history.audit.map((a) => a.action) };
}

describe("the last poll reads the run once", () => {
  it("a freee fault stamped after the poll read the run: the completing write is refused, the poll throws AuthError, nothing says 完了", async () => {
    const { taskId, thread, sessionId } = await heldRun();
    const poll = pollWith(() => h.store.recordRunFault(taskId, 1, FAULT));
    await expect(poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 6, thread })).rejects.toMatchObject({ name: "AuthError" });
    const { history, execution, actions } = await settledAs(taskId);
    // Left running with its fault for ExecutionRun's Catch (RecordRunFailure) to fail, as a fault seen at the read is.
    expect(execution).toMatchObject({ status: "running", fault: FAULT });
    expect(execution.endedAt).toBeUndefined();
    expect(history.task.status).toBe("executing");
    expect(actions).not.toContain("execution.completed");
    expect(slackTexts(h).some((t) => t.includes("完了"))).toBe(false);
  });

  it("a fault stamped while a verdict against the run is judged: the run fails with the fault's AuthError, not the verdict's error", async () => {
    // The write step is not in the ledger: the verdict is IncompleteRunError, which the fault explains.
    const { taskId, thread, sessionId } = await heldRun(jsonReply(WRITE_PLAN));
    const poll = pollWith(() => h.store.recordRunFault(taskId, 1, FAULT));
    await expect(poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 6, thread })).rejects.toMatchObject({ name: "AuthError" });
    const { execution, actions } = await settledAs(taskId);
    expect(execution).toMatchObject({ status: "running", fault: FAULT, completion: { writeStepsMissing: ["s1"] } });
    expect(actions).not.toContain("execution.completed");
  });

  it("a cancel after the poll read the run (a fault stamped too): the user's cancel wins — 中止, not 完了 and not AuthError", async () => {
    const { taskId, thread, sessionId } = await heldRun();
    const poll = pollWith(async () => {
      await h.store.recordRunFault(taskId, 1, FAULT);
      expect((await cancelExecution(h.actions, h.actor, { taskId, executionNo: 1 })).outcome).toBe("applied");
    });
    expect(await poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 6, thread })).toMatchObject({ state: "cancelled" });
    const { history, execution, actions } = await settledAs(taskId);
    expect(execution.status).toBe("cancelled");
    expect(execution.cancelFinalizedAt).toBeDefined();
    expect(history.task.status).toBe("cancelled");
    expect(actions).toContain("execution.cancelled");
    expect(actions).not.toContain("execution.completed");
  });

  it("nothing landed: completed with its execution.completed entry in the same write, once, and a retried poll changes nothing", async () => {
    const { taskId, thread, sessionId } = await heldRun();
    const poll = pollWith(async () => undefined);
    expect(await poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 6, thread })).toMatchObject({ state: "completed" });
    const first = await settledAs(taskId);
    expect(first.execution.status).toBe("completed");
    expect(first.history.task.status).toBe("completed");
    const completed = first.history.audit.filter((a) => a.action === "execution.completed");
    expect(completed).toMatchObject([{ actor: "system:pipeline", details: { completedSteps: expect.any(Number) } }]);
    expect(await poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 9, thread })).toMatchObject({ state: "completed" });
    const again = await settledAs(taskId);
    expect(again.execution).toEqual(first.execution);
    expect(again.history.audit).toEqual(first.history.audit);
  });
});
