import { afterAll, beforeAll, expect, it } from "vitest";
import { path, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { approveTask, runExecution } from "./fixtures";

let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());

it("runs a whole task locally: L1 → L2 → approve → L3 → preview → approve → ExecutionRun → completed", async () => {
  const { execution, taskId } = await approveTask(h);
  expect(execution.status, JSON.stringify(execution.events.filter((e) => e.type === "StateFailed" || e.type === "ExecutionFailed"))).toBe("SUCCEEDED");
  expect(path(execution)).toEqual([
    "CreateTask",
    "AnalyzeTask",
    "IsRequest?",
    "FirstPrompt",
    "GeneratePrompt",
    "AwaitPromptApproval",
    "PromptDecision",
    "FirstProcess",
    "GenerateProcess",
    "PreviewProcess",
    "ProcessApprovedByPolicy?",
    "AwaitProcessApproval",
    "ProcessDecision",
    "StartRun",
    "PipelineDone",
  ]);
  const run = await runExecution(h, taskId);
  await run.done;
  expect(run.status, String(run.cause)).toBe("SUCCEEDED");
  expect(path(run).at(-1)).toBe("RunCompleted");
  const history = await h.store.loadHistory(taskId);
  expect(history.task.status).toBe("completed");
  expect(history.executions[0]?.status).toBe("completed");
  expect(history.audit.map((a) => a.action)).toEqual(
    expect.arrayContaining(["task.created", "task.analyzed", "prompt.generated", "prompt.approved", "process.generated", "process.previewed", "process.approved", "execution.started", "execution.completed"]),
  );
});
