import { afterAll, beforeAll, expect, it } from "vitest";
import { limitsEnvironment } from "../../infra/settings";
import { step as pollSession } from "../../lambdas/poll-session/handler";
import { step as previewProcess } from "../../lambdas/preview-process/handler";
import { createPipelineDeps } from "../../lib/pipeline/create-deps";
import { MCP_BEARER_SECRET, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { runApprovedTask } from "./fixtures";

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

  const preview = previewProcess.withDeps(await createPipelineDeps(previewProcess.service, previewProcess.needs, env));
  expect(await preview({ taskId, version: 1 })).toEqual({ taskId, version: 1, status: before.processes[0]!.preview!.status });
  expect(h.freee.apiRequests().length).toBe(freeeCalls); // a stored preview is not read again

  const poll = pollSession.withDeps(await createPipelineDeps(pollSession.service, pollSession.needs, env));
  const sessionId = before.executions[0]!.sessionId!;
  // The thread it answers with is the task's (read from the table): the next poll of that run would carry it.
  expect(await poll({ taskId, executionNo: 1, sessionId, elapsedSeconds: 30 })).toEqual({ sessionId, elapsedSeconds: 30, state: "completed", thread });

  const after = await h.store.loadHistory(taskId);
  expect(after.task).toEqual(before.task);
  expect(after.executions).toEqual(before.executions);
  expect(after.audit.map((a) => a.auditKey)).toEqual(before.audit.map((a) => a.auditKey));
});
