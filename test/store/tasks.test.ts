import { describe, expect, it } from "vitest";
import { IllegalTransitionError, RecordNotFoundError, StateConflictError } from "../../lib/core/errors/taxonomy";
import { useStore } from "./helpers";

const s = useStore();

describe("tasks", () => {
  it("one message → one task: a second create returns the first, unchanged (UNIQUE → idempotent)", async () => {
    const t = s.thread();
    const first = await s.store.createTask({ thread: t, requesterId: "U1", requestText: "一回目", pipelineExecutionName: "n" });
    const again = await s.store.createTask({ thread: t, requesterId: "U2", requestText: "二回目", pipelineExecutionName: "n" });
    expect(first.applied).toBe(true);
    expect(again.applied).toBe(false);
    expect(again.record.requestText).toBe("一回目");
  });

  it("concurrent creates of the same message: exactly one applies", async () => {
    const t = s.thread();
    const results = await Promise.all(
      Array.from({ length: 11 }, () => s.store.createTask({ thread: t, requesterId: "U1", requestText: "同時", pipelineExecutionName: "n" })),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.record.taskId)).size).toBe(1);
  });

  it("Japanese text is stored as is", async () => {
    const task = await s.newTask();
    expect((await s.store.getTaskOrThrow(task.taskId)).requestText).toBe("来月から山田さんの基本給を30万円に変更して");
  });

  it("status change is conditional; a retried identical change is applied:false, not an error", async () => {
    const task = await s.newTask();
    const first = await s.store.transitionTask(task.taskId, "prompt_review");
    const retried = await s.store.transitionTask(task.taskId, "prompt_review");
    expect(first.applied).toBe(true);
    expect(retried.applied).toBe(false);
    expect(retried.record.status).toBe("prompt_review");
  });

  it("a change from the wrong state is a StateConflictError that names both states", async () => {
    const task = await s.newTask();
    await expect(s.store.transitionTask(task.taskId, "executing", { from: ["process_review"] })).rejects.toMatchObject({
      name: "StateConflictError",
      details: { actual: "analyzing", to: "executing" },
    });
  });

  it("an illegal transition is refused before any write", async () => {
    const task = await s.newTask();
    await expect(s.store.transitionTask(task.taskId, "completed", { from: ["analyzing"] })).rejects.toBeInstanceOf(IllegalTransitionError);
    expect((await s.store.getTaskOrThrow(task.taskId)).status).toBe("analyzing");
  });

  it("a missing task is RecordNotFoundError", async () => {
    await expect(s.store.transitionTask("nope", "failed")).rejects.toBeInstanceOf(RecordNotFoundError);
    await expect(s.store.getTaskOrThrow("nope")).rejects.toBeInstanceOf(RecordNotFoundError);
  });

  it("card refs and the L1 spec are stored on the task", async () => {
    const task = await s.newTask();
    await s.store.setCardTs(task.taskId, "prompt", "1700000001.000200");
    const updated = await s.store.updateTask(task.taskId, { spec: { title: "基本給変更", intent: "update", domain: "hr", parameters: { amount: 300000 }, missingInformation: [] } });
    expect(updated.cards.prompt).toBe("1700000001.000200");
    expect(updated.spec?.parameters).toEqual({ amount: 300000 });
  });
});
