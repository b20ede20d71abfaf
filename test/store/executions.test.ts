import { describe, expect, it } from "vitest";
import { LimitReachedError, StateConflictError } from "../../lib/core/errors/taxonomy";
import { useStore } from "./helpers";

const s = useStore();

describe("executions", () => {
  async function approvedTask() {
    const task = await s.newTask();
    await s.store.transitionTask(task.taskId, "prompt_review");
    await s.store.transitionTask(task.taskId, "process_review");
    await s.store.updateTask(task.taskId, { approvedProcessVersion: 1 });
    return task;
  }

  it("allocate → create → running → completed; every step conditional", async () => {
    const task = await approvedTask();
    const { executionNo, applied } = await s.store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    expect(applied).toBe(true);
    expect(executionNo).toBe(1);
    const created = await s.store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "U1" });
    expect(created.record.executionId).toBe(`${task.taskId}-e1`);
    expect((await s.store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "U1" })).applied).toBe(false);
    await s.store.transitionExecution(task.taskId, 1, "running", { set: { sessionId: "sess_1" } });
    const progress = { seenEventIds: ["e1"], completedSteps: 1, toolErrors: [] };
    expect((await s.store.recordProgress(task.taskId, 1, { progress })).applied).toBe(true);
    const done = await s.store.transitionExecution(task.taskId, 1, "completed", { set: { resultSummary: "完了" } });
    expect(done.record.status).toBe("completed");
    // Progress after the end is refused and the final record returned.
    const late = await s.store.recordProgress(task.taskId, 1, { progress });
    expect(late.applied).toBe(false);
    expect(late.record.status).toBe("completed");
  });

  it("recordRunFault stamps a live run once; recordCompletion only while running", async () => {
    const task = await approvedTask();
    await s.store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    await s.store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
    const fault = { errorName: "AuthError" as const, at: "2026-12-01T00:00:00.000Z", tool: "freee_api_put", reason: "expired" };
    expect(await s.store.recordRunFault(task.taskId, 1, fault)).toBe(true);
    expect(await s.store.recordRunFault(task.taskId, 1, { ...fault, tool: "second" })).toBe(false);
    expect((await s.store.getExecutionOrThrow(task.taskId, 1)).fault).toEqual(fault);

    const completion = { writeStepsDone: ["s1"], writeStepsMissing: [], reported: "done" as const, judgedAt: "2026-12-01T00:00:01.000Z" };
    const early = await s.store.recordCompletion(task.taskId, 1, completion);
    expect(early.applied).toBe(false);
    expect(early.record.completion).toBeUndefined();
    await s.store.transitionExecution(task.taskId, 1, "running");
    const judged = await s.store.recordCompletion(task.taskId, 1, completion);
    expect(judged).toMatchObject({ applied: true, record: { completion } });
    const progress = { seenEventIds: [], completedSteps: 1, toolErrors: [] };
    expect((await s.store.recordProgress(task.taskId, 1, { progress, completion: { ...completion, reported: "missing" } })).record.completion?.reported).toBe("missing");
    await s.store.transitionExecution(task.taskId, 1, "failed");
    expect(await s.store.recordRunFault(task.taskId, 1, fault)).toBe(false);
  });

  it("cancel only from running: a completed run cannot be cancelled", async () => {
    const task = await approvedTask();
    await s.store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    await s.store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
    await s.store.transitionExecution(task.taskId, 1, "running");
    await s.store.transitionExecution(task.taskId, 1, "completed");
    await expect(s.store.transitionExecution(task.taskId, 1, "cancelled", { from: ["running"] })).rejects.toBeInstanceOf(StateConflictError);
  });

  it("rerun limit: the 4th run is allowed, the 5th is LimitReachedError (3 reruns)", async () => {
    const task = await approvedTask();
    for (let run = 1; run <= 4; run++) {
      const { executionNo } = await s.store.allocateExecution(task.taskId, { from: run === 1 ? ["process_review"] : ["failed", "cancelled"], maxExecutions: 4 });
      expect(executionNo).toBe(run);
      await s.store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "U1" });
      await s.store.transitionExecution(task.taskId, executionNo, "running");
      await s.store.transitionExecution(task.taskId, executionNo, "failed");
      await s.store.transitionTask(task.taskId, "failed");
    }
    await expect(s.store.allocateExecution(task.taskId, { from: ["failed", "cancelled"], maxExecutions: 4 })).rejects.toBeInstanceOf(LimitReachedError);
    expect((await s.store.getTaskOrThrow(task.taskId)).executionCount).toBe(4);
  });

  it("concurrent reruns (double click): one new execution number, the others resume it", async () => {
    const task = await approvedTask();
    await s.store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    await s.store.transitionTask(task.taskId, "failed");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => s.store.allocateExecution(task.taskId, { from: ["failed", "cancelled"], maxExecutions: 4 })),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.executionNo))).toEqual(new Set([2]));
  });
});
