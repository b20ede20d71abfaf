import type { SFNClient } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ev, jsonReply } from "../../dev/fakes/anthropic";
import { limitsEnvironment } from "../../infra/settings";
import { rerunExecution } from "../../lib/ingress/actions";
import { step as pollSession } from "../../lambdas/poll-session/handler";
import { step as previewProcess } from "../../lambdas/preview-process/handler";
import { MCP_BEARER_SECRET, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { decide, l1Ok, l2Ok, l3Ok, runApprovedTask, runExecution } from "./fixtures";

/**
 * The steps that take the thread (and attachments) from the state machine instead of reading the task still
 * take the payload a run started before that change sends (StartRun's fallback is the same one line) — Step Functions keeps an execution on the definition
 * it started with, so after a deploy such a run calls the new Lambdas without the fields. Each is called here as
 * that older definition calls it, on a finished task: it reads the task, and its retry changes nothing.
 */
let h: PipelineHarness;
let env: Record<string, string>;
beforeAll(async () => {
  h = await startPipelineHarness();
  env = {
    ...h.env,
    ...limitsEnvironment(h.machines.settings),
    ANTHROPIC_BASE_URL: h.agents.url,
    ANTHROPIC_API_KEY: h.agents.apiKey,
    MCP_SERVER_URL: "https://mcp.example.test/mcp",
    MCP_BEARER_SECRET,
  };
});
afterAll(async () => h.close());

it("PreviewProcess and PollSession without thread or attachments read the task and repeat nothing", async () => {
  const { taskId, thread, run } = await runApprovedTask(h);
  expect(run.status, String(run.cause)).toBe("SUCCEEDED");
  const before = await h.store.loadHistory(taskId);
  const freeeCalls = h.freee.apiRequests().length;

  const preview = previewProcess.withDeps(await previewProcess.wire(env));
  expect(await preview({ taskId, version: 1 })).toEqual({ taskId, version: 1, status: before.processes[0]!.preview!.status });
  expect(h.freee.apiRequests().length).toBe(freeeCalls); // a stored preview is not read again

  const poll = pollSession.withDeps(await pollSession.wire(env));
  const sessionId = before.executions[0]!.sessionId!;
  // The thread it answers with is the task's (read from the table): the next poll of that run would carry it.
  expect(await poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 30 })).toEqual({ sessionId, elapsedSeconds: 30, state: "completed", thread });

  const after = await h.store.loadHistory(taskId);
  expect(after.task).toEqual(before.task);
  expect(after.executions).toEqual(before.executions);
  expect(after.audit.map((a) => a.auditKey)).toEqual(before.audit.map((a) => a.auditKey));
});

it("ExecutionRun without processVersion (started by a Lambda from before the field), or naming another version, runs the Execution's own Process", async () => {
  // Process v1 rejected, v2 (one read step) approved; run 1 fails at once, so that it can be rerun.
  const v2 = { steps: [{ stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: JSON.stringify({ year: 2026, month: 12 }) }] };
  h.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok(), jsonReply(v2));
  h.agents.scriptNextSession({ polls: [{ events: [ev.sessionError("api_error", "terminal")] }] });
  const { taskId, execution } = h.startTask();
  await decide(h, taskId, "prompt", 1, "approve");
  await decide(h, taskId, "process", 1, { reject: "一覧取得だけにしてください" });
  await decide(h, taskId, "process", 2, "approve");
  await execution.done;
  await (await runExecution(h, taskId, 1)).done;

  for (const [executionNo, payload] of [
    [2, (input: Record<string, unknown>) => ({ taskId: input.taskId, executionNo: input.executionNo })],
    [3, (input: Record<string, unknown>) => ({ ...input, processVersion: 1 })],
  ] as const) {
    // The click's StartExecution is taken here, and the run started with the payload a deploy could leave it.
    let sent: Record<string, unknown> | undefined;
    const sfn = { send: async (command: { input: { input?: string } }) => void (sent = JSON.parse(command.input.input!) as Record<string, unknown>) };
    expect((await rerunExecution({ ...h.actions, sfn: sfn as unknown as SFNClient }, h.actor, { taskId, executionNo: executionNo - 1 })).outcome).toBe("applied");
    expect(sent).toEqual({ taskId, executionNo, processVersion: 2 });
    h.agents.scriptNextSession({ polls: [{ events: [ev.sessionError("api_error", "terminal")] }] });
    const run = h.local.startExecution(h.machines.executionRunArn, `${taskId}-e${executionNo}`, payload(sent!));
    await run.done;
    // The session failed as scripted: the run itself started from the right version.
    expect(run.error).toBe("AgentRunFailedError");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[executionNo - 1]).toMatchObject({ processVersion: 2, status: "failed" });
    const created = history.audit.find((a) => a.auditKey === `execution.session_created#execution#${executionNo}`);
    expect(created?.details).toMatchObject({ processVersion: 2, steps: ["s1"] });
    expect(history.audit.filter((a) => a.auditKey === `execution.started#execution#${executionNo}`)).toHaveLength(1);
  }
});
