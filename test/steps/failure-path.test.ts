import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ThrottledError } from "../../lib/core/errors/taxonomy";
import { errorReply } from "../../dev/fakes/anthropic";
import { retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { l1Ok, runApprovedTask } from "./fixtures";

/**
 * Issue 14 defect 1: the failure path is what tells the user, so it must outlast a throttling burst. Before, the
 * bookkeeping states retried 3 times (about 14 s): one DynamoDB burst during the failure write and the machine
 * failed with the task left `executing` / `prompt_review` and no `error.*` entry. Now they retry for minutes.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());

const throttled = (n: number) => Array.from({ length: n }, () => new ThrottledError("DynamoDB throttled the failure write"));
const FAILURE_STATES = ["RecordPipelineFailure", "RecordRunFailure", "ExpirePromptApproval", "ExpireProcessApproval"];

describe("the failure path rides out a throttling burst", () => {
  it("RecordRunFailure: 8 throttled attempts in a row, then the run is recorded failed with error.L4", async () => {
    // Armed before the task starts: nothing calls sessions or RecordRunFailure until the run.
    h.agents.failNext({ method: "POST", path: "/v1/sessions", status: 400, errorType: "invalid_request_error" });
    h.failInvocation("record-run-failure", ...throttled(8));
    const { taskId, run } = await runApprovedTask(h);
    expect(retriesOf(run, "RecordRunFailure")).toBe(8);
    expect(run.error).toBe("BadRequestError"); // the run's own failure, not the failure path's
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]?.status).toBe("failed");
    expect(history.task.status).toBe("failed");
    expect(history.audit.filter((a) => a.action === "error.L4")).toHaveLength(1);
  });

  it("RecordPipelineFailure: 8 throttled attempts in a row, then the L2 failure is recorded", async () => {
    h.anthropic.enqueue(l1Ok(), errorReply(400, "invalid_request_error", "scripted refusal"));
    h.failInvocation("record-pipeline-failure", ...throttled(8));
    const { execution, taskId } = h.startTask();
    await execution.done;
    expect(retriesOf(execution, "RecordPipelineFailure")).toBe(8);
    expect(execution.error).toBe("BadRequestError");
    const history = await h.store.loadHistory(taskId);
    expect(history.task.status).toBe("failed");
    expect(history.prompts[0]?.status).toBe("failed");
    expect(history.audit.filter((a) => a.action === "error.L2")).toHaveLength(1);
  });

  it("each failure-path state retries transient errors for minutes, each pause at most a minute", () => {
    const states = { ...h.machines.taskPipeline.States, ...h.machines.executionRun.States };
    for (const name of FAILURE_STATES) {
      const retry = (states[name]?.Retry ?? []) as { ErrorEquals: string[]; MaxAttempts: number; IntervalSeconds: number; BackoffRate: number; MaxDelaySeconds?: number }[];
      const transient = retry.find((r) => r.ErrorEquals.includes("ThrottledError"));
      expect(transient, name).toBeDefined();
      const pauses = Array.from({ length: transient!.MaxAttempts }, (_, i) => Math.min(transient!.IntervalSeconds * transient!.BackoffRate ** i, transient!.MaxDelaySeconds ?? Infinity));
      expect(pauses.reduce((a, b) => a + b, 0), name).toBeGreaterThanOrEqual(5 * 60);
      expect(Math.max(...pauses), name).toBeLessThanOrEqual(60);
    }
  });
});
